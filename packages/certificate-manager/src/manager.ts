import { apiStatusOf } from '@kubelet-ts/api';
import type { KeyObject } from 'node:crypto';
import type { Clock, Counter, Logger, Metrics } from '@kubelet-ts/common';
import { errorMessage, formatGoDuration, jitter, noopLogger, noopMetrics, systemClock } from '@kubelet-ts/common';
import { EXPIRED_EXIT_AFTER_MS, ROTATION_WAIT_TIMEOUT_MS, SignerName } from './constants.js';
import { kubeletClientUsages, makeCsrPem, nodeClientSubject } from './csr.js';
import type { CsrTemplate } from './csr.js';
import type { KeyUsage } from './constants.js';
import { CertificateError } from './errors.js';
import { certificateSubject, subjectOf } from './internal/x509.js';
import { generatePrivateKeyPem, parsePrivateKeyPem } from './keys.js';
import { requestCertificate, waitForCertificate } from './request.js';
import type { CsrApi, RequestedCsr } from './request.js';
import type { CertificatePair, FileStore } from './store.js';

/** The longest delay Node's timers take (a longer one fires after 1 ms). */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** How often a waiting manager checks that its certificate still satisfies the template (upstream: 1 s). */
const TEMPLATE_CHECK_MS = 1_000;

/** The DNS names and IP addresses of a certificate's subjectAltName. */
function altNamesOf(pair: CertificatePair): { dnsNames: string[]; ipAddresses: string[] } {
  const dnsNames: string[] = [];
  const ipAddresses: string[] = [];
  for (const entry of (pair.leaf.subjectAltName ?? '').split(', ')) {
    if (entry.startsWith('DNS:')) dnsNames.push(entry.slice(4));
    else if (entry.startsWith('IP Address:')) ipAddresses.push(entry.slice(11));
  }
  return { dnsNames, ipAddresses };
}

const sameSet = (a: readonly string[], b: readonly string[]): boolean => {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((x) => right.has(x));
};

/** Upstream's metric (pkg/kubelet/certificate/kubelet.go): every failed renewal attempt. */
export const RENEW_ERRORS_METRIC = 'kubelet_certificate_manager_client_expiration_renew_errors';
/** The serving certificate manager's counterpart. */
export const SERVER_RENEW_ERRORS_METRIC = 'kubelet_server_expiration_renew_errors';

export interface CertificateManagerOptions {
  store: FileStore;
  nodeName: string;
  /**
   * The CSR API for one request (upstream ClientsetFn): with the current certificate's credentials
   * when `current` is a valid pair, else with the bootstrap credentials. Called per attempt.
   */
  csrApiFor: (current: CertificatePair | undefined) => CsrApi;
  /** Default `kubernetes.io/kube-apiserver-client-kubelet`. */
  signerName?: string;
  /**
   * What to request (upstream GetTemplate), asked before each request and every second while waiting:
   * a certificate that no longer satisfies it is renewed at once. Undefined: nothing can be requested yet
   * (a serving certificate before the node has an IP). Default: the client subject of `nodeName`.
   */
  template?: () => CsrTemplate | undefined;
  /** The CSR's usages for the new key (upstream GetUsages); default `kubeletClientUsages`. */
  usages?: (privateKey: KeyObject) => KeyUsage[];
  /**
   * Which certificate this manages, for its failed-renewals counter: `client` (default,
   * `RENEW_ERRORS_METRIC`) or `serving` (`SERVER_RENEW_ERRORS_METRIC`), as upstream names them.
   */
  certificate?: 'client' | 'serving';
  /** Asked for as `spec.expirationSeconds`; the signer may ignore it. */
  requestedLifetimeMs?: number;
  /** Per attempt; default 15 min. */
  waitTimeoutMs?: number;
  /** No valid certificate for this long while the server answers: `run` rejects with EXPIRED. Default 5 min; 0 never. */
  exitAfterMs?: number;
  /** How often that is checked; default 10 s (upstream's transport check). */
  checkPeriodMs?: number;
  clock?: Clock;
  logger?: Logger;
  metrics?: Metrics;
  /** The rotation point's jitter; default Math.random. */
  random?: () => number;
}

