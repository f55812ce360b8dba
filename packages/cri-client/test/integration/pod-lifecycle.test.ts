import fs from 'node:fs';
import path from 'node:path';
import type { ContainerConfig } from '../../src/index.js';
import { env, newClient, runTestSandbox, testPod, useRuntimeSuite, waitFor } from './helpers.js';

describe('CRI v1 against the real containerd: pod lifecycle', () => {
  const suite = useRuntimeSuite({ connect: newClient });

  function busybox(name: string, command: string[], extra: Partial<ContainerConfig> = {}): ContainerConfig {
    return {
      metadata: { name, attempt: 0 },
      image: { image: env('KUBELET_TS_BUSYBOX_IMAGE') },
      command,
      logPath: `${name}/0.log`,
      labels: { 'io.kubernetes.container.name': name },
      ...extra,
    };
  }

  async function startContainer(podSandboxId: string, pod: ReturnType<typeof testPod>, config: ContainerConfig): Promise<string> {
    fs.mkdirSync(path.join(pod.logDirectory, config.metadata?.name ?? ''), { recursive: true });
    const { containerId } = await suite.client.runtime.createContainer({ podSandboxId, config, sandboxConfig: pod.config });
    suite.cleanup.add(() => suite.client.runtime.removeContainer({ containerId }, { ignoreNotFound: true }));
    await suite.client.runtime.startContainer({ containerId });
    return containerId;
  }

  it('reports Version v1 and RuntimeReady/NetworkReady', async () => {
    const version = await suite.client.runtime.version({ version: '0.1.0' });
    expect(version).toMatchObject({ runtimeName: 'containerd', runtimeApiVersion: 'v1' });
    const status = await suite.client.runtime.status({});
    const conditions = Object.fromEntries((status.status?.conditions ?? []).map((c) => [c.type, c.status]));
    expect(conditions).toEqual(expect.objectContaining({ RuntimeReady: true, NetworkReady: true }));
  });

  it('runs a sandbox on the CNI network whose HTTP server the host reaches', async () => {
    const pod = testPod('http');
    const podSandboxId = await runTestSandbox(suite.client.runtime, pod, suite.cleanup);
    const sandbox = (await suite.client.runtime.podSandboxStatus({ podSandboxId })).status;
    expect(sandbox?.state).toBe('SANDBOX_READY');
    const ip = sandbox?.network?.ip ?? '';
    expect(ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);

    await startContainer(podSandboxId, pod, {
      metadata: { name: 'echo', attempt: 0 },
      image: { image: env('KUBELET_TS_HTTP_IMAGE') },
      logPath: 'echo/0.log',
    });
    const body = await waitFor(`HTTP 200 from http://${ip}:8080/`, async () => {
      const response = await fetch(`http://${ip}:8080/`, { signal: AbortSignal.timeout(1_000) });
      return response.status === 200 ? response.text() : undefined;
    });
    expect(body.trim()).toBe('ok');
  });

  it('creates, starts, inspects, execs, logs, updates, stops and removes a container', async () => {
    const pod = testPod('life', { labels: { 'kubelet-ts.test/case': 'life' } });
    const podSandboxId = await runTestSandbox(suite.client.runtime, pod, suite.cleanup);
    const containerId = await startContainer(
      podSandboxId,
      pod,
      busybox('main', ['sh', '-c', 'echo hello from $GREETING; echo to stderr >&2; trap "" TERM; while true; do sleep 1; done'], {
        envs: [{ key: 'GREETING', value: 'the test' }],
        labels: { 'io.kubernetes.container.name': 'main', 'kubelet-ts.test/case': 'life' },
        linux: { resources: { memoryLimitInBytes: 64 * 1024 * 1024, cpuPeriod: 100_000, cpuQuota: 50_000 } },
      }),
    );

    // ContainerStatus: running, timestamps in ns as decimal strings, log path under the sandbox log directory.
    const status = (await suite.client.runtime.containerStatus({ containerId })).status;
    expect(status).toMatchObject({ id: containerId, state: 'CONTAINER_RUNNING', metadata: { name: 'main', attempt: 0 } });
    expect(BigInt(status?.startedAt ?? '0')).toBeGreaterThan(BigInt(status?.createdAt ?? '0'));
    expect(status?.logPath).toBe(path.join(pod.logDirectory, 'main/0.log'));

    // The log file in CRI format: "<RFC3339Nano> <stream> F <line>".
    const log = await waitFor('both log lines', async () => {
      const text = fs.readFileSync(status?.logPath ?? '', 'utf8');
      return text.includes('to stderr') ? text : undefined;
    });
    const lines = log.trim().split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+(Z|[+-]\d\d:\d\d) stdout F hello from the test$/),
        expect.stringMatching(/^\S+ stderr F to stderr$/),
      ]),
    );

    // ExecSync: exit code, stdout, stderr, and a timeout.
    const exec = await suite.client.runtime.execSync({ containerId, cmd: ['sh', '-c', 'echo out; echo err >&2; exit 7'], timeout: 10 });
    expect({ exitCode: exec.exitCode, stdout: exec.stdout.toString(), stderr: exec.stderr.toString() }).toEqual({
      exitCode: 7,
      stdout: 'out\n',
      stderr: 'err\n',
    });
    const started = Date.now();
    const timedOut = await suite.client.runtime.execSync({ containerId, cmd: ['sleep', '30'], timeout: 1 }).catch((e: unknown) => e);
    expect(timedOut).toMatchObject({ code: 'DEADLINE_EXCEEDED' });
    expect(Date.now() - started).toBeLessThan(10_000);

    // The limits from CreateContainer, then UpdateContainerResources, are in the container's cgroup.
    const memoryCgroup = path.join('/sys/fs/cgroup/memory', pod.cgroupParent, containerId);
    const cpuCgroup = path.join('/sys/fs/cgroup/cpu', pod.cgroupParent, containerId);
    expect(fs.readFileSync(path.join(memoryCgroup, 'memory.limit_in_bytes'), 'utf8').trim()).toBe(String(64 * 1024 * 1024));
    expect(fs.readFileSync(path.join(cpuCgroup, 'cpu.cfs_quota_us'), 'utf8').trim()).toBe('50000');
    await suite.client.runtime.updateContainerResources({
      containerId,
      linux: { memoryLimitInBytes: 96 * 1024 * 1024, cpuPeriod: 100_000, cpuQuota: 20_000 },
    });
    expect(fs.readFileSync(path.join(memoryCgroup, 'memory.limit_in_bytes'), 'utf8').trim()).toBe(String(96 * 1024 * 1024));
    expect(fs.readFileSync(path.join(cpuCgroup, 'cpu.cfs_quota_us'), 'utf8').trim()).toBe('20000');

    // ContainerStats of a running container.
    const stats = (await suite.client.runtime.containerStats({ containerId })).stats;
    expect(stats?.attributes?.id).toBe(containerId);
    expect(Number(stats?.memory?.workingSetBytes?.value ?? '0')).toBeGreaterThan(0);

    // List with label filters.
    const byLabel = await suite.client.runtime.listContainers({ filter: { labelSelector: { 'kubelet-ts.test/case': 'life' } } });
    expect(byLabel.containers.map((c) => c.id)).toEqual([containerId]);
    const sandboxes = await suite.client.runtime.listPodSandbox({
      filter: { labelSelector: { 'io.kubernetes.pod.uid': pod.uid }, state: { state: 'SANDBOX_READY' } },
    });
    expect(sandboxes.items.map((s) => s.id)).toEqual([podSandboxId]);

    // StopContainer with a grace period: PID 1 ignores SIGTERM, so it is killed (137) after the timeout.
    const stopStarted = Date.now();
    await suite.client.runtime.stopContainer({ containerId, timeout: 2 });
    const stopTook = Date.now() - stopStarted;
    expect(stopTook).toBeGreaterThanOrEqual(1_900);
    expect(stopTook).toBeLessThan(15_000);
    const stopped = (await suite.client.runtime.containerStatus({ containerId })).status;
    expect(stopped).toMatchObject({ state: 'CONTAINER_EXITED', exitCode: 137 });
    expect(BigInt(stopped?.finishedAt ?? '0')).toBeGreaterThan(BigInt(stopped?.startedAt ?? '0'));

    // Remove the container; then the sandbox: stop → NOTREADY, remove → gone, second stop → NOT_FOUND.
    await suite.client.runtime.removeContainer({ containerId });
    await expect(suite.client.runtime.containerStatus({ containerId })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await suite.client.runtime.stopPodSandbox({ podSandboxId });
    expect((await suite.client.runtime.podSandboxStatus({ podSandboxId })).status?.state).toBe('SANDBOX_NOTREADY');
    await suite.client.runtime.removePodSandbox({ podSandboxId });
    // containerd 1.6 answers NOT_FOUND for a removed sandbox; containerd 2 makes the stop idempotent.
    if (process.env.KUBELET_TS_CONTAINERD === '2') await expect(suite.client.runtime.stopPodSandbox({ podSandboxId })).resolves.toEqual({});
    else await expect(suite.client.runtime.stopPodSandbox({ podSandboxId })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(suite.client.runtime.stopPodSandbox({ podSandboxId }, { ignoreNotFound: true })).resolves.toEqual({});
    await expect(suite.client.runtime.removePodSandbox({ podSandboxId })).resolves.toEqual({});
  });

  it('reports a container that exits by itself with its exit code and reason', async () => {
    const pod = testPod('exit', { hostNetwork: true });
    const podSandboxId = await runTestSandbox(suite.client.runtime, pod, suite.cleanup);
    const containerId = await startContainer(podSandboxId, pod, busybox('quits', ['sh', '-c', 'exit 3']));
    const status = await waitFor('the container to exit', async () => {
      const s = (await suite.client.runtime.containerStatus({ containerId })).status;
      return s?.state === 'CONTAINER_EXITED' ? s : undefined;
    });
    expect(status).toMatchObject({ exitCode: 3, reason: 'Error' });
    const exited = await suite.client.runtime.listContainers({ filter: { podSandboxId, state: { state: 'CONTAINER_EXITED' } } });
    expect(exited.containers.map((c) => c.id)).toEqual([containerId]);
  });

  it('reports a container killed by the cgroup OOM killer as 137 OOMKilled', async () => {
    const pod = testPod('oom', { hostNetwork: true });
    const podSandboxId = await runTestSandbox(suite.client.runtime, pod, suite.cleanup);
    const containerId = await startContainer(
      podSandboxId,
      pod,
      busybox('hog', ['sh', '-c', 'a=$(head -c 200000000 /dev/zero | tr "\\000" x); echo survived'], {
        linux: { resources: { memoryLimitInBytes: 32 * 1024 * 1024 } },
      }),
    );
    const status = await waitFor('the container to be OOM-killed', async () => {
      const s = (await suite.client.runtime.containerStatus({ containerId })).status;
      return s?.state === 'CONTAINER_EXITED' ? s : undefined;
    });
    expect(status).toMatchObject({ exitCode: 137, reason: 'OOMKilled' });
  });

  // scripts/test-runtime.sh runs Debian's containerd 1.6 or containerd 2 (KUBELET_TS_CONTAINERD).
  const containerd2 = process.env.KUBELET_TS_CONTAINERD === '2';

  it(`answers RuntimeConfig and GetContainerEvents as containerd ${containerd2 ? '2 implements them' : '1.6, which predates them: UNIMPLEMENTED'}`, async () => {
    if (!containerd2) {
      await expect(suite.client.runtime.runtimeConfig({})).rejects.toMatchObject({ code: 'UNIMPLEMENTED' });
      const events = async (): Promise<void> => {
        for await (const _ of suite.client.runtime.getContainerEvents({})) void _;
      };
      await expect(events()).rejects.toMatchObject({ code: 'UNIMPLEMENTED' });
      return;
    }
    // containerd 2 reports the cgroup driver its runc runtime is configured with (cgroupfs here)
    // and streams an event for a sandbox that starts.
    expect((await suite.client.runtime.runtimeConfig({})).linux?.cgroupDriver).toBe('CGROUPFS');
    const controller = new AbortController();
    const seen: string[] = [];
    const stream = (async () => {
      for await (const event of suite.client.runtime.getContainerEvents({}, { signal: controller.signal }))
        seen.push(event.containerId ?? '');
    })().catch(() => undefined);
    const podSandboxId = await runTestSandbox(suite.client.runtime, testPod('events'), suite.cleanup);
    await waitFor('an event for the new sandbox', async () => seen.includes(podSandboxId) || undefined);
    controller.abort();
    await stream;
  });
});
