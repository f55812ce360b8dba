import { FakeClock } from '@kubelet-ts/common/testing';
import { CriError, ignoreNotFound, isNotFound, isUnimplemented } from '../errors.js';
import type { ContainerConfig, PodSandboxConfig } from '../gen/messages.js';
import { CONTAINERD_1_6_UNIMPLEMENTED, FakeRuntimeService } from './fake-runtime.js';
import { createFakeCriClient } from './fake-client.js';

const START = Date.UTC(2026, 0, 1);

function sandboxConfig(name = 'web', uid = 'uid-1'): PodSandboxConfig {
  return {
    metadata: { name, uid, namespace: 'default', attempt: 0 },
    hostname: name,
    logDirectory: `/var/log/pods/default_${name}_${uid}`,
    labels: { 'io.kubernetes.pod.uid': uid, app: name },
    annotations: { note: 'kept' },
  };
}

function containerConfig(name = 'app', image = 'busybox'): ContainerConfig {
  return {
    metadata: { name, attempt: 0 },
    image: { image },
    command: ['sleep', '3600'],
    logPath: `${name}/0.log`,
    labels: { 'io.kubernetes.container.name': name },
  };
}

async function runningContainer(fake: FakeRuntimeService, clock: FakeClock): Promise<{ sandboxId: string; containerId: string }> {
  const { podSandboxId } = await fake.runPodSandbox({ config: sandboxConfig() });
  await clock.advance(1000);
  const { containerId } = await fake.createContainer({ podSandboxId, config: containerConfig(), sandboxConfig: sandboxConfig() });
  await clock.advance(1000);
  await fake.startContainer({ containerId });
  return { sandboxId: podSandboxId, containerId };
}