/** client-go certificate.Manager for the kubelet's client certificate. */
export interface CertificateManager {
  /**
   * Loads the stored pair, then renews it at 70–90 % of its lifetime (at once when there is none,
   * it expired or it does not match `system:node:<node>`), retrying with back-off, until `signal`
   * aborts. Rejects with a CertificateError `EXPIRED` when no valid certificate existed for
   * `exitAfterMs` while the server was responsive: the caller exits, as upstream's kubelet does.
   */
  run(signal: AbortSignal): Promise<void>;
  /** The pair in use; undefined before it is loaded, when there is none, or once it expired. */
  current(): CertificatePair | undefined;
  /** Whether recent calls suggest the server can be reached (upstream ServerHealthy). */
  serverHealthy(): boolean;
  /** Hears every new pair, after it is stored (the API client rebuilds its TLS agent). Returns unsubscribe. */
  onRotation(listener: (pair: CertificatePair) => void): () => void;
  /** One attempt: new key, CSR, wait, store. True when a new pair is in use. */
  rotateCerts(signal?: AbortSignal): Promise<boolean>;
  /** When the current pair should be renewed (ms since the epoch). */
  nextRotationDeadline(): number;
}

export function createCertificateManager(options: CertificateManagerOptions): CertificateManager {
  return new ClientCertificateManager(options);
}

class ClientCertificateManager implements CertificateManager {
  readonly #options: CertificateManagerOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #signerName: string;
  readonly #exitAfterMs: number;
  readonly #template: () => CsrTemplate | undefined;
  readonly #usages: (privateKey: KeyObject) => KeyUsage[];
  readonly #renewErrors: Counter;
  readonly #listeners = new Set<(pair: CertificatePair) => void>();
  #cert: CertificatePair | undefined;
  #forceRotation = true;
  #healthy = false;

  constructor(options: CertificateManagerOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? noopLogger;
    this.#signerName = options.signerName ?? SignerName.KubeAPIServerClientKubelet;
    this.#exitAfterMs = options.exitAfterMs ?? EXPIRED_EXIT_AFTER_MS;
    const clientSubject = nodeClientSubject(options.nodeName);
    this.#template = options.template ?? (() => ({ subject: clientSubject }));
    this.#usages = options.usages ?? kubeletClientUsages;
    const metrics = options.metrics ?? noopMetrics;
    const help = 'Counter of certificate renewal errors.';
    this.#renewErrors =
      options.certificate === 'serving'
        ? metrics.counter({ name: SERVER_RENEW_ERRORS_METRIC, help })
        : metrics.counter({ name: RENEW_ERRORS_METRIC, help });
  }

  current(): CertificatePair | undefined {
    const cert = this.#cert;
    return cert !== undefined && this.#clock.now() > cert.notAfter ? undefined : cert;
  }

  serverHealthy(): boolean {
    return this.#healthy;
  }

