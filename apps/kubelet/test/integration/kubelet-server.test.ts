/**
 * Issue 18: the authenticated server on `port`, through the real API server's node proxy
 * (`kubectl logs`, `exec`, `attach`, `port-forward`, `cp`, `get --raw …/proxy/…`) and directly (401 without credentials, 403
 * for a token whose user may not proxy to nodes), with the self-signed serving pair in --cert-dir.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { X509Certificate, generateKeyPairSync, randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type https from 'node:https';
import { request as httpsRequest } from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { TLSSocket } from 'node:tls';
import { createTestCa } from '@kubelet-ts/certificate-manager/testing';
import type { TestCa } from '@kubelet-ts/certificate-manager/testing';
import { controlPlaneEnv } from '@kubelet-ts/test-support';
import { createKubelet, eventually, freePort, httpsGet } from './harness.js';
import type { KubeletUnderTest } from './harness.js';
import type { ClusterKubelet } from './cluster-kubelet.js';
import { startClusterKubelet } from './cluster-kubelet.js';
import { kubectlFor } from './kubectl.js';
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

let cluster: ClusterKubelet;

/** The kubelet's clientCAFile: a copy of the cluster CA the reload test may change. */
let clientCaFile: string;

beforeAll(async () => {
  clientCaFile = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'kts-client-ca-')), 'ca.crt');
  await fs.copyFile(cp.caFile, clientCaFile);
  cluster = await startClusterKubelet(cp, kubectl, 'srv', ns, { config: [`authentication: {x509: {clientCAFile: ${clientCaFile}}}`] });
  kubelet = cluster.kubelet;
  port = cluster.node.status?.daemonEndpoints?.kubeletEndpoint?.Port ?? 0;
}, 200_000);

afterAll(() => cluster?.teardown(), 180_000);

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

