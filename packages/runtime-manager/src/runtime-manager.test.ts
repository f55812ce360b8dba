import { existsSync } from 'node:fs';
import { access, mkdtemp, mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Container, Pod } from '@kubelet-ts/api';
import { createBackoff } from '@kubelet-ts/common';
import type { Backoff } from '@kubelet-ts/common';
import { hashContainer } from '@kubelet-ts/container-runtime';
import type { ContainerRuntime, RunContainerOptions, RuntimeHelper } from '@kubelet-ts/container-runtime';
import { FakeClock, RecordingLogger, flushMicrotasks } from '@kubelet-ts/common/testing';
import type { ContainerConfig, PodSandboxConfig } from '@kubelet-ts/cri-client';
import { FakeImageService, FakeRuntimeService } from '@kubelet-ts/cri-client/testing';
import { GC_REMOVAL_CONCURRENCY } from './internal/gc.js';
import { createRuntimeManager } from './runtime-manager.js';
import type { RuntimeManagerOptions } from './runtime-manager.js';

let tmp: string;
beforeEach(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'rm-unit-'));
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

class TestHelper implements RuntimeHelper {
  fail: Error | undefined;
  extraMounts: RunContainerOptions['mounts'] = [];
  seenPodIPs: string[][] = [];
  async generateRunContainerOptions(pod: Pod, container: Container, podIPs: string[]): Promise<RunContainerOptions> {
    this.seenPodIPs.push(podIPs);
    if (this.fail !== undefined) throw this.fail;
    return {
      env: (container.env ?? []).filter((e) => e.value !== undefined).map((e) => ({ name: e.name, value: e.value ?? '' })),
      mounts: this.extraMounts,
      hostname: pod.metadata.name,
    };
  }
  getPodCgroupParent(pod: Pod): string | undefined {
    return `/kubepods/pod${pod.metadata.uid}`;
  }
  dnsCalls = 0;
  async getPodDNS(): Promise<{ servers: string[]; searches: string[]; options: string[] }> {
    this.dnsCalls++;
    return { servers: ['10.0.0.10'], searches: ['svc.cluster.local'], options: ['ndots:5'] };
  }
  getPodDir(uid: string): string {
    return path.join(tmp, 'pods', uid);
  }
}

interface Env {
  clock: FakeClock;
  images: FakeImageService;
  runtime: FakeRuntimeService;
  helper: TestHelper;
  manager: ContainerRuntime;
  backoff: Backoff;
  logsDir: string;
}

function setup(extra: Partial<RuntimeManagerOptions> = {}): Env {
  const clock = new FakeClock();
  const images = new FakeImageService({ clock, images: [{ ref: 'busybox:1.36' }, { ref: 'web:1' }] });
  const runtime = new FakeRuntimeService({ clock, imageService: images });
  const helper = new TestHelper();
  const logsDir = path.join(tmp, 'logs');
  const manager = createRuntimeManager({
    runtimeService: runtime,
    imageService: images,
    helper,
    podLogsDir: logsDir,
    clock,
    memoryCapacityBytes: 4 * 1024 ** 3,
    ...extra,
  });
  const backoff = createBackoff({ initialMs: 10_000, maxMs: 300_000, clock });
  return { clock, images, runtime, helper, manager, backoff, logsDir };
}

const app: Container = {
  name: 'app',
  image: 'busybox:1.36',
  command: ['sh', '-c', 'echo $(GREETING) $$(HOME) $(MISSING)'],
  args: ['$(GREETING)'],
  env: [{ name: 'GREETING', value: 'hi' }],
  terminationMessagePath: '/dev/termination-log',
  terminationMessagePolicy: 'File',
  resources: { requests: { cpu: '250m', memory: '64Mi' }, limits: { cpu: '500m', memory: '128Mi' } },
  securityContext: { capabilities: { add: ['NET_ADMIN'], drop: ['ALL'] }, allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsUser: 1000 },
  ports: [{ containerPort: 8080, hostPort: 18080, protocol: 'TCP' }],
};
const side: Container = { name: 'side', image: 'web:1' };

function makePod(spec: Partial<Pod['spec']> = {}, uid = 'uid-1'): Pod {
  return {
    metadata: { name: 'web', namespace: 'prod', uid, labels: { app: 'web' }, annotations: { team: 'a' } },
    spec: { containers: [app, side], terminationGracePeriodSeconds: 30, ...spec },
  };
}

async function sync(env: Env, pod: Pod) {
  const status = await env.manager.getPodStatus(pod.metadata.uid, pod.metadata.name, pod.metadata.namespace);
  return env.manager.syncPod(pod, status, env.backoff);
}

function created(env: Env, name: string): ContainerConfig[] {
  return env.runtime
    .callsOf('createContainer')
    .map((c) => (c.request as { config: ContainerConfig }).config)
    .filter((c) => c.metadata?.name === name);
}

function summary(results: Array<{ action: string; target: string; reason?: string }>): string[] {
  return results.map((r) => `${r.action}:${r.target}${r.reason === undefined ? '' : `:${r.reason}`}`);
}