  onRotation(listener: (pair: CertificatePair) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async run(signal: AbortSignal): Promise<void> {
    const stored = await this.#options.store.current();
    if (stored !== undefined && this.#clock.now() < stored.notAfter) {
      this.#cert = stored;
      this.#forceRotation = false;
    }
    this.#logger.info('Certificate rotation is enabled');
    const inner = new AbortController();
    const onAbort = (): void => inner.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    // Once stopping, a loop's rejection (the abort itself) is the expected way out.
    const quietly = (loop: Promise<void>): Promise<void> =>
      loop.catch((err: unknown) => {
        if (!inner.signal.aborted) throw err;
      });
    try {
      const watch = this.#exitAfterMs > 0 ? quietly(this.#expiryWatch(inner.signal)) : new Promise<void>(() => undefined);
      await Promise.race([quietly(this.#rotationLoop(inner.signal)), watch]);
    } finally {
      signal.removeEventListener('abort', onAbort);
      inner.abort(new Error('certificate manager stopped'));
    }
  }

  nextRotationDeadline(): number {
    const now = this.#clock.now();
    if (this.#forceRotation) {
      this.#forceRotation = false;
      return now;
    }
    const cert = this.#cert;
    if (cert === undefined || !this.#satisfiesTemplate(cert)) return now;
    const total = cert.notAfter - cert.notBefore;
    // jitteryDuration: wait.Jitter(total, 0.2) - 0.3 total, i.e. 70–90 % of the lifetime.
    const deadline = cert.notBefore + jitter(total, 0.2, this.#options.random ?? Math.random) - 0.3 * total;
    this.#logger.info('Certificate expiration and rotation deadline', {
      expiration: new Date(cert.notAfter).toISOString(),
      deadline: new Date(deadline).toISOString(),
    });
    return deadline;
  }

  async rotateCerts(signal?: AbortSignal): Promise<boolean> {
    this.#logger.info('Rotating certificates');
    let keyPem: string;
    let csrPem: string;
    let privateKey: KeyObject;
    let api: CsrApi;
    const template = this.#template();
    if (template === undefined) return this.#failed('Unable to create a csr', new Error('no template available'));
    try {
      keyPem = await generatePrivateKeyPem();
      privateKey = parsePrivateKeyPem(keyPem);
      csrPem = makeCsrPem(privateKey, template.subject, template);
    } catch (err) {
      return this.#failed('Unable to generate a certificate signing request', err);
    }
    try {
      api = this.#options.csrApiFor(this.current());
    } catch (err) {
      return this.#failed('Unable to load a client to request certificates', err);
    }
    const { requestedLifetimeMs } = this.#options;
    const common = { clock: this.#clock, logger: this.#logger, ...(signal !== undefined ? { signal } : {}) };
    let requested: RequestedCsr;
    try {
      requested = await requestCertificate({
        api,
        csrPem,
        signerName: this.#signerName,
        usages: this.#usages(privateKey),
        ...(requestedLifetimeMs !== undefined ? { expirationSeconds: Math.floor(requestedLifetimeMs / 1000) } : {}),
        privateKey,
        ...common,
      });
    } catch (err) {
      this.#noteServerError(err);
      return this.#failed('Failed while requesting a signed certificate from the control plane', err);
    }
    let certificatePem: string;
    try {
      certificatePem = await waitForCertificate({
        api,
        ...requested,
        timeoutMs: this.#options.waitTimeoutMs ?? ROTATION_WAIT_TIMEOUT_MS,
        ...common,
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      return this.#failed('certificate request was not signed', err);
    }
    let pair: CertificatePair;
    try {
      pair = await this.#options.store.update(certificatePem, keyPem);
    } catch (err) {
      return this.#failed('Unable to store the new cert/key pair', err);
    }
    this.#cert = pair;
    this.#healthy = true;
    this.#logger.info('Certificate rotated', { csr: requested.name, notAfter: new Date(pair.notAfter).toISOString() });
    this.#notify(pair);
    return true;
  }

  #notify(pair: CertificatePair): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(pair);
      } catch (err) {
        this.#logger.error('A certificate rotation listener failed', { err: errorMessage(err) });
      }
    }
  }

  // certSatisfiesTemplateLocked: the CN, every requested organization, exactly the requested names.
  #satisfiesTemplate(pair: CertificatePair, log = true): boolean {
    const template = this.#template();
    if (template === undefined) return true;
    const subject = subjectOf(certificateSubject(pair.leaf.raw));
    const info = (message: string, fields: Record<string, unknown>): void => {
      if (log) this.#logger.info(message, fields);
    };
    if (subject.commonName !== template.subject.commonName) {
      info('Current certificate CN does not match requested CN', { current: subject.commonName, requested: template.subject.commonName });
      return false;
    }
    const names = altNamesOf(pair);
    if (!sameSet(names.dnsNames, template.dnsNames ?? [])) {
      info('Current certificate does not match requested DNS names', { current: names.dnsNames, requested: template.dnsNames ?? [] });
      return false;
    }
    if (!sameSet(names.ipAddresses, template.ipAddresses ?? [])) {
      info('Current certificate does not match requested IP addresses', {
        current: names.ipAddresses,
        requested: template.ipAddresses ?? [],
      });
      return false;
    }
    const missing = template.subject.organization.filter((o) => !subject.organization.includes(o));
    if (missing.length > 0) info('Current certificate is missing requested orgs', { orgs: missing });
    return missing.length === 0;
  }

  // updateServerError: which failures still show a server that answers.
  #noteServerError(err: unknown): void {
    const status = apiStatusOf(err) ?? apiStatusOf((err as { cause?: unknown } | undefined)?.cause);
    if (status === undefined) this.#healthy = false;
    else if (status.statusCode === 401)
      this.#healthy = true; // TLS-terminating proxies answer this too
    else this.#healthy = status.statusCode === 403 || status.statusCode === 404;
  }

  #failed(message: string, err: unknown): false {
    this.#logger.error(message, { err: errorMessage(err) });
    this.#renewErrors.inc();
    return false;
  }

  // wait.ExponentialBackoff{2 s, ×2, jitter 0.1, 5 steps}, then wait.PollInfinite(32 s).
  async #rotateWithBackoff(signal: AbortSignal): Promise<void> {
    let delayMs = 2_000;
    for (let step = 1; step <= 5; step++) {
      if (await this.rotateCerts(signal)) return;
      if (step === 5) break;
      await this.#clock.sleep(jitter(delayMs, 0.1, this.#options.random ?? Math.random), signal);
      delayMs *= 2;
    }
    this.#logger.error('Reached backoff limit, still unable to rotate certs');
    for (;;) {
      await this.#clock.sleep(32_000, signal);
      if (await this.rotateCerts(signal)) return;
    }
  }