describe('/configz, /runningpods/ and /logs/ through the node proxy', () => {
  const raw = (p: string): Promise<string> => kubectl('get', '--raw', `/api/v1/nodes/${kubelet.nodeName}/proxy${p}`);

  it('/configz gives the configuration in effect', async () => {
    const { kubeletconfig } = JSON.parse(await raw('/configz')) as { kubeletconfig: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(kubeletconfig['port']).toBe(port);
    expect(kubeletconfig['authentication']?.anonymous?.enabled).toBe(false);
    expect(kubeletconfig['authorization']?.mode).toBe('Webhook');
    expect(kubeletconfig['kind']).toBeUndefined();
  });

  it('/runningpods/ lists what the runtime runs', async () => {
    const list = JSON.parse(await raw('/runningpods/')) as {
      kind: string;
      items: Array<{ metadata: { name: string; namespace: string }; spec: { containers: Array<{ name: string }> } }> | null;
    };
    expect(list.kind).toBe('PodList');
    const shell = (list.items ?? []).find((p) => p.metadata.name === 'shell' && p.metadata.namespace === ns);
    expect(shell?.spec.containers.map((c) => c.name).sort()).toEqual(['echoer', 'twice', 'web']);
  });

  it('/logs/ serves the files of /var/log, and nothing outside it', async () => {
    const name = `kubelet-ts-it-${randomBytes(4).toString('hex')}.log`;
    await fs.writeFile(`/var/log/${name}`, 'a node log line\n');
    try {
      expect(await raw(`/logs/${name}`)).toBe('a node log line\n');
      expect(await raw('/logs/')).toContain(`<a href="${name}">${name}</a>`);
      const escaped = await kubectl.run(['get', '--raw', `/api/v1/nodes/${kubelet.nodeName}/proxy/logs/..%2f..%2fetc%2fpasswd`]);
      expect(escaped.code).not.toBe(0);
      expect(escaped.stdout).not.toContain('root:');
    } finally {
      await fs.rm(`/var/log/${name}`, { force: true });
    }
  });
});

describe('hostile input on the kubelet port', () => {
  let admin: { cert: string; key: string };
  let expired: { cert: string; key: string };
  let stranger: { cert: string; key: string };

  beforeAll(async () => {
    const clusterCa = createTestCa({
      existing: { certificatePem: await fs.readFile(cp.caFile, 'utf8'), keyPem: await fs.readFile(cp.caKeyFile, 'utf8') },
    });
    const keyPair = (): { publicKey: KeyObject; keyPem: string } => {
      const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
      return { publicKey, keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
    };
    const hour = 3600_000;
    const now = Date.now();
    const issue = (ca: TestCa, notBefore: number, notAfter: number): { cert: string; key: string } => {
      const k = keyPair();
      const subject = { commonName: 'kts-it-admin', organization: ['system:masters'] };
      return { cert: ca.issue({ subject, publicKey: k.publicKey, notBefore, notAfter }), key: k.keyPem };
    };
    admin = issue(clusterCa, now - hour, now + hour);
    expired = issue(clusterCa, now - 3 * hour, now - hour);
    stranger = issue(createTestCa(), now - hour, now + hour);
  });

  const get = (p: string, options: https.RequestOptions = {}) =>
    httpsGet({ host: cp.nodeIp, port, path: p, rejectUnauthorized: false, ...options });
  const stillServing = async (): Promise<void> => {
    expect(await get('/healthz', { cert: admin.cert, key: admin.key })).toEqual({ status: 200, body: 'ok' });
  };

  it('takes a client certificate of the cluster CA, refuses an expired one and one of another CA (401)', async () => {
    expect((await get('/pods', { cert: admin.cert, key: admin.key })).status).toBe(200);
    expect(await get('/pods', { cert: expired.cert, key: expired.key })).toEqual({ status: 401, body: 'Unauthorized' });
    expect(await get('/pods', { cert: stranger.cert, key: stranger.key })).toEqual({ status: 401, body: 'Unauthorized' });
    await stillServing();
  });

  it('refuses bad tokens, including a huge one, with 401', async () => {
    for (const token of ['', 'x', 'a.b.c', 'ey'.repeat(200_000)]) {
      const answer = await get('/pods', { headers: { authorization: `Bearer ${token}` } });
      expect([token.length, answer.status]).toEqual([token.length, token.length > 400_000 ? 431 : 401]);
    }
    await stillServing();
  });

  it('closes connections that do not speak TLS, and headers over 1 MiB get 431', async () => {
    const plain = await new Promise<string>((resolve) => {
      const socket = netConnect(port, cp.nodeIp, () => socket.write('GET /pods HTTP/1.1\r\nHost: x\r\n\r\n'));
      let data = '';
      socket.on('data', (d: Buffer) => (data += d.toString('latin1')));
      socket.on('close', () => resolve(data));
      socket.on('error', () => undefined);
    });
    expect(plain).not.toContain('"PodList"');
    // Node answers 431 and closes; the client may see the close (ECONNRESET) before the answer.
    const big = await get('/pods', { cert: admin.cert, key: admin.key, headers: { 'x-filler': 'f'.repeat(1_100_000) } }).catch(
      (err: Error) => ({ status: 0, body: err.message }),
    );
    expect(big.status === 431 || /ECONNRESET|EPIPE|socket hang up/.test(big.body)).toBe(true);
    expect(big.body).not.toContain('PodList');
    await stillServing();
  });

  it('keeps serving while slow clients trickle their headers', async () => {
    const slow = Array.from({ length: 20 }, () =>
      tlsConnect({ host: cp.nodeIp, port, rejectUnauthorized: false }, function (this: TLSSocket) {
        this.write('GET /pods HTTP/1.1\r\nHost: x\r\n');
      }),
    );
    const drip = setInterval(() => slow.forEach((s) => s.write('X-Slow: 1\r\n')), 200);
    try {
      for (let i = 0; i < 5; i++) await stillServing();
    } finally {
      clearInterval(drip);
      slow.forEach((s) => s.destroy());
    }
  });

  it('does not let paths escape: traversal in /containerLogs and /logs/', async () => {
    const auth = { cert: admin.cert, key: admin.key };
    for (const p of [
      '/containerLogs/..%2f..%2f..%2fetc/passwd/x',
      `/containerLogs/${ns}/shell/..%2f..%2f..%2f..%2fetc%2fpasswd`,
      '/logs/..%2f..%2fetc%2fpasswd',
      '/logs/%2e%2e/%2e%2e/etc/passwd',
      '/logs/../../etc/passwd',
    ]) {
      const answer = await get(p, auth);
      expect([p, answer.status >= 400, answer.body.includes('root:')]).toEqual([p, true, false]);
    }
    await stillServing();
  });
});

describe('WebSocket tokens, a reloaded client CA, /logs/ ranges and the debug endpoints', () => {
  const raw = (p: string): Promise<string> => kubectl('get', '--raw', `/api/v1/nodes/${kubelet.nodeName}/proxy${p}`);
  const issueClient = (ca: TestCa): { cert: string; key: string } => {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const now = Date.now();
    const subject = { commonName: 'kts-it-admin', organization: ['system:masters'] };
    return {
      cert: ca.issue({ subject, publicKey, notBefore: now - 3600_000, notAfter: now + 3600_000 }),
      key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    };
  };

  /**
   * The status line of a WebSocket upgrade of an exec in the shell pod, with these subprotocols. The
   * exec protocol is v4: containerd 2.2's streaming server refuses v5 (403 from its handshake).
   */
  const upgradeStatus = (protocols: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const socket = tlsConnect({ host: cp.nodeIp, port, rejectUnauthorized: false }, () =>
        socket.write(
          [
            `GET /exec/${ns}/shell/web?command=true&output=1 HTTP/1.1`,
            `Host: ${cp.nodeIp}:${port}`,
            'Connection: Upgrade',
            'Upgrade: websocket',
            'Sec-WebSocket-Version: 13',
            `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
            `Sec-WebSocket-Protocol: ${protocols}`,
            '',
            '',
          ].join('\r\n'),
        ),
      );
      // The status line, and for a refusal its body's text (the authorizer's reason).
      let answer = '';
      socket.on('data', (d: Buffer) => {
        answer += d.toString('latin1');
        const end = answer.indexOf('\r\n');
        if (end < 0) return;
        const status = answer.slice(0, end);
        const body = answer.indexOf('\r\n\r\n');
        if (status.includes(' 101 ') || (body >= 0 && answer.length > body + 4)) {
          socket.destroy();
          resolve(status.includes(' 101 ') ? status : `${status} ${answer.slice(body + 4).trim()}`);
        }
      });
      socket.on('end', () => resolve(answer.split('\r\n')[0] ?? ''));
      socket.on('error', reject);
    });

  it('takes a bearer token in the WebSocket subprotocol (base64url.bearer.authorization.k8s.io.): 101 with rights, 403 without, 401 for a bad one', async () => {
    await kubectl('create', 'serviceaccount', '-n', ns, 'debugger');
    await kubectl('create', 'serviceaccount', '-n', ns, 'plain');
    await kubectl('create', 'clusterrole', `${ns}-node-proxy`, '--verb=get,create', '--resource=nodes/proxy');
    await kubectl('create', 'clusterrolebinding', `${ns}-node-proxy`, `--clusterrole=${ns}-node-proxy`, `--serviceaccount=${ns}:debugger`);
    const bearer = (token: string): string =>
      `v4.channel.k8s.io, base64url.bearer.authorization.k8s.io.${Buffer.from(token).toString('base64url')}`;
    try {
      const allowed = (await kubectl('create', 'token', '-n', ns, 'debugger')).trim();
      // Only once the API server's RBAC has the binding: a denial would be cached by the kubelet (cacheUnauthorizedTTL).
      await eventually(
        'RBAC allows the debugger nodes/proxy',
        async () =>
          (
            await kubectl.run(['auth', 'can-i', 'create', 'nodes', '--subresource=proxy', `--as=system:serviceaccount:${ns}:debugger`])
          ).stdout.trim() === 'yes',
        30_000,
        500,
      );
      // RBAC is read by the authorizer's cache: the binding may take a moment.
      expect(
        await eventually(
          'an allowed upgrade',
          async () => {
            const line = await upgradeStatus(bearer(allowed));
            if (!line.includes(' 101 ')) throw new Error(line);
            return '101';
          },
          30_000,
          1000,
        ),
      ).toBe('101');
      const plain = (await kubectl('create', 'token', '-n', ns, 'plain')).trim();
      expect(await upgradeStatus(bearer(plain))).toMatch(/^HTTP\/1\.1 403 /);
      expect(await upgradeStatus(bearer('not-a-token'))).toMatch(/^HTTP\/1\.1 401 /);
      expect(await upgradeStatus('v4.channel.k8s.io')).toMatch(/^HTTP\/1\.1 401 /);
    } finally {
      await kubectl('delete', 'clusterrolebinding', `${ns}-node-proxy`).catch(() => undefined);
      await kubectl('delete', 'clusterrole', `${ns}-node-proxy`).catch(() => undefined);
    }
  }, 60_000);

  it('reloads authentication.x509.clientCAFile: a client of a new CA is let in without a restart; a broken file keeps the last bundle', async () => {
    const newCa = createTestCa({ commonName: 'kts-it rotated client CA' });
    const client = issueClient(newCa);
    // A new connection each time: a connection verifies its client certificate once, at its handshake.
    const get = () => httpsGet({ host: cp.nodeIp, port, path: '/healthz', rejectUnauthorized: false, agent: false, ...client });
    expect((await get()).status).toBe(401);
    await fs.writeFile(clientCaFile, `${await fs.readFile(cp.caFile, 'utf8')}${newCa.certificatePem}`);
    const taken = async (): Promise<number> => {
      const answer = await get();
      if (answer.status !== 200) throw new Error(`${answer.status} ${answer.body}`);
      return 200;
    };
    expect(await eventually('the new CA taken', taken, 75_000, 500)).toBe(200);
    await fs.writeFile(clientCaFile, 'not a certificate\n');
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect((await get()).status).toBe(200);
    await fs.copyFile(cp.caFile, clientCaFile);
  }, 120_000);

  it('/logs/ answers a byte range with 206 and an unsatisfiable one with 416', async () => {
    const name = `kubelet-ts-it-${randomBytes(4).toString('hex')}.log`;
    await fs.writeFile(`/var/log/${name}`, '0123456789');
    const clusterCa = createTestCa({
      existing: { certificatePem: await fs.readFile(cp.caFile, 'utf8'), keyPem: await fs.readFile(cp.caKeyFile, 'utf8') },
    });
    const admin = issueClient(clusterCa);
    const ranged = (range: string) =>
      new Promise<{ status: number; contentRange: string | undefined; body: string }>((resolve, reject) => {
        const req = httpsRequest(
          { host: cp.nodeIp, port, path: `/logs/${name}`, rejectUnauthorized: false, ...admin, headers: { range } },
          (res) => {
            let body = '';
            res.on('data', (d: Buffer) => (body += d.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, contentRange: res.headers['content-range'], body }));
          },
        );
        req.on('error', reject);
        req.end();
      });
    try {
      expect(await ranged('bytes=2-5')).toEqual({ status: 206, contentRange: 'bytes 2-5/10', body: '2345' });
      expect(await ranged('bytes=-3')).toEqual({ status: 206, contentRange: 'bytes 7-9/10', body: '789' });
      expect(await ranged('bytes=20-30')).toMatchObject({ status: 416, contentRange: 'bytes */10' });
    } finally {
      await fs.rm(`/var/log/${name}`, { force: true });
    }
  });

  it('/debug/pprof/ gives a V8 CPU profile, /debug/flags/v sets the log verbosity (node proxy, PUT)', async () => {
    expect(await raw('/debug/pprof/')).toContain('profile');
    const profile = JSON.parse(await raw('/debug/pprof/profile?seconds=1')) as { nodes?: unknown[]; startTime?: number; endTime?: number };
    expect(profile.nodes?.length).toBeGreaterThan(0);
    expect((profile.endTime ?? 0) - (profile.startTime ?? 0)).toBeGreaterThanOrEqual(900_000);
    const body = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'kts-flags-')), 'v');
    await fs.writeFile(body, '6');
    const put = await kubectl.run(['replace', '--raw', `/api/v1/nodes/${kubelet.nodeName}/proxy/debug/flags/v`, '-f', body]);
    expect([put.code, put.stdout.trim()]).toEqual([0, 'successfully set klog.logging.verbosity to 6']);
    // Back to the suite's level.
    await fs.writeFile(body, '4');
    expect((await kubectl.run(['replace', '--raw', `/api/v1/nodes/${kubelet.nodeName}/proxy/debug/flags/v`, '-f', body])).code).toBe(0);
  }, 60_000);
});

describe('serverTLSBootstrap: a serving certificate from the cluster', () => {
  let bootstrapped: KubeletUnderTest | undefined;
  afterAll(async () => {
    await bootstrapped?.cleanup();
    if (bootstrapped !== undefined) await kubectl('delete', 'node', bootstrapped.nodeName, '--wait=false').catch(() => undefined);
  }, 120_000);

  it('requests a kubelet-serving CSR for the node addresses, serves nothing until it is approved, then the signed certificate', async () => {
    const k = await createKubelet('srv-tls', {
      apiServer: { bootstrapKubeconfig: cp.bootstrapKubeconfig, nodeIp: cp.nodeIp },
      config: ['serverTLSBootstrap: true'],
    });
    bootstrapped = k;
    await k.start();
    type Csr = {
      metadata: { name: string };
      spec: { signerName: string; username: string; usages: string[] };
      status?: { certificate?: string };
    };
    const csr = await eventually(
      'the kubelet-serving CSR',
      async () => {
        if (!k.running()) throw new Error(`kubelet exited:\n${k.output().slice(-4000)}`);
        const list = await kubectl.json<{ items: Csr[] }>('get', 'csr');
        return list.items.find(
          (c) => c.spec.signerName === 'kubernetes.io/kubelet-serving' && c.spec.username === `system:node:${k.nodeName}`,
        );
      },
      150_000,
      500,
    );
    expect([...csr.spec.usages].sort()).toEqual(['digital signature', 'server auth']);
    const node = await eventually(
      'the node port',
      async () =>
        (await kubectl.get<{ status?: { daemonEndpoints?: { kubeletEndpoint?: { Port?: number } } } }>('node', k.nodeName))?.status,
      60_000,
      500,
    );
    const kubeletPort = node.daemonEndpoints?.kubeletEndpoint?.Port ?? 0;
    const handshake = (): Promise<{ issuer: string; san: string } | string> =>
      new Promise((resolve) => {
        const socket = tlsConnect({ host: cp.nodeIp, port: kubeletPort, ca: clusterCaPem }, () => {
          const peer = socket.getPeerX509Certificate();
          resolve({ issuer: peer?.issuer ?? '', san: peer?.subjectAltName ?? '' });
          socket.destroy();
        });
        socket.on('error', (err) => resolve(`error: ${err.message}`));
      });
    const clusterCaPem = await fs.readFile(cp.caFile, 'utf8');
    // The port is open, but without a certificate no handshake completes.
    await eventually(
      'the kubelet port accepting connections',
      () =>
        new Promise<boolean>((resolve) => {
          const socket = netConnect(kubeletPort, cp.nodeIp, () => {
            socket.destroy();
            resolve(true);
          });
          socket.on('error', () => resolve(false));
        }),
      60_000,
      500,
    );
    expect(await handshake()).toMatch(/^error: /);
    await kubectl('certificate', 'approve', csr.metadata.name);
    const served = await eventually(
      'the signed serving certificate on the kubelet port',
      async () => {
        const answer = await handshake();
        return typeof answer === 'string' ? undefined : answer;
      },
      60_000,
      500,
    );
    // Verified against the cluster CA, for the node IP: what --kubelet-certificate-authority would check.
    expect(served.san).toContain(`IP Address:${cp.nodeIp}`);
    expect(served.issuer).toBe(new X509Certificate(clusterCaPem).subject);
    const files = await fs.readdir(k.certDir);
    expect(files).toContain('kubelet-server-current.pem');
  }, 240_000);
});

describe('a real Prometheus scraping the kubelet with a bearer token', () => {
  let prometheus: ChildProcess | undefined;
  let dir = '';
  afterAll(async () => {
    prometheus?.kill();
    if (dir !== '') await fs.rm(dir, { recursive: true, force: true });
  });

  it('finds every metrics endpoint up and records kubelet_running_pods and kubelet_pod_start_duration_seconds', async () => {
    // The scraper's rights: get on nodes/metrics (upstream's subresource for /metrics*), nothing more.
    await kubectl.apply({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'scraper', namespace: ns } },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: `${ns}-scraper` },
          rules: [{ apiGroups: [''], resources: ['nodes/metrics'], verbs: ['get'] }],
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: `${ns}-scraper` },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${ns}-scraper` },
          subjects: [{ kind: 'ServiceAccount', name: 'scraper', namespace: ns }],
        },
      ],
    });
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'kts-prometheus-'));
    await fs.writeFile(path.join(dir, 'token'), (await kubectl('create', 'token', '-n', ns, 'scraper')).trim());
    const job = (name: string, metricsPath: string) => ({
      job_name: name,
      metrics_path: metricsPath,
      scheme: 'https',
      scrape_interval: '1s',
      scrape_timeout: '1s',
      tls_config: { insecure_skip_verify: true },
      authorization: { credentials_file: path.join(dir, 'token') },
      static_configs: [{ targets: [`${cp.nodeIp}:${port}`] }],
    });
    const config = {
      global: { scrape_interval: '1s' },
      scrape_configs: [
        job('kubelet', '/metrics'),
        job('cadvisor', '/metrics/cadvisor'),
        job('resource', '/metrics/resource'),
        job('probes', '/metrics/probes'),
      ],
    };
    // JSON is YAML: Prometheus reads it as its configuration file.
    await fs.writeFile(path.join(dir, 'prometheus.yml'), JSON.stringify(config));
    const webPort = await freePort();
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${webPort}`,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let log = '';
    prometheus.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    const api = async <T>(p: string): Promise<T | undefined> => {
      const res = await fetch(`http://127.0.0.1:${webPort}${p}`).catch(() => undefined);
      return res?.ok === true ? ((await res.json()) as T) : undefined;
    };
    type Targets = { data: { activeTargets: Array<{ scrapePool: string; health: string; lastError: string }> } };
    const targets = await eventually(
      'every target up',
      async () => {
        if (prometheus?.exitCode !== null) throw new Error(`prometheus exited: ${log.slice(-2000)}`);
        const t = await api<Targets>('/api/v1/targets');
        const active = t?.data.activeTargets ?? [];
        return active.length === 4 && active.every((a) => a.health === 'up') ? active : undefined;
      },
      60_000,
      500,
    );
    expect(targets.map((t) => [t.scrapePool, t.lastError]).sort()).toEqual([
      ['cadvisor', ''],
      ['kubelet', ''],
      ['probes', ''],
      ['resource', ''],
    ]);
    type Query = { data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
    /** The first sample's value once it is at least `min` (Prometheus answers 0 before a pod ran). */
    const atLeast = (query: string, min: number): Promise<number> =>
      eventually(
        query,
        async () => {
          const q = await api<Query>(`/api/v1/query?query=${encodeURIComponent(query)}`);
          const v = Number(q?.data.result[0]?.value[1] ?? NaN);
          return v >= min ? v : undefined;
        },
        30_000,
        500,
      );
    // The suite's pods ran on this kubelet: it counts them, and timed their start.
    expect(await atLeast('kubelet_running_pods{job="kubelet"}', 1)).toBeGreaterThanOrEqual(1);
    expect(await atLeast('kubelet_pod_start_duration_seconds_count{job="kubelet"}', 1)).toBeGreaterThanOrEqual(1);
    expect(await atLeast('node_cpu_usage_seconds_total{job="resource"}', Number.MIN_VALUE)).toBeGreaterThan(0);
  }, 120_000);
});
