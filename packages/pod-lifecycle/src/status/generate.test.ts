import type { ContainerStatus, Pod, PodCondition, PodStatus } from '@kubelet-ts/api';
import type { RuntimeContainerStatus, RuntimePodStatus, RuntimeSandboxStatus } from '@kubelet-ts/container-runtime';
import { makePod } from '../testing/make-pod.js';
import type { ContainerStartFailure } from '../reason-cache.js';
import { DEADLINE_EXCEEDED, generatePodStatus, getPodPhase, pastActiveDeadline } from './generate.js';
import type { GeneratePodStatusInput } from './generate.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

let nextId = 1;
function rc(name: string, state: RuntimeContainerStatus['state'], fields: Partial<RuntimeContainerStatus> = {}): RuntimeContainerStatus {
  const id = `c${nextId++}`;
  return {
    id,
    name,
    state,
    createdAt: T0,
    ...(state !== 'created' ? { startedAt: T0 + 1000 } : {}),
    ...(state === 'exited' ? { finishedAt: T0 + 5000, exitCode: 0 } : {}),
    image: 'busybox',
    imageRef: 'sha256:abc',
    hash: 'h',
    restartCount: 0,
    ...fields,
  };
}

function sandbox(fields: Partial<RuntimeSandboxStatus> = {}): RuntimeSandboxStatus {
  return { id: 's1', state: 'ready', createdAt: T0, attempt: 0, ip: '10.88.0.5', additionalIps: [], hostNetwork: false, ...fields };
}

function runtime(pod: Pod, containers: RuntimeContainerStatus[], sandboxes: RuntimeSandboxStatus[] = [sandbox()]): RuntimePodStatus {
  const ready = sandboxes.find((s) => s.state === 'ready');
  return {
    uid: pod.metadata.uid,
    name: pod.metadata.name,
    namespace: pod.metadata.namespace,
    ips: ready?.ip !== undefined ? [ready.ip] : [],
    sandboxes,
    containers,
    timestamp: T0,
  };
}

function gen(pod: Pod, containers: RuntimeContainerStatus[], extra: Partial<GeneratePodStatusInput> = {}): PodStatus {
  return generatePodStatus({ pod, runtimeStatus: runtime(pod, containers), now: T0 + 10_000, nodeIPs: ['192.168.1.10'], ...extra });
}

const cond = (s: PodStatus, type: string): PodCondition | undefined => s.conditions?.find((c) => c.type === type);
const cs = (s: PodStatus, name: string): ContainerStatus | undefined =>
  [...(s.containerStatuses ?? []), ...(s.initContainerStatuses ?? [])].find((c) => c.name === name);
const reasonsOf = (m: Record<string, ContainerStartFailure>) => (name: string) => m[name];

