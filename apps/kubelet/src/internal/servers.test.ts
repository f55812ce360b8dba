import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeSummaryProvider } from '@kubelet-ts/metrics/testing';
import { alwaysAllowAuthorizer, unionAuthenticator } from '@kubelet-ts/server';
import { createKubeletLogger } from './logging.js';
import type { KubeletLogger } from './logging.js';
import { createKubeletMetrics } from './metrics-routes.js';
import { createKubeletServers } from './servers.js';
import type { KubeletServers, KubeletServersOptions } from './servers.js';

let dir: string;
let pair: { cert: string; key: string };
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kubelet-servers-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      'key.pem',
      '-out',
      'cert.pem',
      '-subj',
      '/CN=node-1',
      '-days',
      '1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { cwd: dir, stdio: 'ignore' },
  );
  pair = { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let servers: KubeletServers | undefined;
afterEach(async () => {
  await servers?.close();
  servers = undefined;
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function call(port: number, method: string, path: string, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, rejectUnauthorized: false, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The authenticated server alone (anonymous allowed), with the kubelet's real logger. */
async function start(
  config: { enableDebuggingHandlers?: boolean; enableProfilingHandler?: boolean; enableDebugFlagsHandler?: boolean },
  logger: KubeletLogger,
): Promise<number> {
  const port = await freePort();
  const defaults: KubeletServersOptions['config'] = {
    healthzBindAddress: '127.0.0.1',
    healthzPort: 0,
    address: '127.0.0.1',
    readOnlyPort: 0,
    port,
    enableDebuggingHandlers: true,
    enableSystemLogHandler: true,
    enableProfilingHandler: true,
    enableDebugFlagsHandler: true,
  };
  servers = createKubeletServers({
    config: { ...defaults, ...config },
    lifecycle: { getPods: () => [], healthCheckers: [] },
    stats: new FakeSummaryProvider({ node: { nodeName: 'node-1' }, pods: [] } as never),
    nodeStatus: { getNode: () => undefined } as never,
    metrics: createKubeletMetrics({ nodeName: 'node-1', version: 'v1.34.0' }),
    authenticated: {
      nodeName: 'node-1',
      tls: {},
      certificates: { current: () => pair, onChange: () => () => undefined },
      authenticator: unionAuthenticator([], { anonymous: true }),
      authorizer: alwaysAllowAuthorizer,
      containerLogs: {} as never,
      streaming: {} as never,
      configz: () => ({}),
      runningPods: () => Promise.resolve([]),
      nodeLogDir: dir,
      logVerbosity: logger,
    },
    logger,
  });
  await servers.listen();
  return port;
}

describe('the authenticated server of the kubelet', () => {
  it("serves /debug/flags/v by default, and a PUT changes the kubelet logger's verbosity for loggers made before", async () => {
    const lines: string[] = [];
    const logger = createKubeletLogger({ verbosity: 2, format: 'json', write: (l) => lines.push(l) });
    const pleg = logger.child({ component: 'pleg' });
    const port = await start({}, logger);
    pleg.debug('before');
    expect(await call(port, 'PUT', '/debug/flags/v', '4')).toEqual({ status: 200, body: 'successfully set klog.logging.verbosity to 4\n' });
    expect(logger.verbosity).toBe(4);
    pleg.debug('after');
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toContain('after');
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).not.toContain('before');
    expect((await call(port, 'GET', '/debug/pprof/')).status).toBe(200);
  });

  it('answers 405 on /debug/pprof/ and /debug/flags/v when enableProfilingHandler and enableDebugFlagsHandler are off', async () => {
    const logger = createKubeletLogger({ verbosity: 0, format: 'json', write: () => undefined });
    const port = await start({ enableProfilingHandler: false, enableDebugFlagsHandler: false }, logger);
    expect(await call(port, 'GET', '/debug/pprof/heap')).toEqual({ status: 405, body: 'profiling endpoint is disabled.\n' });
    expect(await call(port, 'PUT', '/debug/flags/v', '9')).toEqual({ status: 405, body: 'flags endpoint is disabled.\n' });
    expect(logger.verbosity).toBe(0);
  });

  it('with enableDebuggingHandlers off, /debug/pprof/ is a disabled debugging path and /debug/flags/v is not served, as upstream', async () => {
    const logger = createKubeletLogger({ verbosity: 0, format: 'json', write: () => undefined });
    const port = await start({ enableDebuggingHandlers: false }, logger);
    expect(await call(port, 'GET', '/debug/pprof/')).toEqual({ status: 405, body: 'Debug endpoints are disabled.\n' });
    expect((await call(port, 'PUT', '/debug/flags/v', '9')).status).toBe(404);
  });
});
