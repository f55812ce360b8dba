/**
 * Issue 18, first slice: the authenticated server on `port`, through the real API server's node
 * proxy (`kubectl logs`, `kubectl get --raw …/proxy/…`) and directly (401 without credentials, 403
 * for a token whose user may not proxy to nodes), with the self-signed serving pair in --cert-dir.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { controlPlaneEnv } from '@kubelet-ts/test-support';
import { BUSYBOX, createKubelet, eventually, httpsGet } from './harness.js';
import type { KubeletUnderTest } from './harness.js';
import { conditionOf, kubectlFor } from './kubectl.js';

const cp = controlPlaneEnv();
const kubectl = kubectlFor(cp);
const ns = `kts-srv-${randomBytes(3).toString('hex')}`;
let kubelet: KubeletUnderTest;
let port = 0;

beforeAll(async () => {
  kubelet = await createKubelet('srv', { apiServer: { bootstrapKubeconfig: cp.bootstrapKubeconfig, nodeIp: cp.nodeIp } });
  await kubectl('create', 'namespace', ns);
  await kubelet.start();
  const node = await eventually(
    `node ${kubelet.nodeName} Ready`,
    async () => {
      if (!kubelet.running()) throw new Error(`kubelet exited:\n${kubelet.output().slice(-4000)}`);
      const n = await kubectl.get<{ status?: { daemonEndpoints?: { kubeletEndpoint?: { Port?: number } } } }>('node', kubelet.nodeName);
      return conditionOf(n as never, 'Ready') === 'True' ? n : undefined;
    },
    150_000,
    500,
  );
  port = node.status?.daemonEndpoints?.kubeletEndpoint?.Port ?? 0;
}, 200_000);

afterAll(async () => {
  await kubectl('delete', 'namespace', ns, '--timeout=120s').catch(() => undefined);
  await kubelet?.cleanup();
  await kubectl('delete', 'node', kubelet.nodeName, '--wait=false').catch(() => undefined);
}, 180_000);

function direct(path: string, token?: string): Promise<{ status: number; body: string }> {
  return httpsGet({
    host: cp.nodeIp,
    port,
    path,
    rejectUnauthorized: false,
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
}

it('serves kubectl logs (with --tail and --timestamps) through the API server', async () => {
  await kubectl.apply({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'talker', namespace: ns },
    spec: {
      nodeName: kubelet.nodeName,
      terminationGracePeriodSeconds: 1,
      automountServiceAccountToken: false,
      containers: [{ name: 'c', image: BUSYBOX(), command: ['sh', '-c', 'echo one; echo two; echo three; sleep 3600'] }],
    },
  });
  const logs = await eventually(
    'the pod log',
    async () => {
      const out = await kubectl('logs', '-n', ns, 'talker').catch(() => '');
      return out.includes('three') ? out : undefined;
    },
    90_000,
    500,
  );
  expect(logs).toBe('one\ntwo\nthree\n');
  expect(await kubectl('logs', '-n', ns, 'talker', '--tail=1')).toBe('three\n');
  const stamped = (await kubectl('logs', '-n', ns, 'talker', '--timestamps')).trim().split('\n');
  expect(stamped).toHaveLength(3);
  expect(stamped[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z one$/);
  // Past kubectl's own check, the kubelet's: a container the pod does not have is a 404 with upstream's text.
  await expect(kubectl('get', '--raw', `/api/v1/nodes/${kubelet.nodeName}/proxy/containerLogs/${ns}/talker/nope`)).rejects.toThrow(
    /not found|NotFound/,
  );
}, 180_000);

it('answers /pods and /stats/summary through the node proxy', async () => {
  const summary = JSON.parse(await kubectl('get', '--raw', `/api/v1/nodes/${kubelet.nodeName}/proxy/stats/summary`)) as {
    node?: { nodeName?: string };
  };
  expect(summary.node?.nodeName).toBe(kubelet.nodeName);
  const pods = JSON.parse(await kubectl('get', '--raw', `/api/v1/nodes/${kubelet.nodeName}/proxy/pods`)) as {
    kind: string;
    items: Array<{ metadata: { name: string } }> | null;
  };
  expect(pods.kind).toBe('PodList');
  expect((pods.items ?? []).map((p) => p.metadata.name)).toContain('talker');
});

it('refuses requests without credentials (401) and a user without node rights (403), with a self-signed serving pair', async () => {
  expect(port).toBeGreaterThan(0);
  expect(await direct('/pods')).toEqual({ status: 401, body: 'Unauthorized' });
  await kubectl('create', 'serviceaccount', '-n', ns, 'nobody');
  const token = (await kubectl('create', 'token', '-n', ns, 'nobody')).trim();
  const refused = await direct('/stats/summary', token);
  expect(refused.status).toBe(403);
  expect(refused.body).toBe(`Forbidden (user=system:serviceaccount:${ns}:nobody, verb=get, resource=nodes, subresource(s)=[stats])\n`);
  expect(await direct('/containerLogs/x/y/z', 'not-a-token')).toMatchObject({ status: 401 });
  const crt = await fs.readFile(`${kubelet.certDir}/kubelet.crt`, 'utf8');
  expect(crt.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
});