  async #rotationLoop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const deadline = this.nextRotationDeadline();
      const waitMs = deadline - this.#clock.now();
      if (waitMs > 0) this.#logger.info('Waiting for next certificate rotation', { sleepInterval: formatGoDuration(Math.round(waitMs)) });
      // A template that can change is checked every second, as upstream does (a serving certificate
      // whose node addresses moved is renewed at once); the fixed client template needs no check.
      // Node fires a timer of more than 2^31-1 ms (24.8 days) at once: long sleeps go in pieces.
      const step = this.#options.template !== undefined ? TEMPLATE_CHECK_MS : MAX_TIMER_MS;
      for (let left = waitMs; left > 0; left = deadline - this.#clock.now()) {
        await this.#clock.sleep(Math.min(left, step), signal);
        const cert = this.#cert;
        if (this.#options.template !== undefined && cert !== undefined && !this.#satisfiesTemplate(cert, false)) break;
      }
      await this.#rotateWithBackoff(signal);
      await this.#clock.sleep(1_000, signal); // wait.Until's period
    }
  }

  // transport.go addCertRotation's exitAfter check.
  async #expiryWatch(signal: AbortSignal): Promise<void> {
    let lastCertAvailable = this.#clock.now();
    for (;;) {
      await this.#clock.sleep(this.#options.checkPeriodMs ?? 10_000, signal);
      const now = this.#clock.now();
      if (this.current() !== undefined) {
        lastCertAvailable = now;
        continue;
      }
      if (now <= lastCertAvailable + this.#exitAfterMs) continue;
      const since = formatGoDuration(this.#exitAfterMs);
      if (this.#healthy) {
        throw new CertificateError(
          'EXPIRED',
          `It has been ${since} since a valid client cert was found and the server is responsive, exiting.`,
        );
      }
      this.#logger.error(
        `It has been ${since} since a valid client cert was found, but the server is not responsive. A restart may be necessary to retrieve new initial credentials.`,
      );
    }
  }
}
