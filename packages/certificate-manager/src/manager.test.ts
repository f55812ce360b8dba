import { createPublicKey } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock, RecordingMetrics } from '@kubelet-ts/common/testing';
import { waitFor } from '@kubelet-ts/test-support';
import { kubeletServingUsages, nodeClientSubject, nodeServingTemplate } from './csr.js';
import type { CsrTemplate } from './csr.js';
import type { CertificateSigningRequestBody } from './csr-object.js';
import { generatePrivateKeyPem, parsePrivateKeyPem } from './keys.js';
import { RENEW_ERRORS_METRIC, SERVER_RENEW_ERRORS_METRIC, createCertificateManager } from './manager.js';
import type { CertificateManagerOptions } from './manager.js';
import type { CsrApi } from './request.js';
import { createFileStore } from './store.js';
import type { CertificatePair } from './store.js';
import { FakeApiError, FakeCsrApi } from './testing/index.js';

const DAY = 86_400_000;
const untilReal = (what: string, check: () => boolean): Promise<true> => waitFor(what, () => check() || undefined, 5_000, 1);

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(join(tmpdir(), 'cm-manager-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

interface Harness {
  clock: FakeClock;
  api: FakeCsrApi;
  apiFor: jest.Mock<CsrApi, [CertificatePair | undefined]>;
  store: ReturnType<typeof createFileStore>;
  controller: AbortController;
  run: Promise<unknown>;
  manager: ReturnType<typeof createCertificateManager>;
  creates: () => CertificateSigningRequestBody[];
}

/** Stores a certificate for `subject` valid from `notBefore` for `lifetimeMs`, signed by the fake's CA. */
async function storeCertificate(h: Pick<Harness, 'api' | 'store'>, notBefore: number, lifetimeMs: number, node = 'n1'): Promise<void> {
  const key = await generatePrivateKeyPem();
  const cert = h.api.ca.issue({
    subject: nodeClientSubject(node),
    publicKey: createPublicKey(parsePrivateKeyPem(key)),
    notBefore,
    notAfter: notBefore + lifetimeMs,
  });
  await h.store.update(cert, key);
}

async function start(
  setup: (h: Pick<Harness, 'clock' | 'api' | 'store'>) => Promise<void> = () => Promise.resolve(),
  extra: Partial<CertificateManagerOptions> = {},
): Promise<Harness> {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const api = new FakeCsrApi({ clock, certificateLifetimeMs: 10 * DAY });
  const store = createFileStore({ certDir: dir, clock });
  await setup({ clock, api, store });
  const apiFor = jest.fn((_current: CertificatePair | undefined): CsrApi => api);
  const manager = createCertificateManager({ store, nodeName: 'n1', csrApiFor: apiFor, clock, random: () => 0.5, ...extra });
  const controller = new AbortController();
  const run = manager.run(controller.signal).then(
    () => 'stopped',
    (err: unknown) => err,
  );
  const creates = (): CertificateSigningRequestBody[] => api.calls.flatMap((c) => (c.method === 'create' ? [c.body] : []));
  return { clock, api, apiFor, store, controller, run, manager, creates };
}

describe('createCertificateManager', () => {
  it('without a stored pair, requests one at once with the bootstrap credentials (generateName csr-, ECDSA usages)', async () => {
    const h = await start();
    const rotated: CertificatePair[] = [];
    h.manager.onRotation((pair) => rotated.push(pair));
    await untilReal('the rotation', () => rotated.length === 1);
    expect(h.apiFor).toHaveBeenCalledWith(undefined);
    expect(h.creates()[0]?.metadata).toEqual({ generateName: 'csr-' });
    expect(h.creates()[0]?.spec).toMatchObject({
      signerName: 'kubernetes.io/kube-apiserver-client-kubelet',
      usages: ['digital signature', 'client auth'],
    });
    expect(h.manager.current()?.leaf.subject).toBe('O=system:nodes\nCN=system:node:n1');
    expect(h.manager.serverHealthy()).toBe(true);
    expect(await fs.readlink(h.store.currentPath())).toMatch(/kubelet-client-2026-01-01-\d\d-00-00\.pem$/);
    expect(rotated[0]?.path).toBe(h.store.currentPath());
    h.controller.abort();
    expect(await h.run).toBe('stopped');
  });

  it('renews a stored pair at 70–90 % of its lifetime, with the current credentials', async () => {
    // exitAfterMs 0: no 10 s expiry check to fire 69 000 times on the way.
    const h = await start((s) => storeCertificate(s, s.clock.now(), 10 * DAY), { exitAfterMs: 0 });
    await untilReal('the first deadline', () => h.clock.pendingTimers >= 1);
    expect(h.manager.nextRotationDeadline()).toBe(Date.UTC(2026, 0, 1) + 8 * DAY); // random 0.5: 80 %
    await h.clock.advance(8 * DAY - 1000);
    expect(h.creates()).toHaveLength(0);
    await h.clock.advance(1000);
    await untilReal('the renewal', () => h.manager.current()?.notBefore !== Date.UTC(2026, 0, 1));
    expect(h.apiFor).toHaveBeenCalledWith(expect.objectContaining({ notAfter: Date.UTC(2026, 0, 1) + 10 * DAY }));
    expect(h.creates()).toHaveLength(1);
    h.controller.abort();
    await h.run;
  });

  it('sleeps towards a deadline months away in pieces Node timers can hold (at most 2^31-1 ms)', async () => {
    const h = await start((s) => storeCertificate(s, s.clock.now(), 365 * DAY), { exitAfterMs: 0 });
    const setTimeout = jest.spyOn(h.clock, 'setTimeout');
    await untilReal('the first sleep', () => setTimeout.mock.calls.length > 0);
    expect(Math.max(...setTimeout.mock.calls.map(([, ms]) => ms))).toBeLessThanOrEqual(2 ** 31 - 1);
    await h.clock.advance(100 * DAY);
    expect(h.creates()).toHaveLength(0);
    await h.clock.advance(191 * DAY);
    expect(h.creates()).toHaveLength(0);
    await h.clock.advance(DAY); // 292 days: 80 % of 365
    await untilReal('the renewal at 80 % of a year', () => h.creates().length === 1);
    h.controller.abort();
    await h.run;
  });

  it.each([
    [0, 0.7],
    [1, 0.9],
  ])('spreads the deadline with the jitter (random %d → %d of the lifetime)', async (random, fraction) => {
    const h = await start((s) => storeCertificate(s, s.clock.now(), 100 * DAY), { random: () => random });
    await untilReal('the first deadline', () => h.clock.pendingTimers >= 2);
    expect(h.manager.nextRotationDeadline()).toBeCloseTo(Date.UTC(2026, 0, 1) + fraction * 100 * DAY, -1);
    h.controller.abort();
    await h.run;
  });

  it('renews at once a stored pair of another node or an expired one', async () => {
    const other = await start((s) => storeCertificate(s, s.clock.now(), 10 * DAY, 'someone-else'));
    await untilReal('the rotation', () => other.creates().length === 1);
    other.controller.abort();
    await other.run;
    await fs.rm(dir, { recursive: true, force: true });
    await fs.mkdir(dir);
    const expired = await start((s) => storeCertificate(s, s.clock.now() - 20 * DAY, 10 * DAY));
    await untilReal('the rotation', () => expired.creates().length === 1);
    expect(expired.apiFor).toHaveBeenCalledWith(undefined);
    expired.controller.abort();
    await expired.run;
  });

  it('backs off 2, 4, 8, 16 s (jittered) after failures, then retries every 32 s, counting each failure', async () => {
    const metrics = new RecordingMetrics();
    let failures = 0;
    const h = await start(() => Promise.resolve(), { metrics, random: () => 0 });
    const attempts: number[] = [];
    h.apiFor.mockImplementation(() => ({
      create: () => {
        attempts.push(h.clock.now() - Date.UTC(2026, 0, 1));
        failures++;
        return Promise.reject(new FakeApiError(503, 'ServiceUnavailable'));
      },
      get: () => Promise.reject(new Error('unused')),
      watch: () => (async function* () {})(),
    }));
    for (let i = 0; i < 7; i++) {
      await untilReal(`attempt ${i + 1}`, () => attempts.length === i + 1);
      if (i < 6) await h.clock.advance(i < 4 ? 2000 * 2 ** i : 32_000);
    }
    expect(attempts).toEqual([0, 2000, 6000, 14_000, 30_000, 62_000, 94_000]);
    expect(failures).toBe(7);
    expect(metrics.value(RENEW_ERRORS_METRIC)).toBe(7);
    expect(h.manager.serverHealthy()).toBe(false);
    h.controller.abort();
    expect(await h.run).toBe('stopped');
  });

  it('gives up with EXPIRED when no valid certificate existed for 5 min while the server answered', async () => {
    const h = await start((s) => storeCertificate(s, s.clock.now() - 9 * DAY, 9 * DAY + 60_000));
    h.apiFor.mockImplementation(() => ({
      create: () => Promise.reject(new FakeApiError(401, 'Unauthorized')),
      get: () => Promise.reject(new Error('unused')),
      watch: () => (async function* () {})(),
    }));
    // The renewal is due at once (80 % of the lifetime has passed); its 401 shows a server that answers.
    await untilReal('the first renewal attempt', () => h.manager.serverHealthy());
    let settled: unknown;
    void h.run.then((v) => (settled = v));
    for (let s = 0; s < 60 + 5 * 60 && settled === undefined; s += 10) await h.clock.advance(10_000);
    expect(settled).toBeUndefined();
    for (let s = 0; s < 30 && settled === undefined; s += 10) await h.clock.advance(10_000);
    expect(settled).toMatchObject({
      code: 'EXPIRED',
      message: 'It has been 5m0s since a valid client cert was found and the server is responsive, exiting.',
    });
    expect(h.manager.current()).toBeUndefined();
  });

  it('keeps trying, without giving up, when the server does not answer', async () => {
    const h = await start(() => Promise.resolve(), { exitAfterMs: 60_000 });
    h.apiFor.mockImplementation(() => ({
      create: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6443')),
      get: () => Promise.reject(new Error('unused')),
      watch: () => (async function* () {})(),
    }));
    let settled: unknown;
    void h.run.then((v) => (settled = v));
    for (let s = 0; s < 600; s += 10) await h.clock.advance(10_000);
    expect(settled).toBeUndefined();
    expect(h.manager.serverHealthy()).toBe(false);
    h.controller.abort();
    expect(await h.run).toBe('stopped');
  });

  it('fails an attempt whose CSR is denied and asks again with a new key', async () => {
    const h = await start();
    h.api.mode = 'manual';
    await untilReal('the first CSR', () => h.api.createdNames.length === 1);
    h.api.deny(h.api.createdNames[0] ?? '');
    await untilReal('the back-off', () => h.clock.pendingTimers >= 2);
    await h.clock.advance(2200);
    await untilReal('the second CSR', () => h.api.createdNames.length === 2);
    const [first, second] = h.creates();
    expect(first?.spec.request).not.toBe(second?.spec.request);
    h.api.approve(h.api.createdNames[1] ?? '');
    await untilReal('the certificate', () => h.manager.current() !== undefined);
    h.controller.abort();
    await h.run;
  });
});

describe('a serving certificate manager (template, usages, signer of the kubelet-serving kind)', () => {
  it('requests a serving certificate for the node addresses, and renews it within seconds when they change', async () => {
    let addresses = [
      { type: 'InternalIP', address: '10.0.0.5' },
      { type: 'Hostname', address: 'n1' },
    ];
    const h = await start(() => Promise.resolve(), {
      template: () => nodeServingTemplate('n1', addresses),
      usages: kubeletServingUsages,
      signerName: 'kubernetes.io/kubelet-serving',
      exitAfterMs: 0,
    });
    await untilReal('the serving certificate', () => h.manager.current() !== undefined);
    expect(h.creates()[0]?.spec).toMatchObject({
      signerName: 'kubernetes.io/kubelet-serving',
      usages: ['digital signature', 'server auth'],
    });
    expect(h.manager.current()?.leaf.subjectAltName).toBe('DNS:n1, IP Address:10.0.0.5');
    await h.clock.advance(10_000);
    expect(h.creates()).toHaveLength(1);
    addresses = [...addresses, { type: 'ExternalIP', address: '192.0.2.7' }];
    await h.clock.advance(1_000);
    await untilReal('the renewal for the new address', () => h.creates().length === 2);
    await untilReal('the new pair', () => h.manager.current()?.leaf.subjectAltName === 'DNS:n1, IP Address:10.0.0.5, IP Address:192.0.2.7');
    h.controller.abort();
    await h.run;
  });

  it('requests nothing while there is no template (no node IP yet), counting the failed renewals', async () => {
    const metrics = new RecordingMetrics();
    let template: CsrTemplate | undefined = undefined;
    const h = await start(() => Promise.resolve(), {
      template: () => template,
      usages: kubeletServingUsages,
      certificate: 'serving',
      metrics,
      exitAfterMs: 0,
    });
    await untilReal('a failed attempt', () => (metrics.value(SERVER_RENEW_ERRORS_METRIC) ?? 0) >= 1);
    expect(h.creates()).toHaveLength(0);
    template = nodeServingTemplate('n1', [{ type: 'InternalIP', address: '10.0.0.5' }]);
    await h.clock.advance(2_500); // the first back-off step (2 s, jitter 0.1)
    await untilReal('the request once an address is known', () => h.creates().length === 1);
    h.controller.abort();
    await h.run;
  });
});