describe('syncPod: a fresh pod', () => {
  it('creates the sandbox with the upstream config and starts every container', async () => {
    const env = setup({ runtimeHandler: undefined });
    const pod = makePod({ securityContext: { runAsUser: 1, sysctls: [{ name: 'net/ipv4/ip_forward', value: '1' }] } });
    const result = await sync(env, pod);
    expect(result.error).toBeUndefined();
    expect(summary(result.results)).toEqual(['KillPodSandbox:uid-1', 'CreatePodSandbox:web_prod', 'StartContainer:app', 'StartContainer:side']);

    const sandboxConfig = (env.runtime.callsOf('runPodSandbox')[0]?.request as { config: PodSandboxConfig }).config;
    expect(sandboxConfig).toMatchObject({
      metadata: { name: 'web', namespace: 'prod', uid: 'uid-1', attempt: 0 },
      hostname: 'web',
      logDirectory: path.join(env.logsDir, 'prod_web_uid-1'),
      dnsConfig: { servers: ['10.0.0.10'], searches: ['svc.cluster.local'], options: ['ndots:5'] },
      portMappings: [{ protocol: 'TCP', containerPort: 8080, hostPort: 18080, hostIp: '' }],
      labels: { app: 'web', 'io.kubernetes.pod.name': 'web', 'io.kubernetes.pod.namespace': 'prod', 'io.kubernetes.pod.uid': 'uid-1' },
      annotations: { team: 'a' },
      linux: {
        cgroupParent: '/kubepods/poduid-1',
        sysctls: { 'net.ipv4.ip_forward': '1' },
        securityContext: { namespaceOptions: { network: 'POD', ipc: 'POD', pid: 'CONTAINER' }, privileged: false, runAsUser: { value: 1 } },
      },
    });
    await expect(stat(path.join(env.logsDir, 'prod_web_uid-1', 'app'))).resolves.toBeTruthy();

    const [config] = created(env, 'app');
    expect(config).toMatchObject({
      metadata: { name: 'app', attempt: 0 },
      image: { userSpecifiedImage: 'busybox:1.36' },
      command: ['sh', '-c', 'echo hi $(HOME) $(MISSING)'],
      args: ['hi'],
      envs: [{ key: 'GREETING', value: 'hi' }],
      logPath: 'app/0.log',
      labels: { 'io.kubernetes.container.name': 'app', 'io.kubernetes.pod.uid': 'uid-1' },
      annotations: {
        'io.kubernetes.container.hash': hashContainer(app),
        'io.kubernetes.container.restartCount': '0',
        'io.kubernetes.pod.terminationGracePeriod': '30',
        'io.kubernetes.container.terminationMessagePath': '/dev/termination-log',
      },
      linux: {
        // Burstable: shares from the request, quota from the limit, memory limit, OOM score from the request
        resources: { cpuShares: 256, cpuQuota: 50000, cpuPeriod: 100000, memoryLimitInBytes: 128 * 1024 ** 2, oomScoreAdj: 985 },
        securityContext: {
          capabilities: { addCapabilities: ['NET_ADMIN'], dropCapabilities: ['ALL'] },
          noNewPrivs: true,
          readonlyRootfs: true,
          runAsUser: { value: 1000 },
          namespaceOptions: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' },
        },
      },
    });
    expect(config?.image?.image).toMatch(/^sha256:/);
    // the termination-message file exists on the host and is mounted at terminationMessagePath
    const mount = config?.mounts?.find((m) => m.containerPath === '/dev/termination-log');
    expect(mount?.hostPath).toContain(path.join(tmp, 'pods', 'uid-1', 'containers', 'app'));
    expect(((await stat(mount?.hostPath ?? '')).mode & 0o777).toString(8)).toBe('666');

    const status = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    expect(status.ips).toHaveLength(1);
    // the new sandbox's IP reaches the run options (downward API, /etc/hosts) of both containers
    expect(env.helper.seenPodIPs).toEqual([status.ips, status.ips]);
    expect(status.sandboxes).toMatchObject([{ state: 'ready', attempt: 0, hostNetwork: false }]);
    expect(status.containers.map((c) => [c.name, c.state, c.restartCount, c.hash]).sort()).toEqual([
      ['app', 'running', 0, hashContainer(app)],
      ['side', 'running', 0, hashContainer(side)],
    ]);
    // converged: nothing more to do
    const again = await env.manager.syncPod(pod, status, env.backoff);
    expect(again.results).toEqual([]);
  });

  it('best-effort and guaranteed resources follow the upstream formulas', async () => {
    const env = setup();
    const guaranteed: Container = { name: 'g', image: 'busybox:1.36', resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } } };
    await sync(env, makePod({ containers: [guaranteed] }, 'uid-g'));
    expect(created(env, 'g')[0]?.linux?.resources).toMatchObject({ cpuShares: 1024, cpuQuota: 100000, oomScoreAdj: -997 });
    const best: Container = { name: 'b', image: 'busybox:1.36' };
    await sync(env, makePod({ containers: [best] }, 'uid-b'));
    expect(created(env, 'b')[0]?.linux?.resources).toMatchObject({ cpuShares: 2, cpuQuota: 0, memoryLimitInBytes: 0, oomScoreAdj: 1000 });
    const tiny: Container = { name: 't', image: 'busybox:1.36', resources: { limits: { cpu: '1m' }, requests: { cpu: '1m' } } };
    await sync(env, makePod({ containers: [tiny] }, 'uid-t'));
    expect(created(env, 't')[0]?.linux?.resources).toMatchObject({ cpuShares: 2, cpuQuota: 1000 });
  });

  it('host network: NODE namespace, empty hostname; shareProcessNamespace: POD pid; privileged container makes a privileged sandbox', async () => {
    const env = setup();
    const pod = makePod({
      hostNetwork: true,
      shareProcessNamespace: true,
      containers: [{ name: 'p', image: 'busybox:1.36', securityContext: { privileged: true } }],
    });
    const result = await sync(env, pod);
    expect(result.error).toBeUndefined();
    const sandboxConfig = (env.runtime.callsOf('runPodSandbox')[0]?.request as { config: PodSandboxConfig }).config;
    expect(sandboxConfig.hostname).toBe('');
    expect(sandboxConfig.linux?.securityContext).toMatchObject({ namespaceOptions: { network: 'NODE', pid: 'POD' }, privileged: true });
    const status = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    expect(status.sandboxes[0]?.hostNetwork).toBe(true);
    expect((await env.manager.syncPod(pod, status, env.backoff)).results).toEqual([]);
  });
});

