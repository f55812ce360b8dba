import { promises as fs } from 'node:fs';
import { request } from 'node:https';
import path from 'node:path';
import { FakeClock, RecordingLogger } from '@kubelet-ts/common/testing';
import { createTestPki } from '../test/pki.js';
import type { KeyPair, TestPki } from '../test/pki.js';
import { createX509Authenticator, unionAuthenticator } from './authenticators.js';
import { alwaysAllowAuthorizer } from './authorizers.js';
import { createDynamicClientCA } from './client-ca.js';
import type { DynamicClientCA, FileWatch } from './client-ca.js';
import { createKubeletServer } from './kubelet-server.js';
import type { KubeletServer } from './kubelet-server.js';
import { createRouter, sendJson } from './router.js';

let pki: TestPki;
let oldCA: KeyPair;
let newCA: KeyPair;
let serving: KeyPair;
let alice: KeyPair;
let bob: KeyPair;
let dir: string;
let file: string;

beforeAll(() => {
  pki = createTestPki();
  oldCA = pki.ca('old-client-ca');
  newCA = pki.ca('new-client-ca');
  serving = pki.issue(oldCA, 'serving', '/CN=node-1', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth');
  alice = pki.issue(oldCA, 'alice', '/CN=alice', 'extendedKeyUsage=clientAuth');
  bob = pki.issue(newCA, 'bob', '/CN=bob', 'extendedKeyUsage=clientAuth');
  dir = path.join(pki.dir, 'ca-files');
});
afterAll(() => pki.cleanup());

const stops: AbortController[] = [];
const servers: KubeletServer[] = [];
beforeEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
  await fs.mkdir(dir);
  file = path.join(dir, 'client-ca.crt');
  await fs.writeFile(file, oldCA.cert);
});
afterEach(async () => {
  for (const stop of stops.splice(0)) stop.abort();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const noWatch: FileWatch = () => ({ close: () => undefined });

/** Starts the reload loop; stopped after the test. */
function run(ca: DynamicClientCA): void {
  const stop = new AbortController();
  stops.push(stop);
  void ca.run(stop.signal);
}

const nextChange = (ca: DynamicClientCA): Promise<string> =>
  new Promise((resolve) => {
    const off = ca.onChange((pem) => {
      off();
      resolve(pem);
    });
  });

describe('createDynamicClientCA', () => {
  it('loads the bundle, and refuses a missing, empty or certificate-less file at start naming it', async () => {
    const ca = await createDynamicClientCA({ path: file, clock: new FakeClock() });
    expect(ca.current()).toBe(oldCA.cert);
    const name = `"client-ca-bundle::${path.join(dir, 'x')}"`;
    await expect(createDynamicClientCA({ path: path.join(dir, 'x') })).rejects.toMatchObject({
      code: 'INVALID_TLS_CONFIG',
      message: expect.stringMatching(new RegExp(`^reading CA bundle ${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .*ENOENT`)),
    });
    await fs.writeFile(path.join(dir, 'x'), '');
    await expect(createDynamicClientCA({ path: path.join(dir, 'x') })).rejects.toThrow(`missing content for CA bundle ${name}`);
    await fs.writeFile(path.join(dir, 'x'), 'not a certificate\n');
    await expect(createDynamicClientCA({ path: path.join(dir, 'x') })).rejects.toThrow(`error loading CA bundle for ${name}`);
  });

  it('reads the file again every minute and announces a new bundle', async () => {
    const clock = new FakeClock();
    const logger = new RecordingLogger();
    const ca = await createDynamicClientCA({ path: file, clock, logger, watch: noWatch });
    const heard: string[] = [];
    ca.onChange((pem) => heard.push(pem));
    run(ca);
    await ca.reload(); // the check made when the loop starts: nothing new
    await fs.writeFile(file, newCA.cert);
    await clock.advance(59_999);
    expect(ca.current()).toBe(oldCA.cert);
    const changed = nextChange(ca);
    await clock.advance(1);
    expect(await changed).toBe(newCA.cert);
    expect(ca.current()).toBe(newCA.cert);
    expect(heard).toEqual([newCA.cert]);
    expect(logger.find('Loaded a new CA Bundle and Verifier')[0]?.fields).toEqual({ name: `client-ca-bundle::${file}` });
    // The same bytes again are no news.
    await clock.advance(60_000);
    await ca.reload();
    expect(heard).toHaveLength(1);
  });

  it('keeps the last good bundle when the file turns empty, broken or missing, and logs why', async () => {
    const logger = new RecordingLogger();
    const ca = await createDynamicClientCA({ path: file, clock: new FakeClock(), logger, watch: noWatch });
    const heard: string[] = [];
    ca.onChange((pem) => heard.push(pem));
    await fs.writeFile(file, '');
    expect(await ca.reload()).toBe(false);
    await fs.writeFile(file, '-----BEGIN CERTIFICATE-----\nbroken\n-----END CERTIFICATE-----\n');
    expect(await ca.reload()).toBe(false);
    await fs.rm(file);
    expect(await ca.reload()).toBe(false);
    expect(ca.current()).toBe(oldCA.cert);
    expect(heard).toEqual([]);
    expect(logger.find('Failed to reload the client CA bundle, keeping the last good one').map((r) => r.fields.err)).toEqual([
      expect.stringContaining('missing content for CA bundle'),
      expect.stringContaining('certificate 1 cannot be parsed'),
      expect.stringContaining('ENOENT'),
    ]);
    await fs.writeFile(file, newCA.cert);
    expect(await ca.reload()).toBe(true);
    expect(heard).toEqual([newCA.cert]);
  });

  it('reloads when the watch reports a change, watches the path again after a rename, and stops with the signal', async () => {
    const clock = new FakeClock();
    const watches: Array<{ onEvent: (event: 'change' | 'rename') => void; closed: boolean }> = [];
    const watch: FileWatch = (_path, onEvent) => {
      const w = { onEvent, closed: false };
      watches.push(w);
      return { close: () => void (w.closed = true) };
    };
    const ca = await createDynamicClientCA({ path: file, clock, watch });
    const stop = new AbortController();
    const running = ca.run(stop.signal);
    expect(watches).toHaveLength(1);
    // The check run makes when it starts must be over before the file changes: otherwise it may read
    // the new bundle itself, before nextChange listens, and the watch's reload then finds nothing new.
    await ca.reload();
    await fs.writeFile(file, newCA.cert);
    let changed = nextChange(ca);
    watches[0]?.onEvent('change');
    expect(await changed).toBe(newCA.cert);

    // An atomic replace (rename over the file): the old watch is dropped, the new file watched.
    const next = path.join(dir, 'next.crt');
    await fs.writeFile(next, oldCA.cert);
    await fs.rename(next, file);
    changed = nextChange(ca);
    watches[0]?.onEvent('rename');
    expect(await changed).toBe(oldCA.cert);
    expect(watches.map((w) => w.closed)).toEqual([true, false]);

    stop.abort();
    await running;
    expect(watches.map((w) => w.closed)).toEqual([true, true]);
    expect(clock.pendingTimers).toBe(0);
  });
});

describe('the authenticated server with a reloaded client CA', () => {
  function get(port: number, client: KeyPair): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path: '/pods', ca: oldCA.cert, agent: false, cert: client.cert, key: client.key },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  it('accepts certificates of the new CA on new connections once the file changes, and keeps it when the file breaks', async () => {
    const clock = new FakeClock();
    const ca = await createDynamicClientCA({ path: file, clock, watch: noWatch });
    run(ca);
    const router = createRouter();
    router.get('/pods', (_req, res) => sendJson(res, 200, { items: [] }));
    const server = createKubeletServer({
      router,
      tls: { cert: serving.cert, key: serving.key, clientCA: ca },
      authenticator: unionAuthenticator([createX509Authenticator({ clientCA: ca })], { anonymous: false }),
      authorizer: alwaysAllowAuthorizer,
      nodeName: 'node-1',
    });
    servers.push(server);
    const { port } = await server.listen('127.0.0.1', 0);
    expect(await get(port, alice)).toBe(200);
    expect(await get(port, bob)).toBe(401);

    await fs.writeFile(file, newCA.cert);
    const changed = nextChange(ca);
    await clock.advance(60_000);
    await changed;
    expect(await get(port, bob)).toBe(200);
    expect(await get(port, alice)).toBe(401);

    await fs.writeFile(file, 'garbage');
    expect(await ca.reload()).toBe(false);
    expect(await get(port, bob)).toBe(200);
  });
});