describe('FakeRuntimeService', () => {
  it('walks a container through CREATED → RUNNING → EXITED with ns timestamps from the clock', async () => {
    const clock = new FakeClock(START);
    const fake = new FakeRuntimeService({ clock });
    const { podSandboxId } = await fake.runPodSandbox({ config: sandboxConfig() });
    const sandbox = (await fake.podSandboxStatus({ podSandboxId })).status;
    expect(sandbox?.state).toBe('SANDBOX_READY');
    expect(sandbox?.createdAt).toBe(`${START}000000`);
    expect(sandbox?.network?.ip).toBe('10.88.0.2');
    expect(sandbox?.annotations).toEqual({ note: 'kept' });

    await clock.advance(1000);
    const { containerId } = await fake.createContainer({ podSandboxId, config: containerConfig(), sandboxConfig: sandboxConfig() });
    let status = (await fake.containerStatus({ containerId })).status;
    expect(status).toMatchObject({ state: 'CONTAINER_CREATED', createdAt: `${START + 1000}000000`, startedAt: '0', finishedAt: '0' });
    expect(status?.logPath).toBe('/var/log/pods/default_web_uid-1/app/0.log');

    await clock.advance(1000);
    await fake.startContainer({ containerId });
    status = (await fake.containerStatus({ containerId })).status;
    expect(status).toMatchObject({ state: 'CONTAINER_RUNNING', startedAt: `${START + 2000}000000` });

    await clock.advance(5000);
    fake.exitContainer(containerId, 2);
    status = (await fake.containerStatus({ containerId })).status;
    expect(status).toMatchObject({ state: 'CONTAINER_EXITED', exitCode: 2, reason: 'Error', finishedAt: `${START + 7000}000000` });
  });

  it('reports an OOM kill as exit 137 with reason OOMKilled', async () => {
    const clock = new FakeClock(START);
    const fake = new FakeRuntimeService({ clock });
    const { containerId } = await runningContainer(fake, clock);
    fake.oomKillContainer(containerId);
    expect(fake.getContainer(containerId)).toMatchObject({ state: 'CONTAINER_EXITED', exitCode: 137, reason: 'OOMKilled' });
  });

  it('StopContainer waits the grace period on the clock for a container ignoring SIGTERM, then ends it with 137', async () => {
    const clock = new FakeClock(START);
    const fake = new FakeRuntimeService({ clock });
    const { containerId } = await runningContainer(fake, clock);
    fake.ignoreSigterm(containerId);
    let done = false;
    const stopping = fake.stopContainer({ containerId, timeout: 30 }).then(() => (done = true));
    await clock.advance(29_999);
    expect(done).toBe(false);
    expect(fake.getContainer(containerId)?.state).toBe('CONTAINER_RUNNING');
    await clock.advance(1);
    await stopping;
    expect(fake.getContainer(containerId)).toMatchObject({ state: 'CONTAINER_EXITED', exitCode: 137 });
  });

  it('StopContainer of a container that honours SIGTERM ends it at once with 143, and is idempotent', async () => {
    const clock = new FakeClock(START);
    const fake = new FakeRuntimeService({ clock });
    const { containerId } = await runningContainer(fake, clock);
    await fake.stopContainer({ containerId, timeout: 30 });
    expect(fake.getContainer(containerId)).toMatchObject({ state: 'CONTAINER_EXITED', exitCode: 143, reason: 'Error' });
    await fake.stopContainer({ containerId, timeout: 30 });
    expect(fake.getContainer(containerId)?.exitCode).toBe(143);
  });

  it('StopPodSandbox kills running containers and marks the sandbox NOTREADY; the removes are idempotent', async () => {
    const clock = new FakeClock(START);
    const fake = new FakeRuntimeService({ clock });
    const { sandboxId, containerId } = await runningContainer(fake, clock);
    await fake.stopPodSandbox({ podSandboxId: sandboxId });
    expect(fake.getSandbox(sandboxId)?.state).toBe('SANDBOX_NOTREADY');
    expect(fake.getContainer(containerId)).toMatchObject({ state: 'CONTAINER_EXITED', exitCode: 137 });
    await expect(fake.createContainer({ podSandboxId: sandboxId, config: containerConfig('other') })).rejects.toThrow(/not ready/);

    await fake.removePodSandbox({ podSandboxId: sandboxId });
    expect(fake.containerIds).toEqual([]);
    await expect(fake.removePodSandbox({ podSandboxId: sandboxId })).resolves.toEqual({});
    await expect(fake.removeContainer({ containerId })).resolves.toEqual({});
    const err = await fake.stopPodSandbox({ podSandboxId: sandboxId }).catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
    await expect(fake.stopPodSandbox({ podSandboxId: sandboxId }, { ignoreNotFound: true })).resolves.toEqual({});
    await expect(ignoreNotFound(fake.containerStatus({ containerId }))).resolves.toBeUndefined();
  });

  it('RemoveContainer force-stops a running container, like containerd', async () => {
    const clock = new FakeClock(START);
    const fake = new FakeRuntimeService({ clock });
    const { containerId } = await runningContainer(fake, clock);
    await fake.removeContainer({ containerId });
    expect(fake.getContainer(containerId)).toBeUndefined();
  });

  it('rejects a second start and a duplicate container name', async () => {
    const clock = new FakeClock(START);
    const fake = new FakeRuntimeService({ clock });
    const { sandboxId, containerId } = await runningContainer(fake, clock);
    await expect(fake.startContainer({ containerId })).rejects.toMatchObject({
      code: 'UNKNOWN',
      message: expect.stringContaining('CONTAINER_RUNNING'),
    });
    await expect(fake.createContainer({ podSandboxId: sandboxId, config: containerConfig() })).rejects.toThrow(/reserved/);
    await expect(
      fake.createContainer({ podSandboxId: sandboxId, config: { ...containerConfig(), metadata: { name: 'app', attempt: 1 } } }),
    ).resolves.toHaveProperty('containerId');
  });

  it('filters lists by id prefix, state, sandbox and labels', async () => {
    const clock = new FakeClock(START);
    const fake = new FakeRuntimeService({ clock });
    const a = await fake.runPodSandbox({ config: sandboxConfig('a', 'uid-a') });
    const b = await fake.runPodSandbox({ config: sandboxConfig('b', 'uid-b') });
    const ca = await fake.createContainer({ podSandboxId: a.podSandboxId, config: containerConfig('one') });
    const cb = await fake.createContainer({ podSandboxId: b.podSandboxId, config: containerConfig('two') });
    await fake.startContainer({ containerId: cb.containerId });
    await fake.stopPodSandbox({ podSandboxId: a.podSandboxId });

    const ready = await fake.listPodSandbox({ filter: { state: { state: 'SANDBOX_READY' } } });
    expect(ready.items.map((s) => s.id)).toEqual([b.podSandboxId]);
    const byLabel = await fake.listPodSandbox({ filter: { labelSelector: { app: 'a' } } });
    expect(byLabel.items.map((s) => s.metadata?.name)).toEqual(['a']);
    const byPrefix = await fake.listContainers({ filter: { id: ca.containerId.slice(0, 12) } });
    expect(byPrefix.containers.map((c) => c.id)).toEqual([ca.containerId]);
    const running = await fake.listContainers({ filter: { state: { state: 'CONTAINER_RUNNING' } } });
    expect(running.containers.map((c) => c.id)).toEqual([cb.containerId]);
    const inB = await fake.listContainers({
      filter: { podSandboxId: b.podSandboxId, labelSelector: { 'io.kubernetes.container.name': 'two' } },
    });
    expect(inB.containers).toHaveLength(1);
    expect(inB.containers[0]).toMatchObject({ podSandboxId: b.podSandboxId, state: 'CONTAINER_RUNNING', annotations: {} });
  });

  it('runs ExecSync through the handler and times out on the clock', async () => {
    const clock = new FakeClock(START);
    const fake = new FakeRuntimeService({ clock });
    const { containerId } = await runningContainer(fake, clock);
    fake.setExecHandler((_id, cmd) =>
      cmd[0] === 'hang' ? new Promise(() => undefined) : { exitCode: 1, stdout: `ran ${cmd.join(' ')}`, stderr: 'oops' },
    );
    const result = await fake.execSync({ containerId, cmd: ['cat', '/ready'], timeout: 1 });
    expect(result.exitCode).toBe(1);
    expect(result.stdout.toString()).toBe('ran cat /ready');
    expect(result.stderr).toEqual(Buffer.from('oops'));
    const hanging = fake.execSync({ containerId, cmd: ['hang'], timeout: 2 }).catch((e: unknown) => e);
    await clock.advance(2000);
    expect(await hanging).toMatchObject({ code: 'DEADLINE_EXCEEDED' });
    fake.exitContainer(containerId, 0);
    await expect(fake.execSync({ containerId, cmd: ['true'] })).rejects.toThrow(/CONTAINER_EXITED/);
  });

  it('injects errors per method for a number of calls, and records every call', async () => {
    const fake = new FakeRuntimeService({ clock: new FakeClock(START) });
    fake.injectError('listPodSandbox', 'UNAVAILABLE', { times: 2 });
    await expect(fake.listPodSandbox({})).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      method: 'runtime.v1.RuntimeService/ListPodSandbox',
    });
    await expect(fake.listPodSandbox({})).rejects.toBeInstanceOf(CriError);
    await expect(fake.listPodSandbox({})).resolves.toEqual({ items: [] });
    const custom = new Error('custom');
    fake.injectError('status', custom);
    await expect(fake.status({})).rejects.toMatchObject({ code: 'UNKNOWN', cause: custom });
    expect(fake.methodsCalled).toEqual(['listPodSandbox', 'listPodSandbox', 'listPodSandbox', 'status']);
    expect(fake.callsOf('status')[0]?.request).toEqual({});
  });

  it('delays calls on the clock and turns a delay past timeoutMs into DEADLINE_EXCEEDED', async () => {
    const clock = new FakeClock(START);
    const fake = new FakeRuntimeService({ clock });
    fake.setDelay('status', 5000);
    let settled = false;
    const slow = fake.status({}).then(() => (settled = true));
    await clock.advance(4999);
    expect(settled).toBe(false);
    await clock.advance(1);
    await slow;
    const timedOut = fake.status({}, { timeoutMs: 100 }).catch((e: unknown) => e);
    await clock.advance(100);
    expect(await timedOut).toMatchObject({ code: 'DEADLINE_EXCEEDED' });
  });

  it('mimics containerd 1.6 UNIMPLEMENTED RPCs, streams included', async () => {
    const fake = new FakeRuntimeService({ unimplemented: CONTAINERD_1_6_UNIMPLEMENTED });
    const err = await fake.runtimeConfig({}).catch((e: unknown) => e);
    expect(isUnimplemented(err)).toBe(true);
    const consume = async (): Promise<void> => {
      for await (const _ of fake.getContainerEvents({})) void _;
    };
    await expect(consume()).rejects.toMatchObject({ code: 'UNIMPLEMENTED' });
    await expect(fake.status({})).resolves.toHaveProperty('status');
  });

  it('streams container events until the signal aborts', async () => {
    const clock = new FakeClock(START);
    const fake = new FakeRuntimeService({ clock });
    const controller = new AbortController();
    const seen: string[] = [];
    const consuming = (async () => {
      for await (const event of fake.getContainerEvents({}, { signal: controller.signal })) {
        seen.push(`${event.containerEventType}:${event.containersStatuses[0]?.state ?? '-'}`);
        if (seen.length === 3) controller.abort();
      }
    })();
    await runningContainer(fake, clock);
    const [id] = fake.containerIds;
    fake.exitContainer(id ?? '', 0);
    await consuming;
    expect(seen).toEqual([
      'CONTAINER_CREATED_EVENT:CONTAINER_CREATED',
      'CONTAINER_STARTED_EVENT:CONTAINER_RUNNING',
      'CONTAINER_STOPPED_EVENT:CONTAINER_EXITED',
    ]);
  });

  it('stores resources from UpdateContainerResources and reports them in the status', async () => {
    const clock = new FakeClock(START);
    const fake = new FakeRuntimeService({ clock });
    const { containerId } = await runningContainer(fake, clock);
    await fake.updateContainerResources({
      containerId,
      linux: { memoryLimitInBytes: 64 * 1024 * 1024, cpuQuota: 50_000, cpuPeriod: 100_000 },
    });
    expect(fake.getContainer(containerId)?.resources?.linux).toMatchObject({
      memoryLimitInBytes: '67108864',
      cpuQuota: '50000',
      cpuPeriod: '100000',
    });
    const stats = await fake.listContainerStats({});
    expect(stats.stats.map((s) => s.attributes?.id)).toEqual([containerId]);
  });

  it('rejects CreateContainer for an image the linked image service does not have', async () => {
    const cri = createFakeCriClient({ clock: new FakeClock(START) });
    const { podSandboxId } = await cri.runtime.runPodSandbox({ config: sandboxConfig() });
    await expect(cri.runtime.createContainer({ podSandboxId, config: containerConfig('app', 'nginx') })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const { imageRef } = await cri.image.pullImage({ image: { image: 'nginx' } });
    const { containerId } = await cri.runtime.createContainer({ podSandboxId, config: containerConfig('app', 'nginx') });
    expect(cri.runtime.getContainer(containerId)).toMatchObject({ imageRef, imageId: imageRef });
  });
});
