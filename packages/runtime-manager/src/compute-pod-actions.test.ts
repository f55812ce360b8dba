import type { Container, Pod } from '@kubelet-ts/api';
import { hashContainer, shouldContainerBeRestarted } from '@kubelet-ts/container-runtime';
import type { ProbeResults, RuntimeContainerStatus, RuntimePodStatus, RuntimeSandboxStatus } from '@kubelet-ts/container-runtime';
import { computePodActions } from './compute-pod-actions.js';
import type { PodActions } from './compute-pod-actions.js';

const c1: Container = { name: 'c1', image: 'busybox', command: ['sleep', '3600'] };
const c2: Container = { name: 'c2', image: 'busybox', command: ['sleep', '3600'] };
const init1: Container = { name: 'init1', image: 'busybox' };
const init2: Container = { name: 'init2', image: 'busybox' };
const side1: Container = { name: 'side1', image: 'busybox', restartPolicy: 'Always' };

function makePod(spec: Partial<Pod['spec']> = {}, meta: Partial<Pod['metadata']> = {}): Pod {
  return { metadata: { name: 'p', namespace: 'ns', uid: 'uid', ...meta }, spec: { containers: [c1, c2], ...spec } };
}

function sandbox(fields: Partial<RuntimeSandboxStatus> = {}): RuntimeSandboxStatus {
  return { id: 'sb1', state: 'ready', createdAt: 1, attempt: 0, ip: '10.0.0.2', additionalIps: [], hostNetwork: false, ...fields };
}

let seq = 0;
function running(spec: Container, fields: Partial<RuntimeContainerStatus> = {}): RuntimeContainerStatus {
  seq++;
  return {
    id: `${spec.name}-${seq}`,
    name: spec.name,
    state: 'running',
    createdAt: seq,
    startedAt: seq,
    image: spec.image,
    imageRef: 'sha256:x',
    hash: hashContainer(spec),
    restartCount: 0,
    ...fields,
  };
}
function exited(spec: Container, exitCode: number, fields: Partial<RuntimeContainerStatus> = {}): RuntimeContainerStatus {
  return running(spec, { state: 'exited', exitCode, finishedAt: 100, ...fields });
}

function status(sandboxes: RuntimeSandboxStatus[], containers: RuntimeContainerStatus[]): RuntimePodStatus {
  // newest first, as GetPodStatus returns them
  const sorted = [...containers].sort((a, b) => b.createdAt - a.createdAt);
  return { uid: 'uid', name: 'p', namespace: 'ns', ips: [], sandboxes, containers: sorted, timestamp: 0 };
}

function probes(failed: { liveness?: string[]; startup?: string[]; notStarted?: string[] }): ProbeResults {
  return {
    livenessFailed: (id) => (failed.liveness ?? []).includes(id),
    startupFailed: (id) => (failed.startup ?? []).includes(id),
    startupSucceeded: (id) => !(failed.notStarted ?? []).includes(id),
  };
}

type Expect = Partial<Omit<PodActions, 'containersToKill'>> & { kill?: Array<[string, string]> };

function check(actions: PodActions, expected: Expect): void {
  const { kill, ...rest } = expected;
  expect(actions).toMatchObject(rest);
  if (kill !== undefined) {
    expect(actions.containersToKill.map((k) => [k.name, k.message])).toEqual(kill);
  }
}

