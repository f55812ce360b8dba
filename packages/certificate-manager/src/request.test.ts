import { X509Certificate, createPublicKey } from 'node:crypto';
import { FakeClock, RecordingLogger, flushMicrotasks } from '@kubelet-ts/common/testing';
import { makeCsrPem, nodeClientSubject } from './csr.js';
import { generatePrivateKeyPem, parsePrivateKeyPem } from './keys.js';
import { requestCertificate, waitForCertificate } from './request.js';
import type { CsrApi, CsrWatchEvent } from './request.js';
import { FakeApiError, FakeCsrApi } from './testing/index.js';

const SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';

async function request(api: FakeCsrApi, name?: string, key?: string) {
  const privateKey = parsePrivateKeyPem(key ?? (await generatePrivateKeyPem()));
  const csrPem = makeCsrPem(privateKey, nodeClientSubject('n1'));
  const requested = await requestCertificate({
    api,
    csrPem,
    ...(name !== undefined ? { name } : {}),
    signerName: SIGNER,
    usages: ['digital signature', 'client auth'],
    privateKey,
  });
  return { requested, privateKey, csrPem };
}

/** Runs a wait while the test acts on the fake; returns the settled outcome. */
function settle<T>(promise: Promise<T>): { result: () => { ok: true; value: T } | { ok: false; error: unknown } | undefined } {
  let outcome: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
  promise.then(
    (value) => (outcome = { ok: true, value }),
    (error: unknown) => (outcome = { ok: false, error }),
  );
  return { result: () => outcome };
}

describe('requestCertificate', () => {
  it('creates with generateName csr- without a name, the request base64 of the PEM, signer and usages', async () => {
    const api = new FakeCsrApi({ mode: 'manual' });
    const { requested, csrPem } = await request(api);
    expect(requested.name).toMatch(/^csr-[0-9a-f]{5}$/);
    expect(requested.uid).not.toBe('');
    expect(api.calls[0]).toEqual({
      method: 'create',
      body: {
        apiVersion: 'certificates.k8s.io/v1',
        kind: 'CertificateSigningRequest',
        metadata: { generateName: 'csr-' },
        spec: { request: Buffer.from(csrPem).toString('base64'), signerName: SIGNER, usages: ['digital signature', 'client auth'] },
      },
    });
  });

  it('reuses an existing CSR of its name when our key signed it (AlreadyExists → GET → compatible)', async () => {
    const api = new FakeCsrApi({ mode: 'manual' });
    const key = await generatePrivateKeyPem();
    const first = await request(api, 'node-csr-x', key);
    const second = await request(api, 'node-csr-x', key);
    expect(second.requested).toEqual(first.requested);
    expect(api.calls.map((c) => c.method)).toEqual(['create', 'create', 'get']);
  });

  it('refuses an existing CSR of its name made with another key, or holding an expired certificate', async () => {
    const clock = new FakeClock();
    const api = new FakeCsrApi({ mode: 'manual', clock });
    await request(api, 'node-csr-x');
    await expect(request(api, 'node-csr-x')).rejects.toThrow(
      expect.objectContaining({
        code: 'INCOMPATIBLE',
        message: 'retrieved csr is not compatible: error validating signature new CSR against old key',
      }),
    );

    const key = await generatePrivateKeyPem();
    await request(api, 'node-csr-y', key);
    api.certificateLifetimeMs = 1000;
    api.approve('node-csr-y');
    clock.setNow(clock.now() + 3600_000);
    await expect(request(api, 'node-csr-y', key)).rejects.toThrow(/one of the certificates for the CSR has expired/);
  });

  it('reports other create failures as API errors whose cause keeps statusCode and reason', async () => {
    const api = new FakeCsrApi();
    api.createError = new FakeApiError(403, 'Forbidden');
    const err = await request(api, 'node-csr-z').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'API', message: 'cannot create certificate signing request: Forbidden', cause: { statusCode: 403 } });
  });
});

