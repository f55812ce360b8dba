import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Container } from '@kubelet-ts/api';
import { hashContainer } from '@kubelet-ts/container-runtime';
import type { PodSandboxConfig } from '@kubelet-ts/cri-client';
import { app, side, makePod, sync, created, summary, setup } from './test-env.js';

describe('syncPod: supplementalGroupsPolicy', () => {
  it('passes Strict to the sandbox and every container, and leaves Merge (the default) unset', async () => {
    const env = setup({ runtimeHandler: undefined });
    await sync(env, makePod({ securityContext: { supplementalGroups: [5], supplementalGroupsPolicy: 'Strict' } }));
    const sandbox = (env.runtime.callsOf('runPodSandbox')[0]?.request as { config: PodSandboxConfig }).config;
    expect(sandbox.linux?.securityContext).toMatchObject({ supplementalGroups: [5], supplementalGroupsPolicy: 'Strict' });
    expect(created(env, 'app')[0]?.linux?.securityContext).toMatchObject({ supplementalGroups: [5], supplementalGroupsPolicy: 'Strict' });

    const merge = setup({ runtimeHandler: undefined });
    await sync(merge, makePod({ securityContext: { supplementalGroups: [5] } }));
    expect(created(merge, 'app')[0]?.linux?.securityContext?.supplementalGroupsPolicy).toBeUndefined();
  });
});

describe('syncPod: seccompDefault', () => {
  it('gives containers without a profile RuntimeDefault when set, Unconfined when not; a profile in the spec wins either way', async () => {
    const off = setup({ runtimeHandler: undefined });
    await sync(off, makePod());
    expect(created(off, 'app')[0]?.linux?.securityContext?.seccomp).toEqual({ profileType: 'Unconfined' });

    const on = setup({ runtimeHandler: undefined, seccompDefault: true });
    await sync(on, makePod());
    expect(created(on, 'app')[0]?.linux?.securityContext?.seccomp).toEqual({ profileType: 'RuntimeDefault' });

    const explicit = setup({ runtimeHandler: undefined, seccompDefault: true });
    await sync(explicit, makePod({ securityContext: { seccompProfile: { type: 'Unconfined' } } }));
    expect(created(explicit, 'app')[0]?.linux?.securityContext?.seccomp).toEqual({ profileType: 'Unconfined' });
  });
});

describe('syncPod: cpusetFor (the CPU manager) and cpusetMemsFor (the memory manager)', () => {
  it('creates each container with the cpuset the CPU manager gives it, and none when it gives none', async () => {
    const env = setup({ runtimeHandler: undefined, cpusetFor: (_pod, c) => (c.name === 'app' ? '1' : undefined) });
    await sync(env, makePod());
    expect(created(env, 'app')[0]?.linux?.resources?.cpusetCpus).toBe('1');
    expect(created(env, 'side')[0]?.linux?.resources?.cpusetCpus ?? '').toBe('');
  });

  it("creates each container with the memory manager's NUMA nodes as cpuset.mems, and none when it gives none", async () => {
    const env = setup({ runtimeHandler: undefined, cpusetMemsFor: (_pod, c) => (c.name === 'app' ? '0,1' : undefined) });
    await sync(env, makePod());
    expect(created(env, 'app')[0]?.linux?.resources?.cpusetMems).toBe('0,1');
    expect(created(env, 'side')[0]?.linux?.resources?.cpusetMems ?? '').toBe('');
  });
});

