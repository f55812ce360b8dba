import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type { Probe } from '@kubelet-ts/api';
import { newPod } from '@kubelet-ts/api/testing';
import { FakeClock } from '@kubelet-ts/common/testing';
import { CriError } from '@kubelet-ts/cri-client';
import { createCriExecFn } from './cri-exec.js';
import { createProber } from './prober.js';
import { decodeHealthCheckRequest, doGrpcProbe, encodeHealthCheckResponse, HEALTH_CHECK_PATH, ServingStatus } from './probers/grpc.js';
import { doHttpProbe } from './probers/http.js';
import { doTcpProbe } from './probers/tcp.js';
import { FakeExec } from './testing/fake-exec.js';
import type { ProbeTarget, ProbeType } from './types.js';

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));
}

function close(server: net.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  const port = await listen(s);
  await close(s);
  return port;
}

function target(
  probeType: ProbeType,
  probe: Probe,
  extra: { ports?: Array<{ name: string; containerPort: number }>; env?: Array<{ name: string; value: string }> } = {},
): ProbeTarget {
  const key = probeType === 'liveness' ? 'livenessProbe' : probeType === 'readiness' ? 'readinessProbe' : 'startupProbe';
  const pod = newPod({
    containers: [{ name: 'app', [key]: probe, ...(extra.ports ? { ports: extra.ports } : {}), ...(extra.env ? { env: extra.env } : {}) }],
  });
  const container = pod.spec.containers[0];
  if (container === undefined) throw new Error('no container');
  return { probeType, pod, container, containerId: 'c1', podIP: '127.0.0.1' };
}

const never = new AbortController().signal;