describe('computePodActions: sandbox', () => {
  const table: Array<[string, Pod, () => RuntimePodStatus, Expect]> = [
    [
      'no sandbox: create one (attempt 0) and start every container',
      makePod(),
      () => status([], []),
      { killPod: true, createSandbox: true, sandboxId: '', attempt: 0, containersToStart: [0, 1], initContainersToStart: [] },
    ],
    [
      'not-ready sandbox: kill, recreate with attempt + 1',
      makePod(),
      () => status([sandbox({ state: 'notready', attempt: 2 })], [exited(c1, 0), exited(c2, 0)]),
      { killPod: true, createSandbox: true, sandboxId: 'sb1', attempt: 3, containersToStart: [0, 1] },
    ],
    [
      'several ready sandboxes: reconcile by recreating',
      makePod(),
      () => status([sandbox({ id: 'sb2', attempt: 1 }), sandbox()], [running(c1), running(c2)]),
      { killPod: true, createSandbox: true, sandboxId: 'sb2', attempt: 2 },
    ],
    [
      'hostNetwork changed: new sandbox, old one not reused',
      makePod({ hostNetwork: true }),
      () => status([sandbox()], [running(c1), running(c2)]),
      { killPod: true, createSandbox: true, sandboxId: '', attempt: 1 },
    ],
    [
      'sandbox without IP for a pod-network pod: recreate',
      makePod(),
      () => status([sandbox({ ip: '' })], [running(c1), running(c2)]),
      { killPod: true, createSandbox: true, sandboxId: 'sb1', attempt: 1 },
    ],
    [
      'host-network sandbox without IP is fine',
      makePod({ hostNetwork: true }),
      () => status([sandbox({ ip: undefined, hostNetwork: true })], [running(c1), running(c2)]),
      { killPod: false, createSandbox: false, containersToStart: [], kill: [] },
    ],
    [
      'restartPolicy Never, sandbox died after containers ran: kill only, no new sandbox',
      makePod({ restartPolicy: 'Never' }),
      () => status([sandbox({ state: 'notready' })], [exited(c1, 0), exited(c2, 1)]),
      { killPod: true, createSandbox: false, containersToStart: [] },
    ],
    [
      'restartPolicy Never with no container ever created: retry the sandbox',
      makePod({ restartPolicy: 'Never' }),
      () => status([sandbox({ state: 'notready' })], []),
      { killPod: true, createSandbox: true, attempt: 1, containersToStart: [0, 1] },
    ],
    [
      'OnFailure: succeeded containers are not started again in a new sandbox',
      makePod({ restartPolicy: 'OnFailure' }),
      () => status([sandbox({ state: 'notready' })], [exited(c1, 0), exited(c2, 2)]),
      { killPod: true, createSandbox: true, containersToStart: [1] },
    ],
    [
      'OnFailure: all succeeded, nothing to start: no new sandbox',
      makePod({ restartPolicy: 'OnFailure' }),
      () => status([sandbox({ state: 'notready' })], [exited(c1, 0), exited(c2, 0)]),
      { killPod: true, createSandbox: false },
    ],
    [
      'new sandbox with init containers: only the first init container',
      makePod({ initContainers: [init1, init2] }),
      () => status([], []),
      { createSandbox: true, initContainersToStart: [0], containersToStart: [] },
    ],
  ];
  it.each(table)('%s', (_name, pod, st, expected) => {
    check(computePodActions(pod, st()), expected);
  });
});