describe('syncPod: restarts', () => {
  it('restarts an exited container with restartCount + 1, then CrashLoopBackOff until the back-off passes', async () => {
    const env = setup();
    const pod = makePod();
    await sync(env, pod);
    const first = (await env.manager.getPodStatus('uid-1', 'web', 'prod')).containers.find((c) => c.name === 'app');
    env.runtime.exitContainer(first?.id ?? '', 1);
    await env.clock.advance(1000);

    let result = await sync(env, pod);
    expect(summary(result.results)).toEqual(['StartContainer:app']);
    expect(created(env, 'app').map((c) => [c.metadata?.attempt, c.logPath])).toEqual([
      [0, 'app/0.log'],
      [1, 'app/1.log'],
    ]);
    let status = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    const second = status.containers.find((c) => c.name === 'app');
    expect(second).toMatchObject({ state: 'running', restartCount: 1 });

    // exits again right away: in back-off (10 s)
    env.runtime.exitContainer(second?.id ?? '', 2);
    await env.clock.advance(1000);
    result = await sync(env, pod);
    expect(result.results).toEqual([
      {
        action: 'StartContainer',
        target: 'app',
        reason: 'CrashLoopBackOff',
        message: 'back-off 10s restarting failed container=app pod=web_prod(uid-1)',
        retryAfterMs: 9000,
      },
    ]);
    expect(result.error).toMatchObject({ code: 'CrashLoopBackOff' });
    // The caller learns exactly when the back-off ends (it exited 1 s ago, the back-off is 10 s).
    expect(result.retryAfterMs).toBe(9000);
    await env.clock.advance(9000);
    result = await sync(env, pod);
    expect(summary(result.results)).toEqual(['StartContainer:app']);
    status = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    expect(status.containers.find((c) => c.name === 'app')).toMatchObject({ state: 'running', restartCount: 2 });

    // the next delay doubles: 20 s
    env.runtime.exitContainer(status.containers.find((c) => c.name === 'app')?.id ?? '', 1);
    result = await sync(env, pod);
    expect(result.results[0]?.message).toBe('back-off 20s restarting failed container=app pod=web_prod(uid-1)');
  });

  it('a changed spec kills the running container and starts a new one', async () => {
    const env = setup();
    const pod = makePod();
    await sync(env, pod);
    const changed = makePod({ containers: [{ ...app, command: ['sleep', '1000'] }, side] });
    const result = await sync(env, changed);
    expect(summary(result.results)).toEqual(['KillContainer:app', 'StartContainer:app']);
    expect(env.runtime.callsOf('stopContainer')).toHaveLength(1);
    const status = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    const running = status.containers.filter((c) => c.state === 'running').map((c) => [c.name, c.restartCount, c.hash]);
    expect(running.sort()).toEqual([
      ['app', 1, hashContainer({ ...app, command: ['sleep', '1000'] })],
      ['side', 0, hashContainer(side)],
    ]);
  });

  it('a dead sandbox is replaced (attempt + 1) and its containers restarted', async () => {
    const env = setup();
    const pod = makePod();
    await sync(env, pod);
    const status = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    await env.runtime.stopPodSandbox({ podSandboxId: status.sandboxes[0]?.id ?? '' });
    await env.clock.advance(1000);
    const result = await sync(env, pod);
    expect(summary(result.results)).toContain('CreatePodSandbox:web_prod');
    const after = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    expect(after.sandboxes.map((s) => [s.state, s.attempt])).toEqual([
      ['ready', 1],
      ['notready', 0],
    ]);
    expect(after.containers.filter((c) => c.state === 'running').map((c) => c.restartCount)).toEqual([1, 1]);
  });
});

describe('syncPod: init containers and sidecars', () => {
  it('runs init containers one at a time before the regular containers', async () => {
    const env = setup();
    const pod = makePod({ initContainers: [{ name: 'init1', image: 'busybox:1.36' }, { name: 'init2', image: 'busybox:1.36' }] });
    let result = await sync(env, pod);
    expect(summary(result.results)).toEqual(['KillPodSandbox:uid-1', 'CreatePodSandbox:web_prod', 'InitContainer:init1']);
    const status = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    env.runtime.exitContainer(status.containers[0]?.id ?? '', 0);
    result = await sync(env, pod);
    expect(summary(result.results)).toEqual(['InitContainer:init2']);
    const s2 = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    env.runtime.exitContainer(s2.containers.find((c) => c.name === 'init2')?.id ?? '', 0);
    result = await sync(env, pod);
    expect(summary(result.results)).toEqual(['StartContainer:app', 'StartContainer:side']);
  });

  it('a failing init container stops the sync; with restartPolicy Never the pod is killed', async () => {
    const env = setup();
    const pod = makePod({ restartPolicy: 'Never', initContainers: [{ name: 'init1', image: 'busybox:1.36' }] });
    await sync(env, pod);
    const status = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    env.runtime.exitContainer(status.containers[0]?.id ?? '', 3);
    const result = await sync(env, pod);
    expect(summary(result.results)).toEqual(['KillPodSandbox:uid-1']);
    const after = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    expect(after.sandboxes[0]?.state).toBe('notready');
  });

  it('starts a sidecar first, then the next init container, then regular containers, and restarts the sidecar when it exits', async () => {
    const env = setup();
    const sidecar: Container = { name: 'proxy', image: 'web:1', restartPolicy: 'Always' };
    const pod = makePod({ initContainers: [sidecar, { name: 'init', image: 'busybox:1.36' }] });
    expect(summary((await sync(env, pod)).results)).toEqual(['KillPodSandbox:uid-1', 'CreatePodSandbox:web_prod', 'StartContainer:proxy']);
    expect(summary((await sync(env, pod)).results)).toEqual(['InitContainer:init']);
    const s = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    env.runtime.exitContainer(s.containers.find((c) => c.name === 'init')?.id ?? '', 0);
    expect(summary((await sync(env, pod)).results)).toEqual(['StartContainer:app', 'StartContainer:side']);
    const s2 = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    env.runtime.exitContainer(s2.containers.find((c) => c.name === 'proxy')?.id ?? '', 1);
    await env.clock.advance(1000);
    expect(summary((await sync(env, pod)).results)).toEqual(['StartContainer:proxy']);
    const s3 = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    expect(s3.containers.find((c) => c.name === 'proxy')).toMatchObject({ state: 'running', restartCount: 1 });
  });
});