describe('httpGet probes against a real server', () => {
  let server: http.Server;
  let port: number;
  let lastHeaders: IncomingHttpHeaders = {};
  const hanging: http.ServerResponse[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      lastHeaders = req.headers;
      const url = req.url ?? '/';
      if (url === '/ok') res.end('ok');
      else if (url === '/fail') res.writeHead(500).end('secret body');
      else if (url === '/redirect-same') res.writeHead(302, { location: '/ok' }).end();
      else if (url === '/redirect-other') res.writeHead(302, { location: `http://localhost:${port}/ok` }).end('moved');
      else if (url === '/loop') res.writeHead(302, { location: '/loop' }).end();
      else if (url === '/not-modified') res.writeHead(304).end();
      else if (url === '/big') res.end('x'.repeat(100 * 1024));
      else if (url === '/hang') hanging.push(res);
      else res.writeHead(404).end();
    });
    port = await listen(server);
  });

  afterAll(async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await close(server);
  });

  const get = (p: string, timeoutMs = 1000): ReturnType<typeof doHttpProbe> =>
    doHttpProbe({ url: new URL(`http://127.0.0.1:${port}${p}`), headers: [['User-Agent', 'kube-probe/1.34']], timeoutMs });

  it('succeeds on 2xx with the body as output', async () => {
    expect(await get('/ok')).toEqual({ result: 'success', output: 'ok' });
  });

  it('fails on 5xx without the body in the output (upstream)', async () => {
    expect(await get('/fail')).toEqual({ result: 'failure', output: 'HTTP probe failed with statuscode: 500' });
    expect(await get('/nope')).toEqual({ result: 'failure', output: 'HTTP probe failed with statuscode: 404' });
  });

  it('follows a redirect to the same host and stops at another host with a warning (a success)', async () => {
    expect(await get('/redirect-same')).toEqual({ result: 'success', output: 'ok' });
    expect(await get('/redirect-other')).toEqual({ result: 'warning', output: 'Probe terminated redirects, Response body: moved' });
    expect(await get('/not-modified')).toEqual({ result: 'warning', output: 'Probe terminated redirects, Response body: ' });
    expect((await get('/loop')).output).toMatch(/stopped after 10 redirects/);
  });

  it('reads at most 10 KiB of the body', async () => {
    const r = await get('/big');
    expect(r.result).toBe('success');
    expect(r.output).toHaveLength(10 * 1024);
  });

  it('fails when the server does not answer within the timeout', async () => {
    const started = Date.now();
    const r = await get('/hang', 300);
    expect(r.result).toBe('failure');
    expect(r.output).toBe(
      `Get "http://127.0.0.1:${port}/hang": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('fails with the dial error when nothing listens', async () => {
    const p = await closedPort();
    const r = await doHttpProbe({ url: new URL(`http://127.0.0.1:${p}/`), headers: [], timeoutMs: 1000 });
    expect(r).toEqual({ result: 'failure', output: `Get "http://127.0.0.1:${p}/": dial tcp 127.0.0.1:${p}: connect: connection refused` });
  });

  it('builds the request as upstream: pod IP, named port, path, User-Agent, Accept, headers and a Host override', async () => {
    const prober = createProber({ exec: new FakeExec().exec, userAgentVersion: '1.33' });
    const probe: Probe = {
      httpGet: {
        path: '/ok',
        port: 'http',
        scheme: 'HTTP',
        httpHeaders: [
          { name: 'X-Probe', value: 'yes' },
          { name: 'Host', value: 'example.test' },
        ],
      },
      timeoutSeconds: 1,
    };
    const r = await prober(target('readiness', probe, { ports: [{ name: 'http', containerPort: port }] }), never);
    expect(r).toEqual({ result: 'success', output: 'ok' });
    expect(lastHeaders).toMatchObject({ 'user-agent': 'kube-probe/1.33', accept: '*/*', 'x-probe': 'yes', host: 'example.test' });
    // A User-Agent in the spec wins; an empty Accept is dropped.
    const custom: Probe = {
      httpGet: {
        path: '/ok',
        port,
        httpHeaders: [
          { name: 'user-agent', value: 'mine' },
          { name: 'Accept', value: '' },
        ],
      },
      timeoutSeconds: 1,
    };
    await prober(target('liveness', custom), never);
    expect(lastHeaders['user-agent']).toBe('mine');
    expect(lastHeaders.accept).toBeUndefined();
    expect(lastHeaders.host).toBe(`127.0.0.1:${port}`);
  });

  it('throws an INVALID_PROBE error for a named port the container does not have', async () => {
    const prober = createProber({ exec: new FakeExec().exec });
    await expect(prober(target('liveness', { httpGet: { path: '/', port: 'missing' } }), never)).rejects.toMatchObject({
      name: 'ProbeError',
      code: 'INVALID_PROBE',
    });
  });
});

describe('httpGet probes over HTTPS without certificate verification', () => {
  let dir: string;
  let server: https.Server;
  let port: number;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'probe-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=self-signed.test',
      ],
      { stdio: 'ignore' },
    );
    server = https.createServer(
      { key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) },
      (req, res) => {
        res.writeHead(req.url === '/healthz' ? 200 : 503).end('tls ok');
      },
    );
    port = await listen(server);
  });

  afterAll(async () => {
    server.closeAllConnections();
    await close(server);
    rmSync(dir, { recursive: true, force: true });
  });

  it('succeeds against a self-signed certificate and still checks the status code', async () => {
    const prober = createProber({ exec: new FakeExec().exec });
    expect(await prober(target('liveness', { httpGet: { path: '/healthz', port, scheme: 'HTTPS' }, timeoutSeconds: 2 }), never)).toEqual({
      result: 'success',
      output: 'tls ok',
    });
    expect(await prober(target('liveness', { httpGet: { path: '/down', port, scheme: 'HTTPS' }, timeoutSeconds: 2 }), never)).toEqual({
      result: 'failure',
      output: 'HTTP probe failed with statuscode: 503',
    });
  });
});

