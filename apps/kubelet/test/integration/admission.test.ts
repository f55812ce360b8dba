/**
 * Issue 17, admission (standalone, static pods): upstream's predicates and the sysctl allowlist
 * refuse what the node cannot run; a refused pod ends Failed with the upstream reason and message
 * and none of its containers is ever created, while admitted pods run beside it. Static pods are
 * critical: short of resources, upstream tries to preempt pods for them, and with only static (as
 * critical) pods to choose from refuses them UnexpectedAdmissionError rather than OutOf<resource>.
 */
import { busyboxPod, createKubelet, criSandboxesOf, eventually, waitHealthy } from './harness.js';
import type { KubeletUnderTest } from './harness.js';

let kubelet: KubeletUnderTest;

beforeAll(async () => {
  kubelet = await createKubelet('admission', { config: ['maxPods: 3', 'allowedUnsafeSysctls: ["kernel.msg*"]'] });
  await kubelet.start();
  await waitHealthy(kubelet);
});

afterAll(async () => {
  await kubelet.cleanup();
});

const refusal = async (name: string): Promise<{ reason?: string; message?: string }> => {
  const pod = await eventually(`${name} Failed`, async () => {
    const p = await kubelet.pod(name);
    return p?.status?.phase === 'Failed' ? p : undefined;
  });
  // Nothing of a refused pod may run: not even its sandbox.
  expect(await criSandboxesOf(kubelet, name)).toEqual([]);
  return { reason: pod.status?.reason, message: pod.status?.message };
};

const sleeper = (name: string, spec: Record<string, unknown> = {}, resources?: Record<string, unknown>): Record<string, unknown> =>
  busyboxPod(name, [{ name: 'c', command: ['sleep', '3600'], ...(resources !== undefined ? { resources } : {}) }], spec);

const NO_PREEMPTION =
  'Pod was rejected: Unexpected error while attempting to recover from admission failure: preemption: error finding a set of pods to preempt: no set of running pods found to reclaim resources: ';

test('a static pod over the allocatable CPU ends UnexpectedAdmissionError: nothing can be preempted for it (upstream message)', async () => {
  await kubelet.writeManifest('big.json', sleeper('big', {}, { requests: { cpu: '1000' } }));
  const { reason, message } = await refusal('big');
  expect(reason).toBe('UnexpectedAdmissionError');
  // What is missing: the request less the free cpu, in millicores.
  expect(message?.slice(0, NO_PREEMPTION.length)).toBe(NO_PREEMPTION);
  expect(message?.slice(NO_PREEMPTION.length)).toMatch(/^\[\(res: cpu, q: \d+\), \]$/);
});

test('an unsafe sysctl ends SysctlForbidden; an allowed unsafe one (allowedUnsafeSysctls) runs', async () => {
  await kubelet.writeManifest(
    'somaxconn.json',
    sleeper('somaxconn', { securityContext: { sysctls: [{ name: 'net.core.somaxconn', value: '1024' }] } }),
  );
  await kubelet.writeManifest(
    'msgmax.json',
    sleeper('msgmax', { securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '65536' }] } }),
  );
  const { reason, message } = await refusal('somaxconn');
  expect(reason).toBe('SysctlForbidden');
  expect(message).toBe('Pod was rejected: forbidden sysctl: "net.core.somaxconn" not allowlisted');
  await eventually('msgmax Running', async () => (await kubelet.pod('msgmax'))?.status?.phase === 'Running', 30_000);
});

test('a node selector the node does not match ends NodeAffinity', async () => {
  await kubelet.writeManifest('elsewhere.json', sleeper('elsewhere', { nodeSelector: { 'kubernetes.io/hostname': 'another-node' } }));
  const { reason, message } = await refusal('elsewhere');
  expect(reason).toBe('NodeAffinity');
  expect(message).toBe("Pod was rejected: Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector");
});

test('with maxPods: 3, the static pod after three active ones is refused for want of a pod slot (refused pods do not count)', async () => {
  // msgmax runs already; two more make three active pods.
  await kubelet.writeManifest('two.json', sleeper('two'));
  await kubelet.writeManifest('three.json', sleeper('three'));
  for (const name of ['two', 'three'])
    await eventually(`${name} Running`, async () => (await kubelet.pod(name))?.status?.phase === 'Running', 30_000);
  await kubelet.writeManifest('four.json', sleeper('four'));
  const { reason, message } = await refusal('four');
  expect(reason).toBe('UnexpectedAdmissionError');
  expect(message).toBe(`${NO_PREEMPTION}[(res: pods, q: 1), ]`);
});