describe('syncPod: failures', () => {
  it('reports each container failure with its reason and still starts the others', async () => {
    const env = setup();
    const pod = makePod({
      containers: [
        { name: 'missing', image: 'nothere:1', imagePullPolicy: 'Never' },
        { name: 'invalid', image: 'NOT VALID' },
        { name: 'ok', image: 'busybox:1.36' },
      ],
    });
    const result = await sync(env, pod);
    expect(result.results.slice(2)).toEqual([
      { action: 'StartContainer', target: 'missing', reason: 'ErrImageNeverPull', message: 'Container image "nothere:1" is not present with pull policy of Never' },
      expect.objectContaining({ action: 'StartContainer', target: 'invalid', reason: 'InvalidImageName' }),
      { action: 'StartContainer', target: 'ok' },
    ]);
    expect(result.error).toMatchObject({ code: 'ErrImageNeverPull' });
    const status = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    expect(status.containers.map((c) => c.name)).toEqual(['ok']);
  });

  it('CreateContainerConfigError, CreateContainerError, RunContainerError and ErrImagePull', async () => {
    const env = setup();
    env.images.injectError('pullImage', new Error('registry down'));
    const pod = makePod({ containers: [{ name: 'pull', image: 'remote:1', imagePullPolicy: 'Always' }] });
    let result = await sync(env, pod);
    expect(result.results.at(-1)).toMatchObject({ reason: 'ErrImagePull', message: expect.stringContaining('Failed to pull image "remote:1": ') });

    const env2 = setup();
    env2.helper.fail = new Error('configmap "cfg" not found');
    result = await sync(env2, makePod({ containers: [app] }));
    expect(result.results.at(-1)).toEqual({ action: 'StartContainer', target: 'app', reason: 'CreateContainerConfigError', message: 'configmap "cfg" not found' });

    const env3 = setup();
    env3.runtime.injectError('createContainer', 'UNKNOWN');
    result = await sync(env3, makePod({ containers: [app] }));
    expect(result.results.at(-1)).toMatchObject({ target: 'app', reason: 'CreateContainerError' });

    const env4 = setup();
    env4.runtime.injectError('startContainer', 'UNKNOWN');
    result = await sync(env4, makePod({ containers: [app] }));
    expect(result.results.at(-1)).toMatchObject({ target: 'app', reason: 'RunContainerError' });
  });

  it('runAsNonRoot is verified against the image user (CreateContainerConfigError), and the image UID is passed on', async () => {
    const env = setup();
    env.images.addImage({ ref: 'numeric:1', uid: 1000 });
    env.images.addImage({ ref: 'named:1', username: 'nobody' });
    const nonRoot = { runAsNonRoot: true };
    const pod = makePod({
      containers: [
        { name: 'root-image', image: 'busybox:1.36', securityContext: nonRoot },
        { name: 'root-user', image: 'numeric:1', securityContext: { ...nonRoot, runAsUser: 0 } },
        { name: 'named', image: 'named:1', securityContext: nonRoot },
        { name: 'ok', image: 'numeric:1', securityContext: nonRoot },
      ],
    });
    const result = await sync(env, pod);
    expect(result.results.slice(2)).toEqual([
      {
        action: 'StartContainer',
        target: 'root-image',
        reason: 'CreateContainerConfigError',
        message: 'container has runAsNonRoot and image will run as root (pod: "web_prod(uid-1)", container: root-image)',
      },
      {
        action: 'StartContainer',
        target: 'root-user',
        reason: 'CreateContainerConfigError',
        message: `container's runAsUser breaks non-root policy (pod: "web_prod(uid-1)", container: root-user)`,
      },
      {
        action: 'StartContainer',
        target: 'named',
        reason: 'CreateContainerConfigError',
        message: 'container has runAsNonRoot and image has non-numeric user (nobody), cannot verify user is non-root (pod: "web_prod(uid-1)", container: named)',
      },
      { action: 'StartContainer', target: 'ok' },
    ]);
    expect(created(env, 'ok')[0]?.linux?.securityContext?.runAsUser).toEqual({ value: 1000 });
  });

  it('a failing postStart hook kills the container and reports PostStartHookError with the upstream message', async () => {
    const env = setup();
    env.runtime.setExecHandler((_id, cmd) => (cmd.includes('fail') ? { exitCode: 1, stderr: 'boom' } : { exitCode: 0 }));
    const hooked: Container = { name: 'hooked', image: 'busybox:1.36', lifecycle: { postStart: { exec: { command: ['sh', '-c', 'fail'] } } } };
    const pod = makePod({ containers: [hooked] });
    const result = await sync(env, pod);
    expect(result.results.at(-1)).toEqual({
      action: 'StartContainer',
      target: 'hooked',
      reason: 'PostStartHookError',
      message:
        'Exec lifecycle hook ([sh -c fail]) for Container "hooked" in Pod "web_prod(uid-1)" failed - error: command \'sh -c fail\' exited with 1: boom, message: "boom"',
    });
    const status = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    expect(status.containers[0]?.state).toBe('exited');
    expect(env.runtime.callsOf('execSync')).toHaveLength(1);
  });

  it('a cancelled sync starts nothing more and reports the abort', async () => {
    const env = setup();
    const controller = new AbortController();
    controller.abort(new Error('pod worker cancelled'));
    const pod = makePod();
    const status = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    const result = await env.manager.syncPod(pod, status, env.backoff, controller.signal);
    expect(env.runtime.callsOf('createContainer')).toHaveLength(0);
    expect(result.error?.message).toBe('pod worker cancelled');
  });

  it('a sandbox that cannot be created is reported as CreatePodSandboxError and nothing else runs', async () => {
    const env = setup();
    env.runtime.injectError('runPodSandbox', 'UNKNOWN');
    const result = await sync(env, makePod());
    expect(summary(result.results)).toEqual(['KillPodSandbox:uid-1', 'CreatePodSandbox:web_prod:CreatePodSandboxError']);
    expect(result.results[1]?.message).toMatch(/^Failed to create sandbox for pod "web_prod\(uid-1\)": /);
    expect(env.runtime.callsOf('createContainer')).toHaveLength(0);
  });
});

