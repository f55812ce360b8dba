// Upstream pkg/kubelet/token/token_manager.go: a cache of TokenRequests keyed by what was asked,
// refreshed before expiry, kept through failed refreshes while still valid, swept when expired.
import type { TokenRequest } from '@kubelet-ts/api';
import { TokenRequestSchema } from '@kubelet-ts/api';
import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import type { KubeClient } from '@kubelet-ts/kube-client';
import { TOKEN_GC_PERIOD_MS, TOKEN_MAX_JITTER_SECONDS, TOKEN_MAX_TTL_MS, TOKEN_REFRESH_REMAINING_PERCENT } from './constants.js';
import { ObjectManagerError } from './errors.js';

/** The one call the token manager makes: POST …/namespaces/<ns>/serviceaccounts/<name>/token. */
export interface TokenRequestApi {
  createToken(namespace: string, serviceAccount: string, tokenRequest: TokenRequest): Promise<TokenRequest>;
}

/** The TokenRequest API over a KubeClient (the answer validated by TokenRequestSchema). */
export function createTokenRequestApi(client: Pick<KubeClient, 'create'>): TokenRequestApi {
  return {
    createToken: (namespace, serviceAccount, tokenRequest) =>
      client.create(
        `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts/${encodeURIComponent(serviceAccount)}/token`,
        { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', ...tokenRequest },
        { schema: TokenRequestSchema },
      ),
  };
}

export interface TokenManager {
  /**
   * The cached token for (name, namespace, audiences, expirationSeconds, bound object), or a new one
   * when there is none or it needs a refresh; a failed refresh returns the old token while it is
   * still valid (logged). Rejects with ObjectManagerError TOKEN_REQUEST otherwise.
   */
  getServiceAccountToken(namespace: string, name: string, tokenRequest: TokenRequest): Promise<TokenRequest>;
  /** Forgets the tokens bound to the pod (on pod removal). */
  deleteServiceAccountToken(podUID: string): void;
  /** The cache keys (non-confidential), for tests and debugging. */
  keys(): string[];
  /** Stops the periodic sweep. */
  stop(): void;
}

export interface TokenManagerOptions {
  api: TokenRequestApi;
  clock?: Clock;
  logger?: Logger;
  /** The refresh jitter's randomness (tests make it fixed). */
  random?: () => number;
  /** Aborting it is `stop()`. */
  signal?: AbortSignal;
}

// Go's %#v of the key's parts, so keys read as upstream's in logs.
const goQuote = (s: string): string => JSON.stringify(s);
function cacheKey(name: string, namespace: string, tr: TokenRequest): string {
  const audiences = tr.spec.audiences;
  const auds = audiences === undefined || audiences === null ? '[]string(nil)' : `[]string{${audiences.map(goQuote).join(', ')}}`;
  const ref = tr.spec.boundObjectRef ?? {};
  const refText = `v1.BoundObjectReference{Kind:${goQuote(ref.kind ?? '')}, APIVersion:${goQuote(ref.apiVersion ?? '')}, Name:${goQuote(ref.name ?? '')}, UID:${goQuote(ref.uid ?? '')}}`;
  return `${goQuote(name)}/${goQuote(namespace)}/${auds}/${tr.spec.expirationSeconds ?? 0}/${refText}`;
}

interface Cached {
  tr: TokenRequest;
  expiresAt: number;
}

export function createTokenManager(options: TokenManagerOptions): TokenManager {
  const clock = options.clock ?? systemClock;
  const logger = (options.logger ?? noopLogger).child({ component: 'token-manager' });
  const random = options.random ?? Math.random;
  const cache = new Map<string, Cached>();

  const expired = (c: Cached): boolean => clock.now() > c.expiresAt;

  // Older than 24 h, within 20 % of the TTL of expiry (both up to 10 s early, in whole seconds), or
  // issued "in the future" (the clock went back).
  const requiresRefresh = (c: Cached): boolean => {
    const seconds = c.tr.spec.expirationSeconds;
    if (seconds === undefined) {
      logger.error('Expiration seconds was nil for token request', { tokenRequest: { ...c.tr, status: { ...c.tr.status, token: '' } } });
      return false;
    }
    const now = clock.now();
    const issuedAt = c.expiresAt - seconds * 1000;
    const jitterMs = Math.floor(random() * TOKEN_MAX_JITTER_SECONDS) * 1000;
    if (now > issuedAt + TOKEN_MAX_TTL_MS - jitterMs) return true;
    if (now > c.expiresAt - Math.floor((seconds * TOKEN_REFRESH_REMAINING_PERCENT) / 100) * 1000 - jitterMs) return true;
    return now < issuedAt;
  };

  const fetch = async (namespace: string, name: string, tr: TokenRequest): Promise<Cached> => {
    const answer = await options.api.createToken(namespace, name, tr);
    const expiresAt = Date.parse(answer.status?.expirationTimestamp ?? '');
    if (answer.status === undefined || Number.isNaN(expiresAt)) {
      throw new ObjectManagerError('INVALID_OBJECT', `TokenRequest for ${namespace}/${name}: status.expirationTimestamp: not a time`);
    }
    return { tr: answer, expiresAt };
  };

  const sweep = (): void => {
    for (const [key, c] of cache) if (expired(c)) cache.delete(key);
  };
  const timer = clock.setInterval(sweep, TOKEN_GC_PERIOD_MS);
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    clock.clearInterval(timer);
  };
  if (options.signal?.aborted === true) stop();
  else options.signal?.addEventListener('abort', stop, { once: true });

  return {
    async getServiceAccountToken(namespace, name, tokenRequest) {
      const key = cacheKey(name, namespace, tokenRequest);
      const current = cache.get(key);
      if (current !== undefined && !requiresRefresh(current)) return current.tr;
      let next: Cached;
      try {
        next = await fetch(namespace, name, tokenRequest);
      } catch (err) {
        if (current === undefined)
          throw new ObjectManagerError('TOKEN_REQUEST', `failed to fetch token: ${errorMessage(err)}`, { cause: err });
        if (expired(current)) {
          throw new ObjectManagerError('TOKEN_REQUEST', `token ${key} expired and refresh failed: ${errorMessage(err)}`, { cause: err });
        }
        logger.error("Couldn't update token", { cacheKey: key, err: errorMessage(err) });
        return current.tr;
      }
      cache.set(key, next);
      return next.tr;
    },

    deleteServiceAccountToken(podUID) {
      for (const [key, c] of cache) if (c.tr.spec.boundObjectRef?.uid === podUID) cache.delete(key);
    },

    keys: () => [...cache.keys()],
    stop,
  };
}
