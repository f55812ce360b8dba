/**
 * Issue 18: the authenticated server on `port`, through the real API server's node proxy
 * (`kubectl logs`, `exec`, `attach`, `port-forward`, `cp`, `get --raw …/proxy/…`) and directly (401 without credentials, 403
 * for a token whose user may not proxy to nodes), with the self-signed serving pair in --cert-dir.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { controlPlaneEnv } from '@kubelet-ts/test-support';
import { createKubelet, eventually, httpsGet } from './harness.js';
import type { KubeletUnderTest } from './harness.js';
import { conditionOf, kubectlFor } from './kubectl.js';
import {
  observeAttach,
  observeCp,
  observeExec,
  observeLogs,
  observePortForward,
  observeRun,
  observeTty,
  startScenarioPod,
} from './kubectl-scenarios.js';

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

describe('kubectl logs, exec, attach, port-forward, cp and /run through the API server', () => {
  const pod = 'shell';
  beforeAll(() => startScenarioPod(kubectl, pod, ns, kubelet.nodeName), 150_000);

  it('kubectl logs: all, --tail, --timestamps, --limit-bytes, --since, --previous', async () => {
    expect(await observeLogs(kubectl, kubelet.nodeName, ns, pod)).toEqual({
      all: 'one\ntwo\nthree\n',
      tail1: 'three\n',
      timestamps: '<time> one\n<time> two\n<time> three\n',
      limitBytes: 'one\ntw',
      sinceFuture: '',
      previous: 'first run\n',
      current: 'second run\n',
      missingContainer: 'Error from server (NotFound): the server could not find the requested resource',
    });
  }, 60_000);

  it('kubectl exec: output, exit code, stderr, stdin, and a container the pod does not have', async () => {
    const seen = await observeExec(kubectl, kubelet.nodeName, ns, pod);
    expect(seen.failing).toMatchObject({ code: 3, stdout: 'out\n' });
    expect(seen.failing.stderr).toContain('err\n');
    expect(seen.stdin).toEqual({ code: 0, stdout: 'HELLO STDIN\n' });
    expect(seen.missingContainer).toMatch(/container not found \(\\?"nope\\?"\)/);
  }, 60_000);

  it('kubectl exec -it: a shell on a terminal', async () => {
    expect(await observeTty(kubectl, ns, pod)).toBe('tty=/dev/pts/N n=42');
  }, 60_000);

  it('kubectl attach -i: stdin reaches the running process and its output comes back', async () => {
    expect(await observeAttach(kubectl, ns, pod)).toBe('got:ping');
  }, 60_000);

  it('kubectl port-forward: HTTP through the forwarded port', async () => {
    expect(await observePortForward(kubectl, ns, pod)).toBe('hello from web\n');
  }, 60_000);

  it('kubectl cp: a file into the container and back out', async () => {
    expect(await observeCp(kubectl, ns, pod)).toEqual({ into: true, out: 'hello from web\n' });
  }, 60_000);

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
    expect((pods.items ?? []).map((p) => p.metadata.name)).toContain('shell');
  });

  it('/run through the node proxy gives the output, a failing command its exit, a plain GET of /exec a 500', async () => {
    const seen = await observeRun(kubectl, kubelet.nodeName, ns, pod);
    expect(seen.output).toBe('from run\n');
    expect(seen.failing).toMatch(/command 'false' exited with 1/);
    expect(seen.notUpgraded).toMatch(/Upgrade request required|InternalError/);
  }, 60_000);
});