describe('generatePodStatus: phase', () => {
  const cases: Array<{
    name: string;
    pod: () => Pod;
    containers: (pod: Pod) => RuntimeContainerStatus[];
    terminal?: boolean;
    phase: string;
  }> = [
    { name: 'nothing created yet → Pending', pod: () => makePod(), containers: () => [], phase: 'Pending' },
    { name: 'created, not started → Pending', pod: () => makePod(), containers: () => [rc('app', 'created')], phase: 'Pending' },
    { name: 'running → Running', pod: () => makePod(), containers: () => [rc('app', 'running')], phase: 'Running' },
    {
      name: 'one of two running, other not created → Pending',
      pod: () => makePod({ containers: [{ name: 'a' }, { name: 'b' }] }),
      containers: () => [rc('a', 'running')],
      phase: 'Pending',
    },
    {
      name: 'Always, exited 1 → Running (restarting)',
      pod: () => makePod(),
      containers: () => [rc('app', 'exited', { exitCode: 1 })],
      phase: 'Running',
    },
    { name: 'Always, exited 0 → Running (restarting)', pod: () => makePod(), containers: () => [rc('app', 'exited')], phase: 'Running' },
    {
      name: 'Never, exited 0 → Succeeded',
      pod: () => makePod({ restartPolicy: 'Never' }),
      containers: () => [rc('app', 'exited')],
      phase: 'Succeeded',
    },
    {
      name: 'Never, exited 1 → Failed',
      pod: () => makePod({ restartPolicy: 'Never' }),
      containers: () => [rc('app', 'exited', { exitCode: 1 })],
      phase: 'Failed',
    },
    {
      name: 'OnFailure, exited 0 → Succeeded',
      pod: () => makePod({ restartPolicy: 'OnFailure' }),
      containers: () => [rc('app', 'exited')],
      phase: 'Succeeded',
    },
    {
      name: 'OnFailure, exited 2 → Running',
      pod: () => makePod({ restartPolicy: 'OnFailure' }),
      containers: () => [rc('app', 'exited', { exitCode: 2 })],
      phase: 'Running',
    },
    {
      name: 'init running → Pending',
      pod: () => makePod({ initContainers: [{ name: 'init' }] }),
      containers: () => [rc('init', 'running')],
      phase: 'Pending',
    },
    {
      name: 'Never, init failed → Failed',
      pod: () => makePod({ restartPolicy: 'Never', initContainers: [{ name: 'init' }] }),
      containers: () => [rc('init', 'exited', { exitCode: 1 })],
      phase: 'Failed',
    },
    {
      name: 'Always, init failed → Pending (it is retried)',
      pod: () => makePod({ initContainers: [{ name: 'init' }] }),
      containers: () => [rc('init', 'exited', { exitCode: 1 })],
      phase: 'Pending',
    },
    {
      name: 'init done, main running → Running',
      pod: () => makePod({ initContainers: [{ name: 'init' }] }),
      containers: () => [rc('init', 'exited'), rc('app', 'running')],
      phase: 'Running',
    },
    {
      name: 'sidecar started and main running → Running',
      pod: () => makePod({ initContainers: [{ name: 'side', restartPolicy: 'Always' }] }),
      containers: () => [rc('side', 'running'), rc('app', 'running')],
      phase: 'Running',
    },
    {
      name: 'terminal pod with Always, killed (137) → Failed',
      pod: () => makePod(),
      containers: () => [rc('app', 'exited', { exitCode: 137 })],
      terminal: true,
      phase: 'Failed',
    },
    {
      name: 'terminal pod, every container exited 0 → Succeeded',
      pod: () => makePod(),
      containers: () => [rc('app', 'exited')],
      terminal: true,
      phase: 'Succeeded',
    },
    {
      name: 'terminal static pod keeps the non-terminal phase (upstream TODO #116484)',
      pod: () => makePod({ annotations: { 'kubernetes.io/config.source': 'file' } }),
      containers: () => [rc('app', 'exited', { exitCode: 137 })],
      terminal: true,
      phase: 'Running',
    },
  ];
  it.each(cases)('$name', ({ pod, containers, terminal, phase }) => {
    const p = pod();
    expect(gen(p, containers(p), { podIsTerminal: terminal ?? false }).phase).toBe(phase);
  });

  it('keeps a terminal phase once reached, and the reason and message of an unchanged phase', () => {
    const pod = makePod();
    const previous: PodStatus = { phase: 'Succeeded', reason: 'Done', message: 'all good' };
    const s = gen(pod, [], { previous });
    expect(s).toMatchObject({ phase: 'Succeeded', reason: 'Done', message: 'all good' });
  });

  it('never leaves a terminal phase recorded in the pod from its source', () => {
    const pod = { ...makePod(), status: { phase: 'Failed' } };
    expect(gen(pod, [rc('app', 'running')]).phase).toBe('Failed');
  });

  it('an eviction (active deadline) makes the pod Failed with its reason, and the conditions follow', () => {
    const s = gen(makePod(), [rc('app', 'running')], { evict: DEADLINE_EXCEEDED });
    expect(s).toMatchObject({
      phase: 'Failed',
      reason: 'DeadlineExceeded',
      message: 'Pod was active on the node longer than the specified deadline',
    });
    expect(cond(s, 'ContainersReady')).toMatchObject({ status: 'False', reason: 'PodFailed' });
  });

  it('pastActiveDeadline counts from the start time', () => {
    const pod = makePod({ spec: { activeDeadlineSeconds: 10 } });
    expect(pastActiveDeadline(pod, iso(T0), T0 + 9_999)).toBe(false);
    expect(pastActiveDeadline(pod, iso(T0), T0 + 10_000)).toBe(true);
    expect(pastActiveDeadline(pod, undefined, T0 + 99_000)).toBe(false);
    expect(pastActiveDeadline(makePod(), iso(T0), T0 + 99_000)).toBe(false);
  });

  it('getPodPhase with no statuses at all is Pending', () => {
    expect(getPodPhase(makePod(), [], false)).toBe('Pending');
  });
});