describe('waitForCertificate', () => {
  it('returns the certificate once the CSR is Approved AND issued, not at approval alone', async () => {
    const api = new FakeCsrApi({ mode: 'manual' });
    const { requested, privateKey } = await request(api);
    const wait = settle(waitForCertificate({ api, ...requested, timeoutMs: 60_000, clock: new FakeClock() }));
    await flushMicrotasks();
    api.approveOnly(requested.name);
    await flushMicrotasks();
    expect(wait.result()).toBeUndefined();
    api.approve(requested.name);
    await flushMicrotasks();
    const outcome = wait.result();
    expect(outcome?.ok).toBe(true);
    const cert = new X509Certificate(outcome?.ok === true ? outcome.value : '');
    expect(cert.subject).toBe('O=system:nodes\nCN=system:node:n1');
    expect(cert.publicKey.export({ type: 'spki', format: 'der' })).toEqual(
      createPublicKey(privateKey).export({ type: 'spki', format: 'der' }),
    );
    expect(cert.verify(createPublicKey(api.ca.certificatePem))).toBe(true);
  });

  it.each([
    ['denied', 'deny', 'DENIED', 'certificate signing request is denied, reason: NotOurs, message: go away'],
    ['failed', 'fail', 'FAILED', 'certificate signing request failed, reason: NotOurs, message: go away'],
  ] as const)('fails when the CSR is %s, with the reason and message', async (_state, action, code, message) => {
    const api = new FakeCsrApi({ mode: 'manual' });
    const { requested } = await request(api);
    const wait = settle(waitForCertificate({ api, ...requested, timeoutMs: 60_000, clock: new FakeClock() }));
    await flushMicrotasks();
    api[action](requested.name, 'NotOurs', 'go away');
    await flushMicrotasks();
    expect(wait.result()).toEqual({ ok: false, error: expect.objectContaining({ code, message }) });
  });

  it('fails when the CSR is deleted or replaced by one of another UID', async () => {
    const api = new FakeCsrApi({ mode: 'manual' });
    const a = await request(api);
    const b = await request(api);
    const waitA = settle(waitForCertificate({ api, ...a.requested, timeoutMs: 60_000, clock: new FakeClock() }));
    const waitB = settle(waitForCertificate({ api, ...b.requested, timeoutMs: 60_000, clock: new FakeClock() }));
    await flushMicrotasks();
    api.delete(a.requested.name);
    api.recreate(b.requested.name);
    await flushMicrotasks();
    expect(waitA.result()).toEqual({ ok: false, error: expect.objectContaining({ code: 'DELETED' }) });
    expect(waitB.result()).toEqual({ ok: false, error: expect.objectContaining({ code: 'UID_CHANGED' }) });
  });

  it('times out on the injected clock, and stops on abort', async () => {
    const clock = new FakeClock();
    const api = new FakeCsrApi({ mode: 'manual' });
    const { requested } = await request(api);
    const wait = settle(waitForCertificate({ api, ...requested, timeoutMs: 3600_000, clock }));
    await clock.advance(3599_000);
    expect(wait.result()).toBeUndefined();
    await clock.advance(1000);
    expect(wait.result()).toEqual({ ok: false, error: expect.objectContaining({ code: 'TIMEOUT' }) });

    const controller = new AbortController();
    const aborted = settle(waitForCertificate({ api, ...requested, timeoutMs: 3600_000, clock, signal: controller.signal }));
    controller.abort(new Error('stop'));
    await flushMicrotasks();
    expect(aborted.result()).toEqual({ ok: false, error: new Error('stop') });
    expect(clock.pendingTimers).toBe(0);
  });

  it('skips an invalid object with a warning and keeps waiting', async () => {
    const api = new FakeCsrApi({ mode: 'manual' });
    const logger = new RecordingLogger();
    const { requested } = await request(api);
    const wait = settle(waitForCertificate({ api, ...requested, timeoutMs: 60_000, clock: new FakeClock(), logger }));
    await flushMicrotasks();
    api.emitRaw(requested.name, { type: 'MODIFIED', object: { metadata: { name: requested.name }, spec: { request: 42 } } });
    await flushMicrotasks();
    expect(wait.result()).toBeUndefined();
    expect(logger.records.find((r) => r.msg === 'Skipping an invalid CertificateSigningRequest')?.fields?.err).toMatch(
      /watch CertificateSigningRequest csr-.*: invalid CertificateSigningRequest: spec.request: /,
    );
    api.approve(requested.name);
    await flushMicrotasks();
    expect(wait.result()?.ok).toBe(true);
  });

  it('watches again, after a back-off, when the watch fails or ends', async () => {
    const clock = new FakeClock();
    const fake = new FakeCsrApi({ mode: 'manual' });
    const { requested } = await request(fake);
    let watches = 0;
    const api: CsrApi = {
      create: (body) => fake.create(body),
      get: (name) => fake.get(name),
      watch(name, signal): AsyncIterable<CsrWatchEvent> {
        watches++;
        if (watches === 1) throw new FakeApiError(500, 'InternalError');
        if (watches === 2) return (async function* () {})();
        return fake.watch(name, signal);
      },
    };
    const wait = settle(waitForCertificate({ api, ...requested, timeoutMs: 600_000, clock }));
    await flushMicrotasks();
    expect(watches).toBe(1);
    await clock.advance(1000);
    expect(watches).toBe(2);
    await clock.advance(1999);
    expect(watches).toBe(2);
    await clock.advance(1);
    expect(watches).toBe(3);
    fake.approve(requested.name);
    await flushMicrotasks();
    expect(wait.result()?.ok).toBe(true);
  });
});
