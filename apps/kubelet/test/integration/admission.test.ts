/**
 * Issue 17, admission (standalone, static pods): upstream's predicates and the sysctl allowlist
 * refuse what the node cannot run; a refused pod ends Failed with the upstream reason and message
 * and none of its containers is ever created, while admitted pods run beside it.
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

test('a pod over the allocatable CPU ends OutOfcpu with the upstream message', async () => {
  await kubelet.writeManifest('big.json', sleeper('big', {}, { requests: { cpu: '1000' } }));
  const { reason, message } = await refusal('big');
  expect(reason).toBe('OutOfcpu');
  expect(message).toMatch(/^Pod was rejected: Node didn't have enough resource: cpu, requested: 1000000, used: 0, capacity: \d+$/);
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

test('with maxPods: 3, the pod after three active ones ends OutOfpods (refused pods do not count)', async () => {
  // msgmax runs already; two more make three active pods.
  await kubelet.writeManifest('two.json', sleeper('two'));
  await kubelet.writeManifest('three.json', sleeper('three'));
  for (const name of ['two', 'three'])
    await eventually(`${name} Running`, async () => (await kubelet.pod(name))?.status?.phase === 'Running', 30_000);
  await kubelet.writeManifest('four.json', sleeper('four'));
  const { reason, message } = await refusal('four');
  expect(reason).toBe('OutOfpods');
  expect(message).toBe("Pod was rejected: Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3");
});