describe('generatePodStatus: container states and reasons', () => {
  it('waits in ContainerCreating, or PodInitializing when the pod has init containers', () => {
    expect(cs(gen(makePod(), []), 'app')?.state).toEqual({ waiting: { reason: 'ContainerCreating' } });
    const withInit = gen(makePod({ initContainers: [{ name: 'init' }] }), []);
    expect(cs(withInit, 'app')?.state).toEqual({ waiting: { reason: 'PodInitializing' } });
    expect(cs(withInit, 'init')?.state).toEqual({ waiting: { reason: 'PodInitializing' } });
  });

  it('reports a running container with its ID, image, imageID, start time, started and ready', () => {
    const c = rc('app', 'running', { id: 'abc123', image: 'docker.io/library/busybox:1.36', imageRef: 'sha256:feed', restartCount: 2 });
    const s = gen(makePod(), [c]);
    expect(cs(s, 'app')).toEqual({
      name: 'app',
      state: { running: { startedAt: iso(T0 + 1000) } },
      ready: true,
      started: true,
      restartCount: 2,
      image: 'docker.io/library/busybox:1.36',
      imageID: 'sha256:feed',
      containerID: 'containerd://abc123',
    });
  });

  it('uses the configured runtime name as the container ID prefix', () => {
    const s = gen(makePod(), [rc('app', 'running', { id: 'x' })], { runtimeName: 'cri-o' });
    expect(cs(s, 'app')?.containerID).toBe('cri-o://x');
  });

  it.each([
    { reason: 'Completed', exitCode: 0 },
    { reason: 'Error', exitCode: 1 },
    { reason: 'OOMKilled', exitCode: 137 },
  ])('reports a terminated container with reason $reason', ({ reason, exitCode }) => {
    const pod = makePod({ restartPolicy: 'Never' });
    const c = rc('app', 'exited', { id: 'dead', exitCode, reason, message: reason === 'Error' ? 'boom' : '' });
    expect(cs(gen(pod, [c]), 'app')?.state).toEqual({
      terminated: {
        exitCode,
        reason,
        ...(reason === 'Error' ? { message: 'boom' } : {}),
        startedAt: iso(T0 + 1000),
        finishedAt: iso(T0 + 5000),
        containerID: 'containerd://dead',
      },
    });
  });

  it('shows CrashLoopBackOff with the back-off message and the last termination as lastState', () => {
    const pod = makePod();
    const previous = rc('app', 'exited', { id: 'old', exitCode: 1, reason: 'Error', createdAt: T0, restartCount: 0 });
    const latest = rc('app', 'exited', { id: 'new', exitCode: 1, reason: 'Error', createdAt: T0 + 100, restartCount: 1 });
    const message = `back-off 10s restarting failed container=app pod=${pod.metadata.name}_default(${pod.metadata.uid})`;
    const s = gen(pod, [previous, latest], { reasons: reasonsOf({ app: { reason: 'CrashLoopBackOff', message } }) });
    const status = cs(s, 'app');
    expect(status?.state).toEqual({ waiting: { reason: 'CrashLoopBackOff', message } });
    expect(status?.lastState?.terminated).toMatchObject({ exitCode: 1, reason: 'Error', containerID: 'containerd://new' });
    expect(status?.restartCount).toBe(1);
    expect(status?.ready).toBe(false);
    expect(s.phase).toBe('Running');
  });

  it('shows an exited sidecar of a restartPolicy Never pod waiting with its back-off: the sync restarts sidecars whatever the policy', () => {
    const pod = makePod({ restartPolicy: 'Never', initContainers: [{ name: 'side', restartPolicy: 'Always' }] });
    const side = rc('side', 'exited', { exitCode: 1, reason: 'Error' });
    const app = rc('app', 'exited', { exitCode: 1, reason: 'Error' });
    const crashLoop = { reason: 'CrashLoopBackOff', message: 'back-off 10s restarting failed container' };
    const s = gen(pod, [side, app], { reasons: reasonsOf({ side: crashLoop, app: crashLoop }) });
    expect(cs(s, 'side')?.state).toEqual({ waiting: { reason: 'CrashLoopBackOff', message: crashLoop.message } });
    expect(cs(s, 'side')?.lastState?.terminated?.exitCode).toBe(1);
    // a regular container of the same pod is not restarted under Never: it stays terminated
    expect(cs(s, 'app')?.state?.terminated?.exitCode).toBe(1);
  });

  it.each([
    'ErrImagePull',
    'ImagePullBackOff',
    'CreateContainerConfigError',
    'CreateContainerError',
    'RunContainerError',
    'InvalidImageName',
  ])('shows a never-started container waiting with reason %s', (reason) => {
    const s = gen(makePod(), [], { reasons: reasonsOf({ app: { reason, message: `details of ${reason}` } }) });
    expect(cs(s, 'app')?.state).toEqual({ waiting: { reason, message: `details of ${reason}` } });
    expect(s.phase).toBe('Pending');
  });

  it('ignores a stale failure reason for a container that runs now', () => {
    const s = gen(makePod(), [rc('app', 'running')], { reasons: reasonsOf({ app: { reason: 'ErrImagePull', message: 'x' } }) });
    expect(cs(s, 'app')?.state?.running).toBeDefined();
  });

  it('keeps the previous instance as lastState of a running container', () => {
    const old = rc('app', 'exited', { id: 'a', exitCode: 137, reason: 'OOMKilled', createdAt: T0 });
    const now = rc('app', 'running', { id: 'b', createdAt: T0 + 50, restartCount: 1 });
    const status = cs(gen(makePod(), [old, now]), 'app');
    expect(status?.state?.running).toBeDefined();
    expect(status?.lastState).toEqual({
      terminated: {
        exitCode: 137,
        reason: 'OOMKilled',
        startedAt: iso(T0 + 1000),
        finishedAt: iso(T0 + 5000),
        containerID: 'containerd://a',
      },
    });
    expect(status?.restartCount).toBe(1);
  });

  it('infers a terminated lastState for a container that ran and vanished', () => {
    const pod = makePod();
    const previous: PodStatus = {
      containerStatuses: [{ name: 'app', state: { running: {} }, ready: true, restartCount: 3, image: 'busybox', imageID: 'x' }],
    };
    const status = cs(gen(pod, [], { previous }), 'app');
    expect(status?.lastState?.terminated).toMatchObject({ exitCode: 137, reason: 'ContainerStatusUnknown' });
    expect(status?.restartCount).toBe(4);
  });

  it('marks a not-ready or not-started container as such', () => {
    const c = rc('app', 'running', { id: 'r1' });
    const notReady = gen(makePod(), [c], { readiness: { isReady: (id) => id !== 'r1' } });
    expect(cs(notReady, 'app')).toMatchObject({ ready: false, started: true });
    const notStarted = gen(makePod(), [c], { startup: { isStarted: () => false } });
    expect(cs(notStarted, 'app')).toMatchObject({ ready: false, started: false });
  });

  it('tells the readiness and startup providers which pod and container they are asked about', () => {
    const pod = makePod({ containers: [{ name: 'app' }] });
    const asked: Array<[string, string, string]> = [];
    const c = rc('app', 'running', { id: 'r1' });
    const s = gen(pod, [c], {
      readiness: { isReady: (id, ref) => (asked.push(['ready', id, ref?.containerName ?? '']), ref?.pod === pod) },
      startup: { isStarted: (id, ref) => (asked.push(['started', id, ref?.containerName ?? '']), ref?.pod === pod) },
    });
    expect(cs(s, 'app')).toMatchObject({ ready: true, started: true });
    expect(asked).toEqual([
      ['started', 'r1', 'app'],
      ['ready', 'r1', 'app'],
    ]);
  });

  it('lists regular containers by name and init containers in spec order', () => {
    const pod = makePod({ containers: [{ name: 'zeta' }, { name: 'alpha' }], initContainers: [{ name: 'second' }, { name: 'first' }] });
    const s = gen(pod, []);
    expect(s.containerStatuses?.map((c) => c.name)).toEqual(['alpha', 'zeta']);
    expect(s.initContainerStatuses?.map((c) => c.name)).toEqual(['second', 'first']);
  });
});