describe('tcpSocket probes', () => {
  it('succeeds when a connection opens and fails with the dial error otherwise', async () => {
    const server = net.createServer((s) => s.destroy());
    const port = await listen(server);
    try {
      expect(await doTcpProbe('127.0.0.1', port, 1000)).toEqual({ result: 'success', output: '' });
      const prober = createProber({ exec: new FakeExec().exec });
      expect(
        await prober(
          target('readiness', { tcpSocket: { port: 'svc' }, timeoutSeconds: 1 }, { ports: [{ name: 'svc', containerPort: port }] }),
          never,
        ),
      ).toMatchObject({ result: 'success' });
    } finally {
      await close(server);
    }
    const p = await closedPort();
    expect(await doTcpProbe('127.0.0.1', p, 1000)).toEqual({
      result: 'failure',
      output: `dial tcp 127.0.0.1:${p}: connect: connection refused`,
    });
  });
});

describe('grpc probes against a grpc-js health server', () => {
  let server: grpc.Server;
  let port: number;
  let bare: grpc.Server;
  let barePort: number;
  const statuses = new Map<string, number>([
    ['', ServingStatus.SERVING],
    ['db', ServingStatus.NOT_SERVING],
  ]);
  let userAgent = '';

  const healthService: grpc.ServiceDefinition = {
    Check: {
      path: HEALTH_CHECK_PATH,
      requestStream: false,
      responseStream: false,
      requestSerialize: () => Buffer.alloc(0),
      requestDeserialize: (b: Buffer) => ({ service: decodeHealthCheckRequest(b) }),
      responseSerialize: (status: number) => encodeHealthCheckResponse(status),
      responseDeserialize: () => 0,
    },
  };

  async function bind(s: grpc.Server): Promise<number> {
    return new Promise((resolve, reject) =>
      s.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
    );
  }

  beforeAll(async () => {
    server = new grpc.Server();
    server.addService(healthService, {
      Check: (call: grpc.ServerUnaryCall<{ service: string }, number>, callback: grpc.sendUnaryData<number>) => {
        userAgent = String(call.metadata.get('user-agent')[0] ?? '');
        if (call.request.service === 'slow') return; // never answers
        const status = statuses.get(call.request.service);
        if (status === undefined) callback({ code: grpc.status.NOT_FOUND, details: 'unknown service' });
        else callback(null, status);
      },
    });
    port = await bind(server);
    bare = new grpc.Server();
    barePort = await bind(bare);
  });

  afterAll(() => {
    server.forceShutdown();
    bare.forceShutdown();
  });

  it('succeeds on SERVING and sends the kube-probe User-Agent', async () => {
    expect(await doGrpcProbe('127.0.0.1', port, '', 2000, 'kube-probe/1.34')).toEqual({ result: 'success', output: 'service healthy' });
    expect(userAgent).toMatch(/^kube-probe\/1\.34/);
  });

  it('passes the service name and fails on NOT_SERVING', async () => {
    const prober = createProber({ exec: new FakeExec().exec });
    expect(await prober(target('readiness', { grpc: { port, service: 'db' }, timeoutSeconds: 2 }), never)).toEqual({
      result: 'failure',
      output: 'service unhealthy (responded with "NOT_SERVING")',
    });
  });

  it('fails when the server does not implement the health protocol, does not answer in time, or is not there', async () => {
    expect((await doGrpcProbe('127.0.0.1', barePort, '', 2000, 'kube-probe/1.34')).output).toMatch(
      /^error: this server does not implement the grpc health protocol \(grpc\.health\.v1\.Health\)/,
    );
    expect(await doGrpcProbe('127.0.0.1', port, 'slow', 1000, 'kube-probe/1.34')).toEqual({
      result: 'failure',
      output: 'timeout: health rpc did not complete within 1s',
    });
    const p = await closedPort();
    const r = await doGrpcProbe('127.0.0.1', p, '', 1000, 'kube-probe/1.34');
    expect(r.result).toBe('failure');
    expect(r.output).toMatch(/error|timeout/);
    expect((await doGrpcProbe('127.0.0.1', port, 'other', 2000, 'kube-probe/1.34')).output).toMatch(
      /^error: health rpc probe failed: .*unknown service/,
    );
  });
});