describe('computePodActions: regular containers', () => {
  const table: Array<[string, Pod, () => RuntimePodStatus, ProbeResults | undefined, Expect]> = [
    [
      'all running with matching hashes: nothing to do',
      makePod(),
      () => status([sandbox()], [running(c1), running(c2)]),
      undefined,
      { killPod: false, createSandbox: false, containersToStart: [], kill: [] },
    ],
    ['missing container is started', makePod(), () => status([sandbox()], [running(c1)]), undefined, { containersToStart: [1], kill: [] }],
    [
      'Always: exited(0) container is restarted',
      makePod(),
      () => status([sandbox()], [running(c1), exited(c2, 0)]),
      undefined,
      { containersToStart: [1] },
    ],
    [
      'OnFailure: exit 0 stays, exit 1 restarts',
      makePod({ restartPolicy: 'OnFailure' }),
      () => status([sandbox()], [exited(c1, 0), exited(c2, 1)]),
      undefined,
      { killPod: false, containersToStart: [1] },
    ],
    [
      'Never: exited containers stay exited; with nothing running the pod is killed',
      makePod({ restartPolicy: 'Never' }),
      () => status([sandbox()], [exited(c1, 0), exited(c2, 1)]),
      undefined,
      { killPod: true, createSandbox: false, containersToStart: [] },
    ],
    [
      'Never: one still running keeps the pod',
      makePod({ restartPolicy: 'Never' }),
      () => status([sandbox()], [running(c1), exited(c2, 1)]),
      undefined,
      { killPod: false, containersToStart: [] },
    ],
    [
      'created-but-not-started container is started again',
      makePod({ restartPolicy: 'Never' }),
      () => status([sandbox()], [running(c1), running(c2, { state: 'created' })]),
      undefined,
      { containersToStart: [1] },
    ],
    [
      'unknown-state container is killed before it is started again',
      makePod(),
      () => status([sandbox()], [running(c1), running(c2, { id: 'c2-u', state: 'unknown' })]),
      undefined,
      { containersToStart: [1], kill: [['c2', 'Container is in "unknown" state, try killing it before restart']] },
    ],
    [
      'spec hash changed: kill and restart even with restartPolicy Never',
      makePod({ restartPolicy: 'Never' }),
      () => status([sandbox()], [running(c1, { hash: 'deadbeef' }), running(c2)]),
      undefined,
      { containersToStart: [0], kill: [['c1', 'Container c1 definition changed, will be restarted']] },
    ],
    [
      'liveness failed: kill and restart',
      makePod(),
      () => status([sandbox()], [running(c1, { id: 'live-1' }), running(c2)]),
      probes({ liveness: ['live-1'] }),
      { containersToStart: [0], kill: [['c1', 'Container c1 failed liveness probe, will be restarted']] },
    ],
    [
      'startup failed: kill and restart',
      makePod(),
      () => status([sandbox()], [running(c1), running(c2, { id: 'st-2' })]),
      probes({ startup: ['st-2'] }),
      { containersToStart: [1], kill: [['c2', 'Container c2 failed startup probe, will be restarted']] },
    ],
    [
      'liveness failed with restartPolicy Never: kill without restart',
      makePod({ restartPolicy: 'Never' }),
      () => status([sandbox()], [running(c1, { id: 'live-1' }), running(c2)]),
      probes({ liveness: ['live-1'] }),
      { containersToStart: [], killPod: false, kill: [['c1', 'Container c1 failed liveness probe']] },
    ],
    [
      'a running container not in the spec is killed',
      makePod(),
      () => status([sandbox()], [running(c1), running(c2), running({ name: 'old', image: 'busybox' }, { id: 'old-1' })]),
      undefined,
      { containersToStart: [], kill: [['old', 'Container old is not in the pod spec']] },
    ],
    [
      'deleted pod: exited containers are not restarted',
      makePod({}, { deletionTimestamp: '2026-01-01T00:00:00Z' }),
      () => status([sandbox()], [running(c1), exited(c2, 1)]),
      undefined,
      { containersToStart: [], killPod: false },
    ],
  ];
  it.each(table)('%s', (_name, pod, st, probeResults, expected) => {
    check(computePodActions(pod, st(), probeResults === undefined ? {} : { probeResults }), expected);
  });
});