describe('generatePodStatus: conditions', () => {
  const types = (s: PodStatus): string[] => (s.conditions ?? []).map((c) => c.type);

  it('sets every kubelet condition, all True for a running ready pod', () => {
    const s = gen(makePod(), [rc('app', 'running')]);
    expect(types(s)).toEqual(['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled']);
    expect(s.conditions?.every((c) => c.status === 'True')).toBe(true);
    expect(cond(s, 'Ready')?.lastTransitionTime).toBe(iso(T0 + 10_000));
  });

  it('ContainersNotReady with upstream messages for unready containers', () => {
    const pod = makePod({ containers: [{ name: 'a' }, { name: 'b' }] });
    const s = gen(pod, [rc('a', 'running'), rc('b', 'exited', { exitCode: 1 })]);
    expect(cond(s, 'ContainersReady')).toMatchObject({
      status: 'False',
      reason: 'ContainersNotReady',
      message: 'containers with unready status: [b]',
    });
    expect(cond(s, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ContainersNotReady',
      message: 'containers with unready status: [b]',
    });
  });

  it('ContainersNotInitialized while an init container has not completed', () => {
    const pod = makePod({ initContainers: [{ name: 'init-a' }, { name: 'init-b' }] });
    const s = gen(pod, [rc('init-a', 'running')]);
    expect(cond(s, 'Initialized')).toMatchObject({
      status: 'False',
      reason: 'ContainersNotInitialized',
      message: 'containers with incomplete status: [init-a init-b]',
    });
    const done = gen(pod, [rc('init-a', 'exited'), rc('init-b', 'exited'), rc('app', 'running')]);
    expect(cond(done, 'Initialized')?.status).toBe('True');
    expect(cs(done, 'init-a')?.ready).toBe(true);
  });

  it('PodCompleted for a succeeded pod, PodFailed for a failed one', () => {
    const succeeded = gen(makePod({ restartPolicy: 'Never' }), [rc('app', 'exited')]);
    expect(cond(succeeded, 'Ready')).toMatchObject({ status: 'False', reason: 'PodCompleted' });
    expect(cond(succeeded, 'ContainersReady')).toMatchObject({ status: 'False', reason: 'PodCompleted' });
    expect(cond(succeeded, 'Initialized')).toMatchObject({ status: 'True' });
    const failed = gen(makePod({ restartPolicy: 'Never' }), [rc('app', 'exited', { exitCode: 3 })]);
    expect(cond(failed, 'Ready')).toMatchObject({ status: 'False', reason: 'PodFailed' });
  });

  it('PodReadyToStartContainers is False without a ready sandbox', () => {
    const pod = makePod();
    const s = generatePodStatus({ pod, runtimeStatus: runtime(pod, [], []), now: T0 });
    expect(cond(s, 'PodReadyToStartContainers')?.status).toBe('False');
    const notReady = generatePodStatus({ pod, runtimeStatus: runtime(pod, [], [sandbox({ state: 'notready' })]), now: T0 });
    expect(cond(notReady, 'PodReadyToStartContainers')?.status).toBe('False');
  });

  it('keeps lastTransitionTime while a condition keeps its status, and moves it on a change', () => {
    const pod = makePod();
    const first = gen(pod, [rc('app', 'running')], { now: T0 });
    const second = gen(pod, [rc('app', 'running')], { now: T0 + 60_000, previous: first });
    expect(cond(second, 'Ready')?.lastTransitionTime).toBe(iso(T0));
    const third = gen(pod, [rc('app', 'exited', { exitCode: 1 })], { now: T0 + 120_000, previous: second });
    expect(cond(third, 'Ready')?.lastTransitionTime).toBe(iso(T0 + 120_000));
    expect(cond(third, 'PodScheduled')?.lastTransitionTime).toBe(iso(T0));
  });

  it('evaluates readiness gates against conditions set by others', () => {
    const pod: Pod = { ...makePod({ spec: { readinessGates: [{ conditionType: 'example.com/lb' }] } }) };
    const s = gen(pod, [rc('app', 'running')]);
    expect(cond(s, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ReadinessGatesNotReady',
      message: 'corresponding condition of pod readiness gate "example.com/lb" does not exist.',
    });
    const withGate: Pod = { ...pod, status: { conditions: [{ type: 'example.com/lb', status: 'True' }] } };
    const ok = gen(withGate, [rc('app', 'running')]);
    expect(cond(ok, 'Ready')?.status).toBe('True');
    expect(cond(ok, 'example.com/lb')?.status).toBe('True');
  });
});