describe('syncPod: a fresh pod', () => {
  it('generates the sandbox config once: its containers are created with the config the sandbox ran with', async () => {
    const env = setup({ runtimeHandler: undefined });
    const result = await sync(env, makePod());
    expect(result.error).toBeUndefined();
    expect(env.helper.dnsCalls).toBe(1);
    const ran = (env.runtime.callsOf('runPodSandbox')[0]?.request as { config: PodSandboxConfig }).config;
    const creates = env.runtime.callsOf('createContainer').map((c) => (c.request as { sandboxConfig: PodSandboxConfig }).sandboxConfig);
    expect(creates).toHaveLength(2);
    for (const config of creates) expect(config).toEqual(ran);
  });

  it('creates the sandbox with the upstream config and starts every container', async () => {
    const env = setup({ runtimeHandler: undefined });
    const pod = makePod({ securityContext: { runAsUser: 1, sysctls: [{ name: 'net/ipv4/ip_forward', value: '1' }] } });
    const result = await sync(env, pod);
    expect(result.error).toBeUndefined();
    expect(summary(result.results)).toEqual([
      'KillPodSandbox:uid-1',
      'CreatePodSandbox:web_prod',
      'StartContainer:app',
      'StartContainer:side',
    ]);

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
    expect(mount?.hostPath).toContain(path.join(env.helper.getPodDir('uid-1'), 'containers', 'app'));
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
    const guaranteed: Container = {
      name: 'g',
      image: 'busybox:1.36',
      resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } },
    };
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
    expect(result.error).toMatchObject({ code: 'CRASH_LOOP_BACK_OFF', reason: 'CrashLoopBackOff' });
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

  it('a new image kills the running container and starts a new one; other spec changes do not (upstream 1.31+)', async () => {
    const env = setup();
    const pod = makePod();
    await sync(env, pod);
    const newCommand = await sync(env, makePod({ containers: [{ ...app, command: ['sleep', '1000'] }, side] }));
    expect(summary(newCommand.results)).toEqual([]);
    const changed = makePod({ containers: [{ ...app, image: 'busybox:2' }, side] });
    const result = await sync(env, changed);
    expect(summary(result.results)).toEqual(['KillContainer:app', 'StartContainer:app']);
    expect(env.runtime.callsOf('stopContainer')).toHaveLength(1);
    const status = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    const running = status.containers.filter((c) => c.state === 'running').map((c) => [c.name, c.restartCount, c.hash]);
    expect(running.sort()).toEqual([
      ['app', 1, hashContainer({ ...app, image: 'busybox:2' })],
      ['side', 0, hashContainer(side)],
    ]);
  });

  it('starts a container created but never started (a kubelet killed between CreateContainer and StartContainer) instead of creating another', async () => {
    const env = setup();
    const pod = makePod();
    // The first start of the first container fails after its CreateContainer: it is left created.
    env.runtime.injectError('startContainer', 'UNAVAILABLE');
    await sync(env, pod);
    const leftover = (await env.manager.getPodStatus('uid-1', 'web', 'prod')).containers.filter((c) => c.state === 'created');
    expect(leftover).toHaveLength(1);
    await env.clock.advance(1000);
    const result = await sync(env, pod);
    expect(summary(result.results)).toEqual([`StartContainer:${leftover[0]?.name}`]);
    const status = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    // One instance per spec, each running, restart count 0: the created one was started, not replaced.
    expect(status.containers.map((c) => [c.name, c.state, c.restartCount]).sort()).toEqual([
      ['app', 'running', 0],
      ['side', 'running', 0],
    ]);
    expect(status.containers.find((c) => c.name === leftover[0]?.name)?.id).toBe(leftover[0]?.id);
    expect(env.runtime.callsOf('createContainer')).toHaveLength(2);
  });

  it('creates another instance when the created one does not match the spec any more', async () => {
    const env = setup();
    env.runtime.injectError('startContainer', 'UNAVAILABLE');
    await sync(env, makePod());
    await env.clock.advance(1000);
    await sync(env, makePod({ containers: [{ ...app, image: 'busybox:2' }, side] }));
    expect(env.runtime.callsOf('createContainer')).toHaveLength(3);
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
    const pod = makePod({
      initContainers: [
        { name: 'init1', image: 'busybox:1.36' },
        { name: 'init2', image: 'busybox:1.36' },
      ],
    });
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