describe('killPod', () => {
  async function running(env: Env, pod: Pod) {
    await sync(env, pod);
    const pods = await env.manager.getPods(false);
    const found = pods.find((p) => p.uid === pod.metadata.uid);
    if (found === undefined) throw new Error('pod not running');
    return found;
  }
  function stopTimeouts(env: Env): Record<string, string> {
    const out: Record<string, string> = {};
    for (const call of env.runtime.callsOf('stopContainer')) {
      const req = call.request as { containerId: string; timeout: number };
      out[req.containerId] = String(req.timeout);
    }
    return out;
  }

  it('runs the preStop hook, then stops every container with the pod grace period and stops the sandbox', async () => {
    const env = setup();
    const execs: string[][] = [];
    env.runtime.setExecHandler((_id, cmd) => {
      execs.push(cmd);
      return { exitCode: 0 };
    });
    const pod = makePod({ containers: [{ ...app, lifecycle: { preStop: { exec: { command: ['echo', 'bye'] } } } }, side] });
    const r = await running(env, pod);
    const result = await env.manager.killPod(pod, r);
    expect(result.error).toBeUndefined();
    expect(summary(result.results)).toEqual(['KillContainer:app', 'KillContainer:side', 'KillPodSandbox:uid-1']);
    expect(execs).toEqual([['echo', 'bye']]);
    expect(Object.values(stopTimeouts(env))).toEqual(['30', '30']);
    const methods = env.runtime.methodsCalled;
    expect(methods.lastIndexOf('execSync')).toBeLessThan(methods.indexOf('stopContainer'));
    expect(env.runtime.callsOf('stopPodSandbox')).toHaveLength(1);
    expect(await env.manager.getPods(false)).toEqual([]);
  });

  it('stops regular containers first, then sidecars in reverse order within what is left of the grace period', async () => {
    const env = setup();
    const pod = makePod({
      terminationGracePeriodSeconds: 10,
      initContainers: [
        { name: 's1', image: 'web:1', restartPolicy: 'Always' },
        { name: 's2', image: 'web:1', restartPolicy: 'Always' },
      ],
      containers: [side],
    });
    await sync(env, pod);
    await sync(env, pod);
    await sync(env, pod);
    const r = await running(env, pod);
    expect(r.containers.map((c) => c.name).sort()).toEqual(['s1', 's2', 'side']);
    const byId = new Map(r.containers.map((c) => [c.id, c.name]));
    env.runtime.ignoreSigterm(r.containers.find((c) => c.name === 'side')?.id ?? '');
    const killing = env.manager.killPod(pod, r);
    await flushMicrotasks();
    await env.clock.advance(10_000); // the regular container uses the whole grace period
    const result = await killing;
    expect(result.error).toBeUndefined();
    const stops = env.runtime.callsOf('stopContainer').map((c) => {
      const req = c.request as { containerId: string; timeout: number };
      return [byId.get(req.containerId), req.timeout];
    });
    expect(stops).toEqual([
      ['side', 10],
      ['s2', 2],
      ['s1', 2],
    ]);
  });

  it('grace period: deletionGracePeriodSeconds wins over the spec; the override wins over both; never below 2 s', async () => {
    const env = setup();
    const pod = makePod({ containers: [side] });
    pod.metadata.deletionGracePeriodSeconds = 5;
    const r = await running(env, pod);
    await env.manager.killPod(pod, r);
    expect(Object.values(stopTimeouts(env))).toEqual(['5']);

    const env2 = setup();
    const pod2 = makePod({ containers: [side] });
    await env2.manager.killPod(pod2, await running(env2, pod2), 0);
    expect(Object.values(stopTimeouts(env2))).toEqual(['2']);

    const env3 = setup();
    const pod3 = makePod({ containers: [side], terminationGracePeriodSeconds: 1 });
    await env3.manager.killPod(pod3, await running(env3, pod3));
    expect(Object.values(stopTimeouts(env3))).toEqual(['2']);
  });

  it('a preStop hook that outlasts the grace period is abandoned; StopContainer gets the minimum', async () => {
    const env = setup();
    env.runtime.setExecHandler(async () => {
      await env.clock.sleep(60_000);
      return { exitCode: 0 };
    });
    const pod = makePod({ terminationGracePeriodSeconds: 3, containers: [{ ...side, lifecycle: { preStop: { exec: { command: ['sleep', '60'] } } } }] });
    const r = await running(env, pod);
    const killing = env.manager.killPod(pod, r);
    await flushMicrotasks();
    expect(env.runtime.callsOf('stopContainer')).toHaveLength(0);
    await env.clock.advance(3000);
    await killing;
    expect(Object.values(stopTimeouts(env))).toEqual(['2']);
  });

  it('without the pod spec, the grace period and preStop hook come from the container annotations', async () => {
    const env = setup();
    const execs: string[][] = [];
    env.runtime.setExecHandler((_id, cmd) => {
      execs.push(cmd);
      return {};
    });
    const pod = makePod({ terminationGracePeriodSeconds: 45, containers: [{ ...side, lifecycle: { preStop: { exec: { command: ['cleanup'] } } } }] });
    const r = await running(env, pod);
    const result = await env.manager.killPod(undefined, r);
    expect(result.error).toBeUndefined();
    expect(execs).toEqual([['cleanup']]);
    expect(Object.values(stopTimeouts(env))).toEqual(['45']);
  });

  it('containers and sandboxes already gone (NOT_FOUND) count as stopped', async () => {
    const env = setup();
    const pod = makePod({ containers: [side] });
    const r = await running(env, pod);
    env.runtime.injectError('stopContainer', 'NOT_FOUND');
    env.runtime.injectError('stopPodSandbox', 'NOT_FOUND');
    const result = await env.manager.killPod(pod, r);
    expect(result.error).toBeUndefined();
    expect(result.results.every((x) => x.reason === undefined)).toBe(true);
  });

  it('a failing StopContainer is reported as KillContainerError', async () => {
    const env = setup();
    const pod = makePod({ containers: [side] });
    const r = await running(env, pod);
    env.runtime.injectError('stopContainer', 'DEADLINE_EXCEEDED');
    const result = await env.manager.killPod(pod, r);
    expect(result.results[0]).toMatchObject({ action: 'KillContainer', target: 'side', reason: 'KillContainerError' });
    expect(result.error).toMatchObject({ code: 'KillContainerError' });
  });
});