describe('generatePodStatus: addresses, start time, QoS', () => {
  it('takes podIP(s) from the sandbox and hostIP(s) from the node', () => {
    const s = gen(makePod(), [rc('app', 'running')], { nodeIPs: ['192.168.1.10', 'fd00::10'] });
    expect(s).toMatchObject({
      podIP: '10.88.0.5',
      podIPs: [{ ip: '10.88.0.5' }],
      hostIP: '192.168.1.10',
      hostIPs: [{ ip: '192.168.1.10' }, { ip: 'fd00::10' }],
    });
  });

  it('gives a host-network pod the node IP as its pod IP', () => {
    const pod = makePod({ hostNetwork: true });
    const s = generatePodStatus({
      pod,
      runtimeStatus: runtime(pod, [rc('app', 'running')], [sandbox({ ip: '', hostNetwork: true })]),
      nodeIPs: ['192.168.1.10'],
      now: T0,
    });
    expect(s).toMatchObject({ podIP: '192.168.1.10', podIPs: [{ ip: '192.168.1.10' }] });
  });

  it('sets startTime once and keeps it', () => {
    const pod = makePod();
    const first = gen(pod, [], { now: T0 });
    expect(first.startTime).toBe(iso(T0));
    expect(gen(pod, [], { now: T0 + 99_000, previous: first }).startTime).toBe(iso(T0));
  });

  it('reports the QoS class', () => {
    expect(gen(makePod(), []).qosClass).toBe('BestEffort');
    const guaranteed = makePod({
      containers: [{ name: 'app', resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } } }],
    });
    expect(gen(guaranteed, []).qosClass).toBe('Guaranteed');
  });
});