describe('computePodActions: init containers and sidecars', () => {
  const table: Array<[string, Pod, () => RuntimePodStatus, ProbeResults | undefined, Expect]> = [
    [
      'first init container not started yet (sandbox exists)',
      makePod({ initContainers: [init1, init2] }),
      () => status([sandbox()], []),
      undefined,
      { initContainersToStart: [0], containersToStart: [] },
    ],
    [
      'init container running: wait',
      makePod({ initContainers: [init1, init2] }),
      () => status([sandbox()], [running(init1)]),
      undefined,
      { initContainersToStart: [], containersToStart: [], killPod: false },
    ],
    [
      'first init succeeded: start the second',
      makePod({ initContainers: [init1, init2] }),
      () => status([sandbox()], [exited(init1, 0)]),
      undefined,
      { initContainersToStart: [1], containersToStart: [] },
    ],
    [
      'all init containers succeeded: start regular containers',
      makePod({ initContainers: [init1, init2] }),
      () => status([sandbox()], [exited(init1, 0), exited(init2, 0)]),
      undefined,
      { initContainersToStart: [], containersToStart: [0, 1] },
    ],
    [
      'init container failed, restartPolicy Always: restart it',
      makePod({ initContainers: [init1, init2] }),
      () => status([sandbox()], [exited(init1, 0), exited(init2, 1)]),
      undefined,
      { initContainersToStart: [1], containersToStart: [], killPod: false },
    ],
    [
      'init container OOMKilled counts as failed',
      makePod({ initContainers: [init1] }),
      () => status([sandbox()], [exited(init1, 0, { reason: 'OOMKilled' })]),
      undefined,
      { initContainersToStart: [0], containersToStart: [] },
    ],
    [
      'init container failed, restartPolicy Never: the pod is killed',
      makePod({ initContainers: [init1, init2], restartPolicy: 'Never' }),
      () => status([sandbox()], [exited(init1, 1)]),
      undefined,
      { killPod: true, createSandbox: false, initContainersToStart: [], containersToStart: [] },
    ],
    [
      'init containers removed after initialization: not re-run while regular containers run',
      makePod({ initContainers: [init1, init2] }),
      () => status([sandbox()], [running(c1), running(c2)]),
      undefined,
      { initContainersToStart: [], containersToStart: [], killPod: false },
    ],
    [
      'sidecar first: started alone, regular containers wait',
      makePod({ initContainers: [side1, init1] }),
      () => status([sandbox()], []),
      undefined,
      { initContainersToStart: [0], containersToStart: [] },
    ],
    [
      'sidecar running (started): next init container starts',
      makePod({ initContainers: [side1, init1] }),
      () => status([sandbox()], [running(side1)]),
      undefined,
      { initContainersToStart: [1], containersToStart: [] },
    ],
    [
      'sidecar with a startup probe that has not passed: next init container waits',
      makePod({ initContainers: [{ ...side1, startupProbe: { exec: { command: ['true'] } } }, init1] }),
      () => status([sandbox()], [running({ ...side1, startupProbe: { exec: { command: ['true'] } } }, { id: 'side-ns' })]),
      probes({ notStarted: ['side-ns'] }),
      { initContainersToStart: [], containersToStart: [] },
    ],
    [
      'sidecar then init done: regular containers start, sidecar kept',
      makePod({ initContainers: [side1, init1] }),
      () => status([sandbox()], [running(side1), exited(init1, 0)]),
      undefined,
      { initContainersToStart: [], containersToStart: [0, 1], kill: [] },
    ],
    [
      'sidecar exited after initialization: restarted, regular containers untouched',
      makePod({ initContainers: [side1, init1] }),
      () => status([sandbox()], [exited(side1, 1), exited(init1, 0), running(c1), running(c2)]),
      undefined,
      { initContainersToStart: [0], containersToStart: [], killPod: false },
    ],
    [
      'sidecar failed liveness: killed and restarted',
      makePod({ initContainers: [side1] }),
      () => status([sandbox()], [running(side1, { id: 'side-l' }), running(c1), running(c2)]),
      probes({ liveness: ['side-l'] }),
      { initContainersToStart: [0], kill: [['side1', 'Init container side1 failed liveness probe']] },
    ],
    [
      'sidecar spec changed: killed and restarted',
      makePod({ initContainers: [side1] }),
      () => status([sandbox()], [running(side1, { hash: '1' }), running(c1), running(c2)]),
      undefined,
      { initContainersToStart: [0], kill: [['side1', 'Init container side1 definition changed']] },
    ],
    [
      'sidecar removed from the runtime after initialization: started again',
      makePod({ initContainers: [side1, init1] }),
      () => status([sandbox()], [running(c1), running(c2)]),
      undefined,
      { initContainersToStart: [0], containersToStart: [] },
    ],
    [
      'regular containers done under OnFailure: pod killed, the running sidecar does not keep it alive',
      makePod({ initContainers: [side1], restartPolicy: 'OnFailure' }),
      () => status([sandbox()], [running(side1), exited(c1, 0), exited(c2, 0)]),
      undefined,
      { killPod: true, initContainersToStart: [], containersToStart: [] },
    ],
  ];
  it.each(table)('%s', (_name, pod, st, probeResults, expected) => {
    check(computePodActions(pod, st(), probeResults === undefined ? {} : { probeResults }), expected);
  });
});