describe('getPodStatus / getPods', () => {
  it('a fresh manager reads back the same IDs, restart counts and hashes; termination messages come from the file or the log', async () => {
    const env = setup();
    const fallback: Container = { name: 'fb', image: 'busybox:1.36', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'FallbackToLogsOnError' };
    const pod = makePod({ containers: [app, fallback] });
    await sync(env, pod);
    const before = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    const appStatus = before.containers.find((c) => c.name === 'app');
    const fbStatus = before.containers.find((c) => c.name === 'fb');

    // app writes its termination message; fb writes only to its log (CRI format)
    const appMount = created(env, 'app')[0]?.mounts?.find((m) => m.containerPath === '/dev/termination-log');
    await writeFile(appMount?.hostPath ?? '', 'all done');
    const fbLog = path.join(env.logsDir, 'prod_web_uid-1', 'fb', '0.log');
    await writeFile(
      fbLog,
      ['2026-01-01T00:00:00.000000000Z stdout F line one', '2026-01-01T00:00:00.100000000Z stderr P part ', '2026-01-01T00:00:00.200000000Z stderr F two', ''].join('\n'),
    );
    env.runtime.exitContainer(appStatus?.id ?? '', 0);
    env.runtime.exitContainer(fbStatus?.id ?? '', 2);

    const fresh = createRuntimeManager({ runtimeService: env.runtime, imageService: env.images, helper: env.helper, podLogsDir: env.logsDir, clock: env.clock });
    const after = await fresh.getPodStatus('uid-1', 'web', 'prod');
    expect(after.sandboxes.map((s) => s.id)).toEqual(before.sandboxes.map((s) => s.id));
    expect(after.ips).toEqual(before.ips);
    expect(after.containers.find((c) => c.name === 'app')).toMatchObject({
      id: appStatus?.id,
      state: 'exited',
      exitCode: 0,
      restartCount: 0,
      hash: hashContainer(app),
      reason: 'Completed',
      message: 'all done',
      image: 'busybox:1.36',
    });
    expect(after.containers.find((c) => c.name === 'fb')).toMatchObject({ exitCode: 2, reason: 'Error', message: 'line one\npart two\n' });
  });

  it('getPods groups by the pod UID label, filters to running when asked, and ignores foreign sandboxes', async () => {
    const env = setup();
    await sync(env, makePod({ containers: [side] }, 'uid-a'));
    await sync(env, makePod({ containers: [side] }, 'uid-b'));
    // a sandbox someone else made, without our labels
    await env.runtime.runPodSandbox({ config: { metadata: { name: 'x', namespace: 'y', uid: 'z', attempt: 0 }, labels: {} } });
    const all = await env.manager.getPods(true);
    expect(all.map((p) => p.uid).sort()).toEqual(['uid-a', 'uid-b']);
    const a = all.find((p) => p.uid === 'uid-a');
    expect(a).toMatchObject({ name: 'web', namespace: 'prod', sandboxes: [{ state: 'ready' }], containers: [{ name: 'side', state: 'running', hash: hashContainer(side) }] });
    expect(a?.containers[0]?.sandboxId).toBe(a?.sandboxes[0]?.id);

    const st = await env.manager.getPodStatus('uid-a', 'web', 'prod');
    env.runtime.exitContainer(st.containers[0]?.id ?? '', 0);
    const runningOnly = await env.manager.getPods(false);
    expect(runningOnly.find((p) => p.uid === 'uid-a')?.containers).toEqual([]);
  });

  it('status maps CRI conditions', async () => {
    const env = setup();
    env.runtime.setCondition('NetworkReady', false, 'NetworkPluginNotReady', 'cni config uninitialized');
    const conditions = await env.manager.status();
    expect(conditions).toEqual(
      expect.arrayContaining([
        { type: 'RuntimeReady', status: true, reason: '', message: '' },
        { type: 'NetworkReady', status: false, reason: 'NetworkPluginNotReady', message: 'cni config uninitialized' },
      ]),
    );
  });
});

