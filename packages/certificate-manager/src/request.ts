import { X509Certificate, createPublicKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { isAlreadyExists } from '@kubelet-ts/api';
import type { Clock, Logger } from '@kubelet-ts/common';
import { createBackoff, errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import { CsrConditionType } from './constants.js';
import { parseCsrPem } from './csr.js';
import { parseCertificateSigningRequest } from './csr-object.js';
import type { CertificateSigningRequest, CertificateSigningRequestBody } from './csr-object.js';
import { CertificateError } from './errors.js';
import { decodePemBlocks } from './internal/pem.js';

/** One event of a watch on a single CSR: the object is untrusted until validated. */
export interface CsrWatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: unknown;
}

/**
 * The port to `certificates.k8s.io/v1` certificatesigningrequests this package needs (the kubelet
 * adapts its API client to it). Failures throw errors that carry `statusCode` and `reason`.
 */
export interface CsrApi {
  /** POST; resolves to the created object. */
  create(csr: CertificateSigningRequestBody, signal?: AbortSignal): Promise<unknown>;
  /** GET by name. */
  get(name: string, signal?: AbortSignal): Promise<unknown>;
  /**
   * List+watch of the one CSR (`fieldSelector=metadata.name=<name>`): first the listed state as
   * ADDED, then the changes, until `signal` aborts. An informer behind it relists as it must; when
   * the iterable ends or throws, the waiter watches again after a back-off.
   */
  watch(name: string, signal: AbortSignal): AsyncIterable<CsrWatchEvent>;
}

export interface RequestCertificateOptions {
  api: CsrApi;
  /** The PEM `CERTIFICATE REQUEST`. */
  csrPem: string;
  /** A fixed name (bootstrap: `digestedName`); without it `generateName: csr-` (rotation). */
  name?: string;
  signerName: string;
  usages: readonly string[];
  expirationSeconds?: number;
  /** The key that signed `csrPem`: an existing CSR of that name must be signed by it. */
  privateKey: KeyObject;
  clock?: Pick<Clock, 'now'>;
  logger?: Logger;
  signal?: AbortSignal;
}

export interface RequestedCsr {
  name: string;
  uid: string;
}

const apiError = (what: string, err: unknown): CertificateError =>
  CertificateError.is(err) ? err : new CertificateError('API', `${what}: ${errorMessage(err)}`, { cause: err });

/**
 * csr.RequestCertificate: creates the CSR, or, when one of our fixed name exists, reuses it once it is
 * proven ours (same subject and signer, signed by our key, no expired certificate).
 */
export async function requestCertificate(options: RequestCertificateOptions): Promise<RequestedCsr> {
  const { api, name, logger = noopLogger } = options;
  const body: CertificateSigningRequestBody = {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: name !== undefined && name !== '' ? { name } : { generateName: 'csr-' },
    spec: {
      request: Buffer.from(options.csrPem, 'utf8').toString('base64'),
      signerName: options.signerName,
      usages: [...options.usages],
      ...(options.expirationSeconds !== undefined ? { expirationSeconds: options.expirationSeconds } : {}),
    },
  };
  let created: CertificateSigningRequest;
  try {
    created = parseCertificateSigningRequest(await api.create(body, options.signal), 'create CertificateSigningRequest');
  } catch (err) {
    if (!(isAlreadyExists(err) && name !== undefined && name !== '')) throw apiError('cannot create certificate signing request', err);
    logger.info('csr for this node already exists, reusing', { csr: name });
    let existing: CertificateSigningRequest;
    try {
      existing = parseCertificateSigningRequest(await api.get(name, options.signal), `get CertificateSigningRequest ${name}`);
    } catch (getErr) {
      throw apiError('cannot retrieve certificate signing request', getErr);
    }
    ensureCompatible(existing, options, (options.clock ?? systemClock).now());
    logger.info('csr for this node is still valid', { csr: name });
    created = existing;
  }
  if (created.metadata.name === '')
    throw new CertificateError('INVALID_OBJECT', 'create CertificateSigningRequest: metadata.name is empty');
  return { name: created.metadata.name, uid: created.metadata.uid };
}

/** Upstream ensureCompatible: the existing CSR must be the one we would have made. */
function ensureCompatible(existing: CertificateSigningRequest, wanted: RequestCertificateOptions, nowMs: number): void {
  const fail = (reason: string): never => {
    throw new CertificateError('INCOMPATIBLE', `retrieved csr is not compatible: ${reason}`);
  };
  let theirs;
  try {
    theirs = parseCsrPem(Buffer.from(existing.spec.request, 'base64'));
  } catch (err) {
    return fail(`unable to parse new csr: ${errorMessage(err)}`);
  }
  const ours = parseCsrPem(wanted.csrPem);
  if (JSON.stringify(theirs.subjectAttributes) !== JSON.stringify(ours.subjectAttributes)) {
    fail(`csr subjects differ: new: ${JSON.stringify(theirs.subject)}, orig: ${JSON.stringify(ours.subject)}`);
  }
  if (existing.spec.signerName !== wanted.signerName) {
    fail(`csr signerNames differ: new ${JSON.stringify(existing.spec.signerName)}, orig: ${JSON.stringify(wanted.signerName)}`);
  }
  if (!theirs.signedBy(createPublicKey(wanted.privateKey))) fail('error validating signature new CSR against old key');
  const certificate = existing.status?.certificate;
  if (certificate !== undefined && certificate !== '') {
    for (const cert of parseCertificateChain(Buffer.from(certificate, 'base64').toString('utf8'), 'the CSR status')) {
      if (nowMs > Date.parse(cert.validTo)) fail(`one of the certificates for the CSR has expired: ${cert.validTo}`);
    }
  }
}

/** Every CERTIFICATE block of `pem`, parsed; at least one. */
export function parseCertificateChain(pem: string, source: string): X509Certificate[] {
  const blocks = decodePemBlocks(pem).filter((b) => b.type === 'CERTIFICATE');
  if (blocks.length === 0) throw new CertificateError('INVALID_CERTIFICATE', `${source}: no CERTIFICATE block`);
  return blocks.map((block, i) => {
    try {
      return new X509Certificate(block.der);
    } catch (err) {
      throw new CertificateError('INVALID_CERTIFICATE', `${source}: certificate ${i}: ${errorMessage(err)}`, { cause: err });
    }
  });
}

export interface WaitForCertificateOptions {
  api: CsrApi;
  name: string;
  /** The UID create returned: another UID under the same name is an error. Empty: not checked. */
  uid: string;
  timeoutMs: number;
  clock?: Clock;
  logger?: Logger;
  signal?: AbortSignal;
}

/**
 * csr.WaitForCertificate: watches the CSR until it has an Approved condition and a certificate,
 * which it returns (PEM). Denied or Failed conditions, deletion and a UID change are errors, and so
 * is the timeout. An invalid object is logged and skipped; a broken watch is watched again.
 */
export async function waitForCertificate(options: WaitForCertificateOptions): Promise<string> {
  const { api, name, clock = systemClock, logger = noopLogger } = options;
  const inner = new AbortController();
  const timeout = new CertificateError('TIMEOUT', `timed out waiting for the certificate of CSR ${name}`);
  const timer = clock.setTimeout(() => inner.abort(timeout), options.timeoutMs);
  const onAbort = (): void => inner.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  const backoff = createBackoff({ initialMs: 1_000, maxMs: 30_000, clock });
  try {
    for (;;) {
      try {
        for await (const event of api.watch(name, inner.signal)) {
          const certificate = certificateFromEvent(event, options, logger);
          if (certificate !== undefined) return certificate;
          backoff.reset('watch');
        }
        if (inner.signal.aborted) throw inner.signal.reason;
        logger.info('Watch of the certificate signing request ended, watching again', { csr: name });
      } catch (err) {
        if (inner.signal.aborted) throw inner.signal.reason;
        if (CertificateError.is(err) && err.code !== 'API') throw err;
        logger.warn('Watch of the certificate signing request failed, watching again', { csr: name, err: errorMessage(err) });
      }
      await clock.sleep(backoff.next('watch'), inner.signal);
    }
  } finally {
    clock.clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    if (!inner.signal.aborted) inner.abort(new Error('certificate wait finished'));
  }
}

function certificateFromEvent(event: CsrWatchEvent, wanted: WaitForCertificateOptions, logger: Logger): string | undefined {
  const { name } = wanted;
  if (event.type === 'DELETED') throw new CertificateError('DELETED', `csr ${JSON.stringify(name)} was deleted`);
  if (event.type === 'ERROR') throw new CertificateError('API', `watch of csr ${name}: ${JSON.stringify(event.object)}`);
  if (event.type !== 'ADDED' && event.type !== 'MODIFIED') return undefined;
  let csr: CertificateSigningRequest;
  try {
    csr = parseCertificateSigningRequest(event.object, `watch CertificateSigningRequest ${name}`);
  } catch (err) {
    logger.warn('Skipping an invalid CertificateSigningRequest', { csr: name, err: errorMessage(err) });
    return undefined;
  }
  if (csr.metadata.name !== name) return undefined;
  if (wanted.uid !== '' && csr.metadata.uid !== wanted.uid)
    throw new CertificateError('UID_CHANGED', `csr ${JSON.stringify(name)} changed UIDs`);
  let approved = false;
  for (const c of csr.status?.conditions ?? []) {
    const detail = `reason: ${c.reason ?? ''}, message: ${c.message ?? ''}`;
    if (c.type === CsrConditionType.Denied) throw new CertificateError('DENIED', `certificate signing request is denied, ${detail}`);
    if (c.type === CsrConditionType.Failed) throw new CertificateError('FAILED', `certificate signing request failed, ${detail}`);
    if (c.type === CsrConditionType.Approved) approved = true;
  }
  const certificate = csr.status?.certificate;
  if (!approved) return undefined;
  if (certificate === undefined || certificate === '') {
    logger.debug('certificate signing request is approved, waiting to be issued', { csr: name });
    return undefined;
  }
  const pem = Buffer.from(certificate, 'base64').toString('utf8');
  try {
    parseCertificateChain(pem, `status.certificate of csr ${name}`);
  } catch (err) {
    logger.warn('Skipping an issued certificate that does not parse', { csr: name, err: errorMessage(err) });
    return undefined;
  }
  logger.debug('certificate signing request is issued', { csr: name });
  return pem;
}