// Status generation shows a container that shouldContainerBeRestarted says will restart as Waiting;
// the sync must then really restart it. A copy without the sidecar rule once let the two disagree.
describe('computePodActions agrees with shouldContainerBeRestarted (the status view)', () => {
  const cases = (['Always', 'OnFailure', 'Never'] as const).flatMap((policy) => [0, 1].map((exitCode) => [policy, exitCode] as const));
  it.each(cases)('an exited sidecar and an exited container under restartPolicy %s, exit code %d', (policy, exitCode) => {
    const pod = makePod({ restartPolicy: policy, initContainers: [side1] });
    const st = status([sandbox()], [running(c1), exited(side1, exitCode), exited(c2, exitCode)]);
    const actions = computePodActions(pod, st);
    expect(actions.killPod).toBe(false);
    // a sidecar restarts under every policy and exit code, in both views
    expect(shouldContainerBeRestarted(side1, pod, st)).toBe(true);
    expect(actions.initContainersToStart).toEqual([0]);
    expect(actions.containersToStart.includes(1)).toBe(shouldContainerBeRestarted(c2, pod, st));
  });
});

describe('computePodActions: ephemeral containers', () => {
  const dbg = { name: 'dbg', image: 'busybox', targetContainerName: 'c1' };
  const dbg2 = { name: 'dbg2', image: 'busybox' };

  it('starts an ephemeral container the runtime has no instance of, and keeps the regular ones', () => {
    const pod = makePod({ ephemeralContainers: [dbg, dbg2] });
    const dbg2Ran = running(dbg2);
    const actions = computePodActions(pod, status([sandbox()], [running(c1), running(c2), dbg2Ran]));
    check(actions, { killPod: false, createSandbox: false, ephemeralContainersToStart: [0], containersToStart: [], kill: [] });
  });

  it('never restarts one: an exited (or unknown) instance means it ran, whatever the restart policy', () => {
    for (const restartPolicy of ['Always', 'OnFailure', 'Never']) {
      const pod = makePod({ restartPolicy, ephemeralContainers: [dbg, dbg2] });
      const s = status([sandbox()], [running(c1), running(c2), exited(dbg, 1), running(dbg2, { state: 'unknown' })]);
      check(computePodActions(pod, s), { killPod: false, ephemeralContainersToStart: [], containersToStart: [], kill: [] });
    }
  });

  it('a running ephemeral container is in the spec: it is not killed as NotInSpec', () => {
    const pod = makePod({ ephemeralContainers: [dbg] });
    check(computePodActions(pod, status([sandbox()], [running(c1), running(c2), running(dbg)])), { killPod: false, kill: [] });
    // Without it in the spec the same container is killed.
    const without = computePodActions(makePod(), status([sandbox()], [running(c1), running(c2), running(dbg)]));
    expect(without.containersToKill.map((k) => [k.name, k.reason])).toEqual([['dbg', 'NotInSpec']]);
  });

  it('starts before initialization is done (upstream step 5), next to the init container that runs', () => {
    const pod = makePod({ initContainers: [init1, init2], ephemeralContainers: [dbg] });
    const actions = computePodActions(pod, status([sandbox()], [running(init1)]));
    check(actions, { killPod: false, ephemeralContainersToStart: [0], initContainersToStart: [], containersToStart: [] });
  });

  it('a new sandbox starts no ephemeral container: they never restart, even in a new sandbox', () => {
    const pod = makePod({ ephemeralContainers: [dbg] });
    check(computePodActions(pod, status([], [])), { createSandbox: true, containersToStart: [0, 1], ephemeralContainersToStart: [] });
  });

  it('does not count for keeping the pod: a finished pod with a running ephemeral container is killed, nothing started', () => {
    const pod = makePod({ restartPolicy: 'Never', ephemeralContainers: [dbg, dbg2] });
    const actions = computePodActions(pod, status([sandbox()], [exited(c1, 0), exited(c2, 0), running(dbg)]));
    check(actions, { killPod: true, createSandbox: false, ephemeralContainersToStart: [], containersToStart: [] });
  });
});