describe('garbageCollect', () => {
  const policy = { minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 };

  async function crashLoop(env: Env, pod: Pod, times: number): Promise<void> {
    await sync(env, pod);
    for (let i = 0; i < times; i++) {
      const st = await env.manager.getPodStatus(pod.metadata.uid, pod.metadata.name, pod.metadata.namespace);
      const c = st.containers.find((x) => x.state === 'running');
      env.runtime.exitContainer(c?.id ?? '', 1);
      await env.clock.advance(400_000); // past any back-off
      await sync(env, pod);
    }
  }

  it('keeps the newest dead container per (pod, container) and removes older ones with their logs', async () => {
    const env = setup();
    const pod = makePod({ containers: [side] });
    await crashLoop(env, pod, 3); // restart counts 0,1,2 dead; 3 running
    for (let i = 0; i <= 3; i++) {
      const dir = path.join(env.logsDir, 'prod_web_uid-1', 'side');
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, `${i}.log`), 'x');
      // what the container log manager leaves after rotations
      await writeFile(path.join(dir, `${i}.log.20261129-101500.gz`), 'x');
      await writeFile(path.join(dir, `${i}.log.20261129-101510`), 'x');
    }
    await env.manager.garbageCollect(policy, true, () => false);
    const st = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    expect(st.containers.map((c) => [c.restartCount, c.state])).toEqual([
      [3, 'running'],
      [2, 'exited'],
    ]);
    const exists = async (n: number) =>
      access(path.join(env.logsDir, 'prod_web_uid-1', 'side', `${n}.log`)).then(
        () => true,
        () => false,
      );
    expect([await exists(0), await exists(1), await exists(2), await exists(3)]).toEqual([false, false, true, true]);
    // rotated files go with their container's log
    expect((await readdir(path.join(env.logsDir, 'prod_web_uid-1', 'side'))).sort()).toEqual([
      '2.log',
      '2.log.20261129-101500.gz',
      '2.log.20261129-101510',
      '3.log',
      '3.log.20261129-101500.gz',
      '3.log.20261129-101510',
    ]);
  });

  it('respects minAge and the global maxContainers limit', async () => {
    const env = setup();
    await crashLoop(env, makePod({ containers: [side] }, 'uid-a'), 2);
    await crashLoop(env, makePod({ containers: [side] }, 'uid-b'), 2);
    await env.manager.garbageCollect({ minAgeMs: 10 * 3600_000, maxPerPodContainer: 0, maxContainers: -1 }, true, () => false);
    expect(env.runtime.callsOf('removeContainer')).toHaveLength(0);
    await env.manager.garbageCollect({ minAgeMs: 0, maxPerPodContainer: -1, maxContainers: 1 }, true, () => false);
    const dead = (await env.manager.getPods(true)).flatMap((p) => p.containers).filter((c) => c.state === 'exited');
    expect(dead).toHaveLength(1);
  });

  it('removes everything of a deleted pod: dead containers, stopped sandboxes, the log directory', async () => {
    const env = setup();
    const pod = makePod({ containers: [side] });
    await crashLoop(env, pod, 1);
    await env.manager.killPod(pod, (await env.manager.getPods(false))[0] ?? { uid: 'uid-1', name: 'web', namespace: 'prod', sandboxes: [], containers: [] });
    await access(path.join(env.logsDir, 'prod_web_uid-1'));
    // not all sources ready: containers of deleted pods stay
    await env.manager.garbageCollect(policy, false, () => true);
    expect((await env.manager.getPodStatus('uid-1', 'web', 'prod')).containers.length).toBeGreaterThan(0);
    await env.manager.garbageCollect(policy, true, (uid) => uid === 'uid-1');
    const st = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    expect(st.containers).toEqual([]);
    expect(st.sandboxes).toEqual([]);
    await expect(access(path.join(env.logsDir, 'prod_web_uid-1'))).rejects.toThrow();
  });

  /** Makes `method` of the fake wait until released, counting the calls in flight. */
  function gate(runtime: FakeRuntimeService, method: 'removeContainer' | 'removePodSandbox') {
    const original = runtime[method].bind(runtime) as (request: unknown, options?: unknown) => Promise<unknown>;
    const waiting: Array<() => void> = [];
    const state = { inFlight: 0, max: 0, waiting };
    const gated = async (request: unknown, options?: unknown): Promise<unknown> => {
      state.inFlight++;
      state.max = Math.max(state.max, state.inFlight);
      try {
        await new Promise<void>((resolve) => waiting.push(resolve));
        return await original(request, options);
      } finally {
        state.inFlight--;
      }
    };
    (runtime as unknown as Record<string, unknown>)[method] = gated;
    return state;
  }

  /** Lets the GC's file and fake-runtime work run until `count` calls wait on the gate (bounded; no time passes). */
  async function untilWaiting(g: { waiting: unknown[] }, count: number): Promise<void> {
    for (let i = 0; i < 5_000 && g.waiting.length < count; i++) await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve)); // nothing more may start
    expect(g.waiting.length).toBe(count);
  }

  it('removes deleted pods concurrently, at most 8 at a time, containers before sandboxes, one failure not stopping the rest', async () => {
    const logger = new RecordingLogger();
    const env = setup({ logger });
    const pods = 12;
    for (let i = 0; i < pods; i++) {
      const pod = makePod({ containers: [side] }, `uid-${i}`);
      await sync(env, pod);
      const r = (await env.manager.getPods(false)).find((p) => p.uid === `uid-${i}`);
      if (r === undefined) throw new Error(`pod uid-${i} not running`);
      await env.manager.killPod(pod, r);
    }
    const containers = gate(env.runtime, 'removeContainer');
    const sandboxes = gate(env.runtime, 'removePodSandbox');
    env.runtime.injectError('removePodSandbox', 'UNAVAILABLE'); // the first sandbox removal fails
    const gc = env.manager.garbageCollect(policy, true, () => true);

    // Containers: 8 removals start at once, the others wait for a slot; no sandbox is touched meanwhile.
    await untilWaiting(containers, GC_REMOVAL_CONCURRENCY);
    expect(containers.inFlight).toBe(GC_REMOVAL_CONCURRENCY);
    expect(env.runtime.callsOf('stopPodSandbox').length).toBe(pods); // only killPod's
    for (const release of containers.waiting.splice(0, 3)) release();
    await untilWaiting(containers, GC_REMOVAL_CONCURRENCY); // the three freed slots are taken by the next three
    for (const release of containers.waiting.splice(0)) release();
    await untilWaiting(containers, pods - GC_REMOVAL_CONCURRENCY - 3); // the last one
    for (const release of containers.waiting.splice(0)) release();

    // Sandboxes: every container is gone first, then 8 at a time again.
    await untilWaiting(sandboxes, GC_REMOVAL_CONCURRENCY);
    expect(containers.inFlight).toBe(0);
    expect(env.runtime.containerIds).toEqual([]);
    expect(sandboxes.inFlight).toBe(GC_REMOVAL_CONCURRENCY);
    for (const release of sandboxes.waiting.splice(0)) release();
    await untilWaiting(sandboxes, pods - GC_REMOVAL_CONCURRENCY);
    for (const release of sandboxes.waiting.splice(0)) release();
    await gc;

    expect(containers.max).toBe(GC_REMOVAL_CONCURRENCY);
    expect(sandboxes.max).toBe(GC_REMOVAL_CONCURRENCY);
    expect(env.runtime.sandboxIds).toHaveLength(1); // the failed one, retried by the next GC
    expect(JSON.stringify(logger.records)).toContain('Failed to remove sandbox');
  });

  it('removes old not-ready sandboxes without containers, keeping the newest for a live pod', async () => {
    const env = setup();
    const pod = makePod({ containers: [side] });
    await sync(env, pod);
    for (let i = 0; i < 2; i++) {
      const st = await env.manager.getPodStatus('uid-1', 'web', 'prod');
      await env.runtime.stopPodSandbox({ podSandboxId: st.sandboxes[0]?.id ?? '' });
      await env.clock.advance(400_000); // past the CrashLoopBackOff of the killed container
      await sync(env, pod);
    }
    expect((await env.manager.getPodStatus('uid-1', 'web', 'prod')).sandboxes).toHaveLength(3);
    await env.manager.garbageCollect({ minAgeMs: 0, maxPerPodContainer: 0, maxContainers: -1 }, true, () => false);
    const st = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    expect(st.sandboxes.map((s) => s.state)).toEqual(['ready']);
    expect(st.containers.map((c) => c.state)).toEqual(['running']);
    // the pod's log directory stays while the pod exists
    await expect(readFile(path.join(env.logsDir, 'prod_web_uid-1', 'nothing'), 'utf8').catch((e: NodeJS.ErrnoException) => e.code)).resolves.toBe('ENOENT');
    await access(path.join(env.logsDir, 'prod_web_uid-1'));
  });
});

