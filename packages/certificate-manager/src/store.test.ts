import { spawn } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { promises as fs } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { FakeClock } from '@kubelet-ts/common/testing';
import { CertificateError } from './errors.js';
import { generatePrivateKeyPem, parsePrivateKeyPem } from './keys.js';
import { createFileStore, pairTimestamp } from './store.js';
import { createTestCa } from './testing/index.js';

const ca = createTestCa();
const DAY = 86_400_000;

async function clientPair(
  node = 'n1',
  notBefore = Date.now() - DAY,
  notAfter = Date.now() + 365 * DAY,
): Promise<{ cert: string; key: string }> {
  const key = await generatePrivateKeyPem();
  const cert = ca.issue({
    subject: { commonName: `system:node:${node}`, organization: ['system:nodes'] },
    publicKey: createPublicKey(parsePrivateKeyPem(key)),
    notBefore,
    notAfter,
  });
  return { cert, key };
}

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(join(tmpdir(), 'cm-store-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('createFileStore', () => {
  it('writes kubelet-client-<timestamp>.pem (chain, then key; 0600) and points kubelet-client-current.pem at it', async () => {
    const clock = new FakeClock(new Date(2026, 4, 6, 7, 8, 9).getTime());
    const store = createFileStore({ certDir: join(dir, 'pki'), clock });
    const { cert, key } = await clientPair();
    const pair = await store.update(cert + ca.certificatePem, key);

    const file = join(dir, 'pki', 'kubelet-client-2026-05-06-07-08-09.pem');
    expect(pairTimestamp(clock.now())).toBe('2026-05-06-07-08-09');
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    const text = await fs.readFile(file, 'utf8');
    expect(text.match(/-----BEGIN [A-Z ]+-----/g)).toEqual([
      '-----BEGIN CERTIFICATE-----',
      '-----BEGIN CERTIFICATE-----',
      '-----BEGIN EC PRIVATE KEY-----',
    ]);
    expect(await fs.readlink(store.currentPath())).toBe(file);
    expect(store.currentPath()).toBe(join(dir, 'pki', 'kubelet-client-current.pem'));
    expect(pair.chain).toHaveLength(2);
    expect(pair.leaf.subject).toContain('CN=system:node:n1');

    const again = await createFileStore({ certDir: join(dir, 'pki') }).current();
    expect(again?.leaf.fingerprint256).toBe(pair.leaf.fingerprint256);
    expect(again?.privateKey.export({ type: 'sec1', format: 'pem' })).toBe(key);
    expect(again?.notAfter).toBe(pair.notAfter);
  });

  it('replaces the link on the next update and keeps the older file', async () => {
    const clock = new FakeClock(new Date(2026, 0, 1, 0, 0, 0).getTime());
    const store = createFileStore({ certDir: dir, clock });
    const first = await clientPair('first');
    await store.update(first.cert, first.key);
    await clock.advance(1000);
    const second = await clientPair('second');
    await store.update(second.cert, second.key);
    expect((await fs.readdir(dir)).sort()).toEqual([
      'kubelet-client-2026-01-01-00-00-00.pem',
      'kubelet-client-2026-01-01-00-00-01.pem',
      'kubelet-client-current.pem',
    ]);
    expect((await store.current())?.leaf.subject).toContain('CN=system:node:second');
  });

  it('finishes an update interrupted before the rename (only kubelet-client-updated.pem exists)', async () => {
    const { cert, key } = await clientPair('recovered');
    const target = join(dir, 'kubelet-client-2026-01-01-00-00-00.pem');
    await fs.writeFile(target, cert + key, { mode: 0o600 });
    await fs.symlink(target, join(dir, 'kubelet-client-updated.pem'));
    const store = createFileStore({ certDir: dir });
    expect((await store.current())?.leaf.subject).toContain('CN=system:node:recovered');
    await expect(fs.lstat(join(dir, 'kubelet-client-updated.pem'))).rejects.toThrow(/ENOENT/);
    expect(await fs.readlink(store.currentPath())).toBe(target);
  });

  it('has no current pair in an empty dir, and falls back to certFile/keyFile, then kubelet-client.crt/.key', async () => {
    expect(await createFileStore({ certDir: dir }).current()).toBeUndefined();
    const a = await clientPair('explicit');
    await fs.writeFile(join(dir, 'my.crt'), a.cert);
    await fs.writeFile(join(dir, 'my.key'), a.key);
    const explicit = createFileStore({ certDir: dir, certFile: join(dir, 'my.crt'), keyFile: join(dir, 'my.key') });
    expect((await explicit.current())?.leaf.subject).toContain('CN=system:node:explicit');
    const b = await clientPair('legacy');
    await fs.writeFile(join(dir, 'kubelet-client.crt'), b.cert);
    await fs.writeFile(join(dir, 'kubelet-client.key'), b.key);
    expect((await createFileStore({ certDir: dir }).current())?.leaf.subject).toContain('CN=system:node:legacy');
  });

  it('refuses a key that does not match, a chain that does not parse, and a current file that is not a symlink', async () => {
    const store = createFileStore({ certDir: dir });
    const a = await clientPair();
    const b = await clientPair();
    await expect(store.update(a.cert, b.key)).rejects.toThrow(expect.objectContaining({ code: 'INVALID_CERTIFICATE' }));
    await expect(store.update('not a certificate', a.key)).rejects.toThrow(expect.objectContaining({ code: 'INVALID_CERTIFICATE' }));
    expect(await fs.readdir(dir)).toEqual([]);

    await fs.writeFile(store.currentPath(), a.cert + a.key);
    await expect(store.update(a.cert, a.key)).rejects.toThrow(/expected .*kubelet-client-current.pem" to be a symlink but it is a file/);
    await fs.writeFile(store.currentPath(), 'garbage');
    await expect(store.current()).rejects.toThrow(CertificateError);
  });

  it('replaces the link atomically: a reader in another process never misses kubelet-client-current.pem', async () => {
    const clock = new FakeClock(new Date(2026, 0, 1).getTime());
    const store = createFileStore({ certDir: dir, clock });
    const pairs = await Promise.all(Array.from({ length: 4 }, (_, i) => clientPair(`p${i}`)));
    await store.update(pairs[0]!.cert, pairs[0]!.key);
    const reader = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('fs'); let ok = 0, missing = 0; process.stdout.write('ready\\n');
         const stop = Date.now() + 60000; process.stdin.on('data', () => { console.log(JSON.stringify({ ok, missing })); process.exit(0); });
         (function loop() { for (let i = 0; i < 200; i++) { try { fs.readFileSync(${JSON.stringify(store.currentPath())}); ok++; } catch { missing++; } }
           if (Date.now() < stop) setImmediate(loop); })();`,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    let output = '';
    reader.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<void>((resolve) => reader.on('exit', () => resolve()));
    while (!output.includes('ready')) await new Promise((r) => setTimeout(r, 10));
    for (let i = 0; i < 200; i++) {
      await clock.advance(1000);
      const pair = pairs[i % pairs.length]!;
      await store.update(pair.cert, pair.key);
    }
    reader.stdin.write('stop\n');
    await exited;
    const counts = JSON.parse(output.split('\n')[1] ?? '{}') as { ok: number; missing: number };
    expect(counts.ok).toBeGreaterThan(0);
    expect(counts.missing).toBe(0);
  });

  it('is a file Node TLS presents as client certificate and key at once', async () => {
    const store = createFileStore({ certDir: dir });
    const { cert, key } = await clientPair('tls-node');
    await store.update(cert, key);
    const serverKey = await generatePrivateKeyPem();
    const serverCert = ca.issue({
      subject: { commonName: 'localhost', organization: [] },
      publicKey: createPublicKey(parsePrivateKeyPem(serverKey)),
      notBefore: Date.now() - DAY,
      notAfter: Date.now() + DAY,
      extKeyUsage: 'server auth',
    });
    const server = https.createServer(
      { cert: serverCert, key: serverKey, ca: ca.certificatePem, requestCert: true, rejectUnauthorized: true },
      (req, res) => {
        const peer = (req.socket as TLSSocket).getPeerCertificate();
        res.end(`${peer.subject.CN} ${String(peer.subject.O)}`);
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const pem = await fs.readFile(store.currentPath());
      const body = await new Promise<string>((resolve, reject) => {
        const req = https.request(
          {
            host: '127.0.0.1',
            port: (server.address() as AddressInfo).port,
            servername: 'localhost',
            ca: ca.certificatePem,
            cert: pem,
            key: pem,
            checkServerIdentity: () => undefined,
          },
          (res) => {
            let text = '';
            res.on('data', (c: Buffer) => (text += c.toString()));
            res.on('end', () => resolve(text));
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(body).toBe('system:node:tls-node system:nodes');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