describe('exec probes', () => {
  it('succeeds on exit 0, fails with stdout+stderr otherwise, and expands $(VAR) from literal env', async () => {
    const fake = new FakeExec();
    fake.setHandler((_id, cmd) =>
      cmd.includes('bad') ? { exitCode: 2, stdout: 'out ', stderr: Buffer.from('err') } : { exitCode: 0, stdout: 'fine', stderr: '' },
    );
    const prober = createProber({ exec: fake.exec });
    expect(
      await prober(
        target(
          'liveness',
          { exec: { command: ['check', '$(MODE)', '$$(MODE)'] }, timeoutSeconds: 3 },
          { env: [{ name: 'MODE', value: 'deep' }] },
        ),
        never,
      ),
    ).toEqual({ result: 'success', output: 'fine' });
    expect(fake.calls[0]).toEqual({ containerId: 'c1', cmd: ['check', 'deep', '$(MODE)'], timeoutSeconds: 3 });
    expect(await prober(target('liveness', { exec: { command: ['check', 'bad'] } }), never)).toEqual({
      result: 'failure',
      output: 'out err',
    });
  });

  it('turns a timeout into a failure with the upstream output, and throws other errors', async () => {
    const fake = new FakeExec();
    fake.setHandler((_id, cmd) => (cmd[0] === 'slow' ? 'timeout' : new Error('container not running')));
    const prober = createProber({ exec: fake.exec });
    expect(await prober(target('liveness', { exec: { command: ['slow', 'op'] } }), never)).toEqual({
      result: 'failure',
      output: 'command "slow op" timed out',
    });
    await expect(prober(target('liveness', { exec: { command: ['x'] } }), never)).rejects.toThrow('container not running');
  });

  it('gives up on an exec function that never returns, a grace period after the timeout', async () => {
    const clock = new FakeClock();
    const fake = new FakeExec();
    fake.setHandler(() => new Promise(() => undefined));
    const prober = createProber({ exec: fake.exec, clock, execGraceMs: 500 });
    let outcome: unknown;
    void prober(target('liveness', { exec: { command: ['hang'] }, timeoutSeconds: 2 }), never).then((o) => (outcome = o));
    await clock.advance(2_499);
    expect(outcome).toBeUndefined();
    await clock.advance(1);
    expect(outcome).toEqual({ result: 'failure', output: 'command "hang" timed out' });
  });
});

describe('createCriExecFn', () => {
  it('calls ExecSync with the timeout and a deadline a little beyond it, and maps DEADLINE_EXCEEDED to the exec timeout', async () => {
    const requests: unknown[] = [];
    let fail: CriError | undefined;
    const runtime = {
      execSync: async (request: unknown, options?: unknown) => {
        requests.push([request, options]);
        if (fail !== undefined) throw fail;
        return { exitCode: 1, stdout: Buffer.from('a'), stderr: Buffer.from('b') };
      },
    };
    const exec = createCriExecFn(runtime);
    const signal = new AbortController().signal;
    expect(await exec('cid', ['cat', '/ready'], 3, signal)).toEqual({ exitCode: 1, stdout: Buffer.from('a'), stderr: Buffer.from('b') });
    expect(requests[0]).toEqual([
      { containerId: 'cid', cmd: ['cat', '/ready'], timeout: 3 },
      { timeoutMs: 4000, signal },
    ]);
    fail = new CriError('DEADLINE_EXCEEDED', 'ExecSync: DEADLINE_EXCEEDED: timeout 3s exceeded', {
      method: 'runtime.v1.RuntimeService/ExecSync',
    });
    await expect(exec('cid', ['sleep', '10'], 3, signal)).rejects.toMatchObject({
      code: 'EXEC_TIMEOUT',
      message: 'command "sleep 10" timed out',
    });
    fail = new CriError('NOT_FOUND', 'ExecSync: NOT_FOUND: no such container', { method: 'runtime.v1.RuntimeService/ExecSync' });
    await expect(exec('cid', ['true'], 1, signal)).rejects.toMatchObject({ code: 'EXEC_FAILED' });
  });
});