describe('maxParallelStarts (kubelet-ts)', () => {
  /**
   * Waits (real time, up to 10 s: the syncs in flight also touch the file system) until they have made
   * `count` calls of `method`.
   */
  async function untilCalls(env: Env, method: Parameters<FakeRuntimeService['callsOf']>[0], count: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (env.runtime.callsOf(method).length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 1));
    expect(env.runtime.callsOf(method)).toHaveLength(count);
  }
  const onePod = (uid: string): Pod => makePod({ containers: [side] }, uid);

  it('bounds RunPodSandbox and CreateContainer+StartContainer together, container starts first', async () => {
    const env = setup({ maxParallelStarts: 1 });
    env.runtime.setDelay('runPodSandbox', 1000);
    const syncs = ['a', 'b', 'c'].map((uid) => sync(env, onePod(uid)));
    await untilCalls(env, 'runPodSandbox', 1);
    // One slot: b and c wait while a's sandbox is being created.
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(env.runtime.callsOf('runPodSandbox')).toHaveLength(1);
    await env.clock.advance(1000);
    await untilCalls(env, 'runPodSandbox', 2);
    // a prepares its container (its log directory is the last file-system step) and queues for the slot
    // behind b's sandbox; it must then go before c's sandbox.
    const aLogDir = path.join(env.logsDir, 'prod_web_a', 'side');
    for (const deadline = Date.now() + 10_000; !existsSync(aLogDir) && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 1));
    await new Promise((resolve) => setTimeout(resolve, 5));
    await env.clock.advance(1000);
    await untilCalls(env, 'createContainer', 1);
    await untilCalls(env, 'runPodSandbox', 3);
    const order = env.runtime.methodsCalled.filter((m) => m === 'runPodSandbox' || m === 'createContainer' || m === 'startContainer');
    expect(order.slice(0, 5)).toEqual(['runPodSandbox', 'runPodSandbox', 'createContainer', 'startContainer', 'runPodSandbox']);
    await env.clock.advance(1000);
    const results = await Promise.all(syncs);
    expect(results.map((r) => r.error)).toEqual([undefined, undefined, undefined]);
    expect(env.runtime.callsOf('startContainer')).toHaveLength(3);
  });

  it('is unlimited by default, as upstream', async () => {
    const env = setup();
    env.runtime.setDelay('runPodSandbox', 1000);
    const syncs = ['a', 'b', 'c'].map((uid) => sync(env, onePod(uid)));
    await untilCalls(env, 'runPodSandbox', 3);
    await env.clock.advance(1000);
    await Promise.all(syncs);
    expect(env.runtime.callsOf('startContainer')).toHaveLength(3);
  });

  it('a sync with nothing to start calls nothing but reads: no sandbox config, no runtime change', async () => {
    const env = setup();
    const pod = onePod('a');
    expect((await sync(env, pod)).error).toBeUndefined();
    const dnsAfterStart = env.helper.dnsCalls;
    const callsAfterStart = env.runtime.calls.length;
    const again = await sync(env, pod);
    expect(again).toEqual({ results: [] });
    expect(env.helper.dnsCalls).toBe(dnsAfterStart);
    // Only the status reads of sync(): ListPodSandbox, PodSandboxStatus, ListContainers, ContainerStatus.
    expect(env.runtime.methodsCalled.slice(callsAfterStart).every((m) => /^(list|podSandboxStatus|containerStatus)/.test(m))).toBe(true);
  });

  it('releases the slot when a start fails', async () => {
    const env = setup({ maxParallelStarts: 1 });
    env.runtime.injectError('createContainer', 'INTERNAL');
    const first = await sync(env, onePod('a'));
    expect(first.results.find((r) => r.action === 'StartContainer')?.reason).toBe('CreateContainerError');
    const second = await sync(env, onePod('b'));
    expect(second.error).toBeUndefined();
  });
});