describe('generatePodStatus: ephemeral containers (upstream ephemeralContainerStatuses)', () => {
  const debugged = (): Pod =>
    makePod({
      spec: {
        ephemeralContainers: [
          { name: 'dbg', image: 'busybox:1.36', targetContainerName: 'app' },
          { name: 'aaa', image: 'alpine:3' },
        ],
      },
    });

  it('reports running, waiting and terminated states with image, imageID and containerID, sorted by name, never ready or started', () => {
    const pod = debugged();
    const dbg = rc('dbg', 'running', { image: 'busybox:1.36', imageRef: 'sha256:dbg' });
    const s = gen(pod, [rc('app', 'running'), dbg]);
    expect(s.ephemeralContainerStatuses).toEqual([
      { name: 'aaa', state: { waiting: { reason: 'ContainerCreating' } }, ready: false, restartCount: 0, image: 'alpine:3', imageID: '' },
      {
        name: 'dbg',
        state: { running: { startedAt: iso(T0 + 1000) } },
        ready: false,
        restartCount: 0,
        image: 'busybox:1.36',
        imageID: 'sha256:dbg',
        containerID: `containerd://${dbg.id}`,
      },
    ]);
    // Not among the regular containers, and the pod is Running and Ready on its regular containers alone.
    expect(s.containerStatuses?.map((c) => c.name)).toEqual(['app']);
    expect(s.phase).toBe('Running');
    expect(cond(s, 'Ready')?.status).toBe('True');
    expect(cond(s, 'ContainersReady')?.status).toBe('True');

    const exited = rc('dbg', 'exited', { exitCode: 2, reason: 'Error' });
    const t = gen(pod, [rc('app', 'running'), exited]);
    expect(t.ephemeralContainerStatuses?.find((c) => c.name === 'dbg')?.state).toEqual({
      terminated: {
        exitCode: 2,
        reason: 'Error',
        startedAt: iso(T0 + 1000),
        finishedAt: iso(T0 + 5000),
        containerID: `containerd://${exited.id}`,
      },
    });
    expect(t.phase).toBe('Running');
  });

  it('shows the start failure of one that could not start (ErrImagePull) as its waiting reason', () => {
    const s = gen(debugged(), [rc('app', 'running')], {
      reasons: reasonsOf({ dbg: { reason: 'ErrImagePull', message: 'pull failed' } }),
    });
    expect(s.ephemeralContainerStatuses?.find((c) => c.name === 'dbg')?.state).toEqual({
      waiting: { reason: 'ErrImagePull', message: 'pull failed' },
    });
  });

  it('a pod without ephemeral containers has no ephemeralContainerStatuses', () => {
    expect(gen(makePod(), [rc('app', 'running')]).ephemeralContainerStatuses).toBeUndefined();
  });
});
