import { generateKeyPairSync } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestCa } from '@kubelet-ts/certificate-manager/testing';
import { FakeClock, RecordingLogger } from '@kubelet-ts/common/testing';
import { SERVING_FILE_CHECK_MS, createServingCertificates } from './serving-certificates.js';
import type { ServingPair } from './serving-certificates.js';

const ca = createTestCa();
function pair(): ServingPair {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const now = Date.now();
  const cert = ca.issue({
    subject: { commonName: 'node-1', organization: [] },
    publicKey,
    notBefore: now - 3600_000,
    notAfter: now + 3600_000,
    extKeyUsage: 'server auth',
  });
  return { cert, key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

/**
 * Moves the fake clock one check period at a time until `done()`: the checks read real files, whose reads
 * finish on libuv's thread pool whenever a loaded machine gets to them (yielding to I/O, never sleeping).
 */
async function checkUntil(clock: FakeClock, done: () => boolean): Promise<void> {
  for (let i = 0; i < 2_000 && !done(); i++) {
    await new Promise((r) => setImmediate(r));
    if (i % 20 === 19) await clock.advance(SERVING_FILE_CHECK_MS);
  }
}

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'serving-certs-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('createServingCertificates with tlsCertFile', () => {
  it('serves the files, reloads them when they change, and keeps the last good pair when they are bad', async () => {
    const certFile = path.join(dir, 'tls.crt');
    const keyFile = path.join(dir, 'tls.key');
    const first = pair();
    await fs.writeFile(certFile, first.cert);
    await fs.writeFile(keyFile, first.key);
    const clock = new FakeClock();
    const logger = new RecordingLogger();
    const certificates = await createServingCertificates({
      config: { tlsCertFile: certFile, tlsPrivateKeyFile: keyFile },
      flags: { certDir: dir },
      nodeName: 'node-1',
      nodeAddresses: () => [],
      client: {} as never,
      clock,
      logger,
    });
    expect(certificates.current()).toEqual(first);
    const seen: ServingPair[] = [];
    certificates.onChange((p) => seen.push(p));
    const controller = new AbortController();
    const running = certificates.run(controller.signal);

    await clock.advance(SERVING_FILE_CHECK_MS);
    expect(seen).toEqual([]);
    const second = pair();
    await fs.writeFile(certFile, second.cert);
    await fs.writeFile(keyFile, second.key);
    await clock.advance(SERVING_FILE_CHECK_MS);
    await checkUntil(clock, () => seen.length > 0);
    expect(seen).toEqual([second]);
    expect(certificates.current()).toEqual(second);

    // A certificate written without its new key yet: refused, the second pair stays.
    await fs.writeFile(certFile, pair().cert);
    await clock.advance(SERVING_FILE_CHECK_MS);
    await checkUntil(clock, () => logger.find('keeping the current pair').length > 0);
    expect(seen).toHaveLength(1);
    expect(certificates.current()).toEqual(second);
    // At least one check saw the bad pair (checks still reading when the clock moved on can make more).
    expect(logger.find('keeping the current pair').length).toBeGreaterThanOrEqual(1);
    controller.abort();
    await running;
  });

  it("refuses at start a certificate that is not the key's, naming the file", async () => {
    const certFile = path.join(dir, 'tls.crt');
    const keyFile = path.join(dir, 'tls.key');
    await fs.writeFile(certFile, pair().cert);
    await fs.writeFile(keyFile, pair().key);
    await expect(
      createServingCertificates({
        config: { tlsCertFile: certFile, tlsPrivateKeyFile: keyFile },
        flags: { certDir: dir },
        nodeName: 'node-1',
        nodeAddresses: () => [],
        client: {} as never,
        clock: new FakeClock(),
        logger: new RecordingLogger(),
      }),
    ).rejects.toThrow(certFile);
    await expect(
      createServingCertificates({
        config: { tlsCertFile: path.join(dir, 'missing.crt'), tlsPrivateKeyFile: keyFile },
        flags: { certDir: dir },
        nodeName: 'node-1',
        nodeAddresses: () => [],
        client: {} as never,
        clock: new FakeClock(),
        logger: new RecordingLogger(),
      }),
    ).rejects.toThrow(/tlsCertFile .*missing\.crt/);
  });
});
