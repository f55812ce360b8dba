import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdtempSync, promises as fs, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:https';
import { FakeClock } from '@kubelet-ts/common/testing';
import { ensureSelfSignedPair, generateSelfSignedPair } from './index.js';

const T0 = Date.UTC(2026, 11, 1, 12);

function certificates(pem: string): X509Certificate[] {
  return [...pem.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----\n/g)].map((m) => new X509Certificate(m[0]));
}

describe('self-signed serving certificate', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kts-selfsigned-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is a server certificate for the host signed by a one-year CA, as certutil makes it', async () => {
    const pair = await generateSelfSignedPair({ host: 'node-a', clock: new FakeClock(T0) });
    const [server, ca] = certificates(pair.certificatePem);
    expect(server && ca).toBeDefined();
    expect(server!.subject).toBe(`CN=node-a@${T0 / 1000}`);
    expect(ca!.subject).toBe(`CN=node-a-ca@${T0 / 1000}`);
    expect(server!.issuer).toBe(ca!.subject);
    expect(server!.verify(ca!.publicKey)).toBe(true);
    expect(ca!.ca).toBe(true);
    expect(server!.ca).toBe(false);
    expect(server!.subjectAltName).toBe('DNS:node-a');
    expect(server!.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(new Date(server!.validFrom).getTime()).toBe(T0 - 3_600_000);
    expect(new Date(server!.validTo).getTime()).toBe(T0 - 3_600_000 + 365 * 86_400_000);
    expect(server!.serialNumber).toBe('02');
    // The key is the server certificate's (RSA, PKCS#1 as keyutil writes it).
    expect(pair.keyPem).toContain('-----BEGIN RSA PRIVATE KEY-----');
    const key = createPrivateKey(pair.keyPem);
    expect(createPublicKey(key).export({ type: 'spki', format: 'der' })).toEqual(server!.publicKey.export({ type: 'spki', format: 'der' }));
  });

  it('names an IP host and alternates as IP addresses (v4 and v6)', async () => {
    const pair = await generateSelfSignedPair({ host: '10.0.0.7', alternateIPs: ['fd00::1'], alternateDNS: ['node-b'] });
    expect(certificates(pair.certificatePem)[0]?.subjectAltName).toBe('DNS:node-b, IP Address:10.0.0.7, IP Address:FD00:0:0:0:0:0:0:1');
  });

  it('serves TLS that a client trusting the CA accepts for the host name', async () => {
    const pair = await generateSelfSignedPair({ host: 'localhost' });
    const [, ca] = certificates(pair.certificatePem);
    const server = createServer({ cert: pair.certificatePem, key: pair.keyPem }, (_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const body = await new Promise<string>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, servername: 'localhost', ca: ca!.toString(), path: '/' }, (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve(text));
        });
        req.on('error', reject);
        req.end();
      });
      expect(body).toBe('ok');
    } finally {
      server.close();
    }
  });

  it('is written once to kubelet.crt and kubelet.key (0600) and reused; an unreadable pair is replaced', async () => {
    const first = await ensureSelfSignedPair({ certDir: join(dir, 'pki'), host: 'node-a' });
    expect(first.certFile).toBe(join(dir, 'pki', 'kubelet.crt'));
    expect((await fs.stat(first.keyFile)).mode & 0o777).toBe(0o600);
    const again = await ensureSelfSignedPair({ certDir: join(dir, 'pki'), host: 'node-a' });
    expect(again.certificatePem).toBe(first.certificatePem);
    await fs.writeFile(first.keyFile, 'garbage');
    const replaced = await ensureSelfSignedPair({ certDir: join(dir, 'pki'), host: 'node-a' });
    expect(replaced.certificatePem).not.toBe(first.certificatePem);
    expect(await fs.readFile(first.keyFile, 'utf8')).toBe(replaced.keyPem);
  });
});
