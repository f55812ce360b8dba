/**
 * Issue 18: the authenticated server on `port`, through the real API server's node proxy
 * (`kubectl logs`, `exec`, `attach`, `port-forward`, `cp`, `get --raw …/proxy/…`) and directly (401 without credentials, 403
 * for a token whose user may not proxy to nodes), with the self-signed serving pair in --cert-dir.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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

/** Collects a child's stdout and stderr until `pattern` shows in stdout; rejects when it exits first or after `timeoutMs`. */
function outputOf(child: ChildProcess, pattern: RegExp, timeoutMs = 60_000): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`no ${String(pattern)} after ${timeoutMs} ms: ${out} ${err}`)), timeoutMs);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const match = pattern.exec(out);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match);
      }
    });
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ${String(pattern)}: ${out} ${err}`));
    });
  });
}

describe('streaming through the API server (exec, attach, port-forward, cp, run)', () => {
  const pod = 'shell';
  beforeAll(async () => {
    await kubectl.apply({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: pod, namespace: ns },
      spec: {
        nodeName: kubelet.nodeName,
        terminationGracePeriodSeconds: 1,
        automountServiceAccountToken: false,
        containers: [
          {
            name: 'web',
            image: BUSYBOX(),
            command: ['sh', '-c', 'mkdir -p /www && echo "hello from shell" > /www/index.html && exec httpd -f -p 8080 -h /www'],
          },
          { name: 'echoer', image: BUSYBOX(), stdin: true, command: ['sh', '-c', 'while read line; do echo "got:$line"; done'] },
        ],
      },
    });
    await eventually(
      'the shell pod running',
      async () => {
        const p = await kubectl.get<{ status?: { containerStatuses?: Array<{ ready: boolean }> } }>('pod', '-n', ns, pod);
        const statuses = p?.status?.containerStatuses ?? [];
        return statuses.length === 2 && statuses.every((s) => s.ready);
      },
      90_000,
      500,
    );
  }, 120_000);

  it('kubectl exec: output, exit code, stderr and stdin', async () => {
    const result = await kubectl.run(['exec', '-n', ns, pod, '-c', 'web', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3']);
    expect(result).toMatchObject({ code: 3, stdout: 'out\n' });
    expect(result.stderr).toContain('err\n');
    const upper = await kubectl.run(['exec', '-i', '-n', ns, pod, '-c', 'web', '--', 'tr', 'a-z', 'A-Z'], 'hello stdin\n');
    expect(upper).toMatchObject({ code: 0, stdout: 'HELLO STDIN\n' });
  }, 60_000);

  it('kubectl exec -it: a shell on a terminal', async () => {
    // script(1) gives kubectl the terminal it wants for -t; the shell's answer comes back through it.
    const command = ['kubectl', ...kubectl.baseArgs, 'exec', '-it', '-n', ns, pod, '-c', 'web', '--', 'sh'].join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      await outputOf(child, /\/ # /, 20_000);
      const answer = outputOf(child, /tty=\/dev\/pts\/\d+ n=42/, 20_000);
      child.stdin.write('echo tty=$(tty) n=$((6*7))\r');
      await answer;
      child.stdin.write('exit\r');
    } finally {
      child.kill();
    }
  }, 60_000);

  it('kubectl attach -i: stdin reaches the running process and its output comes back', async () => {
    const child = kubectl.spawn(['attach', '-i', '-n', ns, pod, '-c', 'echoer']);
    try {
      const got = outputOf(child, /got:ping/);
      // kubectl attaches before it copies stdin; a line sent later also reaches the process.
      child.stdin?.write('ping\n');
      const again = setInterval(() => child.stdin?.write('ping\n'), 1000);
      await got.finally(() => clearInterval(again));
    } finally {
      child.kill();
    }
  }, 60_000);

  it('kubectl port-forward: HTTP through the forwarded port', async () => {
    const child = kubectl.spawn(['port-forward', '-n', ns, `pod/${pod}`, ':8080']);
    try {
      const [, local] = await outputOf(child, /Forwarding from 127\.0\.0\.1:(\d+) -> 8080/);
      const body = await eventually(
        'an answer through the forwarded port',
        async () => {
          const res = await fetch(`http://127.0.0.1:${local}/index.html`).catch(() => undefined);
          return res?.ok === true ? res.text() : undefined;
        },
        30_000,
        500,
      );
      expect(body).toBe('hello from shell\n');
    } finally {
      child.kill();
    }
  }, 60_000);

  it('kubectl cp: a file into the container and back out', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'kts-cp-'));
    try {
      const content = `copied ${randomBytes(8).toString('hex')}\n`;
      await fs.writeFile(path.join(dir, 'in.txt'), content);
      await kubectl('cp', path.join(dir, 'in.txt'), `${ns}/${pod}:/tmp/in.txt`, '-c', 'web');
      expect(await kubectl('exec', '-n', ns, pod, '-c', 'web', '--', 'cat', '/tmp/in.txt')).toBe(content);
      await kubectl('cp', `${ns}/${pod}:/www/index.html`, path.join(dir, 'out.html'), '-c', 'web');
      expect(await fs.readFile(path.join(dir, 'out.html'), 'utf8')).toBe('hello from shell\n');
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('/run through the node proxy gives the output, and a failing command its exit', async () => {
    const base = `/api/v1/nodes/${kubelet.nodeName}/proxy/run/${ns}/${pod}/web`;
    const empty = path.join(os.tmpdir(), `kts-empty-${randomBytes(3).toString('hex')}`);
    await fs.writeFile(empty, '');
    try {
      expect(await kubectl('create', '--raw', `${base}?cmd=echo%20from%20run`, '-f', empty)).toBe('from run\n');
      await expect(kubectl('create', '--raw', `${base}?cmd=false`, '-f', empty)).rejects.toThrow(/exited with 1/);
      // Streaming endpoints want an upgrade; a plain GET through the proxy gets upstream's 500.
      await expect(
        kubectl('get', '--raw', `/api/v1/nodes/${kubelet.nodeName}/proxy/exec/${ns}/${pod}/web?command=ls&output=1`),
      ).rejects.toThrow(/Upgrade request required|InternalError|500/);
    } finally {
      await fs.rm(empty, { force: true });
    }
  }, 60_000);
});
