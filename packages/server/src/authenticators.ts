import { isUtf8 } from 'node:buffer';
import { X509Certificate, createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import { errorMessage, systemClock } from '@kubelet-ts/common';
import type { Clock } from '@kubelet-ts/common';
import { z } from 'zod';
import { ANONYMOUS_USER, AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP } from './auth.js';
import type { AuthenticationResult, Authenticator, TokenReviewer, UserInfo } from './auth.js';
import { isClientCAProvider } from './client-ca.js';
import type { ClientCAProvider } from './client-ca.js';
import { allHeaders, firstHeader, setHeader } from './internal/headers.js';
import { parsePemCertificates } from './internal/pem.js';
import { review } from './internal/review.js';
import { TtlCache } from './internal/ttl-cache.js';

const CLIENT_AUTH_EKU = '1.3.6.1.5.5.7.3.2';
const ANY_EKU = '2.5.29.37.0';

export interface X509AuthenticatorOptions {
  /**
   * The CAs that sign client certificates (`authentication.x509.clientCAFile`): a PEM bundle, or a
   * provider whose current bundle is used for each request (createDynamicClientCA).
   */
  clientCA: string | Buffer | ClientCAProvider;
}

/**
 * Upstream x509 request authenticator with `CommonNameUserConversion`: the TLS peer certificate, verified
 * against `clientCA`, names the user (CN) and its groups (O). No certificate, or one without a CN, is
 * not-authenticated; an unverified certificate is a failure. The server must request certificates without
 * rejecting unverified ones (`requestCert: true, rejectUnauthorized: false`), so that requests without one
 * still reach the token and anonymous paths; the chain is checked against `clientCA` here too, so that a
 * server whose `ca` differs (or is unset, which means the system roots) cannot widen the trust.
 */
export function createX509Authenticator(options: X509AuthenticatorOptions): Authenticator {
  const { clientCA } = options;
  const pemOf = isClientCAProvider(clientCA) ? () => clientCA.current() : () => clientCA;
  let parsed = { pem: pemOf(), roots: parsePemCertificates(pemOf(), 'clientCA') };
  // Upstream x509.NewDynamic: each request is verified against the bundle in effect now.
  const currentRoots = (): X509Certificate[] => {
    const pem = pemOf();
    if (pem !== parsed.pem) {
      try {
        parsed = { pem, roots: parsePemCertificates(pem, 'clientCA') };
      } catch {
        // A provider only hands out bundles it parsed; should one not parse here, keep the last roots.
      }
    }
    return parsed.roots;
  };
  const anchored = (chain: readonly X509Certificate[]): boolean => {
    const roots = currentRoots();
    return chain.some((cert) => roots.some((root) => root.fingerprint256 === cert.fingerprint256 || issuedBy(cert, root)));
  };

  return {
    authenticate(req) {
      const socket = tlsSocket(req);
      if (socket === undefined) return Promise.resolve({ kind: 'not-authenticated' });
      const peer = socket.getPeerCertificate(true);
      if (peer === null || peer.raw === undefined) return Promise.resolve({ kind: 'not-authenticated' });
      const id = certificateIdentifier(peer);
      if (!socket.authorized) {
        const reason = String(socket.authorizationError ?? 'unknown authority');
        return Promise.resolve({ kind: 'failed', message: `verifying certificate ${id} failed: ${reason}` });
      }
      const chain = peerChain(peer);
      if (!anchored(chain)) {
        return Promise.resolve({
          kind: 'failed',
          message: `verifying certificate ${id} failed: x509: certificate signed by unknown authority`,
        });
      }
      // Go's verifier with KeyUsages=[ClientAuth]: a certificate that lists extended key usages must list
      // clientAuth (or any); one without the extension allows every usage.
      const eku = chain.find((cert) => cert.keyUsage !== undefined && !cert.keyUsage.some((u) => u === CLIENT_AUTH_EKU || u === ANY_EKU));
      if (eku !== undefined) {
        return Promise.resolve({
          kind: 'failed',
          message: `verifying certificate ${id} failed: x509: certificate specifies an incompatible key usage`,
        });
      }
      const cn = firstValue(peer.subject.CN);
      if (cn === undefined || cn === '') return Promise.resolve({ kind: 'not-authenticated' });
      return Promise.resolve({ kind: 'authenticated', user: { name: cn, groups: allValues(peer.subject.O) } });
    },
  };
}

function tlsSocket(req: IncomingMessage): TLSSocket | undefined {
  const socket = req.socket as Partial<TLSSocket>;
  return typeof socket.getPeerCertificate === 'function' ? (socket as TLSSocket) : undefined;
}

function issuedBy(cert: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

/** The leaf, then its issuers as the TLS stack built the chain (the root refers to itself). */
function peerChain(peer: DetailedPeerCertificate): X509Certificate[] {
  const chain: X509Certificate[] = [];
  const seen = new Set<string>();
  for (let c: DetailedPeerCertificate | undefined = peer; c?.raw !== undefined; c = c.issuerCertificate) {
    if (seen.has(c.fingerprint256)) break;
    seen.add(c.fingerprint256);
    chain.push(new X509Certificate(c.raw));
  }
  return chain;
}

function certificateIdentifier(peer: DetailedPeerCertificate): string {
  return `CN=${firstValue(peer.subject.CN) ?? ''}, SN=${peer.serialNumber}`;
}

function firstValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function allValues(v: string | string[] | undefined): string[] {
  return v === undefined ? [] : Array.isArray(v) ? [...v] : [v];
}

const tokenReviewSchema = z.object({
  status: z
    .object({
      authenticated: z.boolean().optional(),
      user: z
        .object({
          username: z.string().optional(),
          uid: z.string().optional(),
          groups: z.array(z.string()).nullish(),
          extra: z.record(z.string(), z.array(z.string()).nullable()).nullish(),
        })
        .optional(),
      audiences: z.array(z.string()).nullish(),
      error: z.string().optional(),
    })
    .optional(),
});

export interface WebhookTokenAuthenticatorOptions {
  reviewer: TokenReviewer;
  /** How long answers are cached, successes and rejections alike (`authentication.webhook.cacheTTL`, 2m). */
  cacheTtlMs?: number;
  clock?: Clock;
  /** The audiences the token must be meant for; empty or unset: any (the kubelet sets none). */
  audiences?: readonly string[];
  /** Deadline of one review (upstream's TokenAccessReviewTimeout, 10s). */
  timeoutMs?: number;
}

/** `authentication.webhook.cacheTTL`'s default. */
export const DEFAULT_TOKEN_CACHE_TTL_MS = 2 * 60_000;

type CachedToken = { kind: 'authenticated'; user: UserInfo } | { kind: 'failed'; message: string };

/**
 * Upstream `authenticator.Token`: what a bearer token is worth, whichever way the request carried it
 * (the Authorization header, a WebSocket subprotocol). `failed` when it does not authenticate.
 */
export interface TokenAuthenticator {
  authenticateToken(token: string): Promise<AuthenticationResult>;
}

/** The bearer-token request authenticator, whose cached token reviews other authenticators may share. */
export interface WebhookTokenAuthenticator extends Authenticator, TokenAuthenticator {}

/**
 * Upstream's bearertoken authenticator over the cached webhook token authenticator:
 * `Authorization: Bearer <token>` is sent to the API server as a TokenReview. No such header (or an empty
 * token) is not-authenticated; a token the review does not authenticate is a failure ("invalid bearer
 * token"). Answers are cached by a hash of the token (never the token) for `cacheTtlMs`; reviewer errors
 * and reviews carrying `status.error` are not cached (upstream's delegating config: cacheErrs=false).
 * On success the Authorization header is removed from the request, as upstream does. `authenticateToken`
 * answers from the same cache, for `createWebSocketProtocolAuthenticator`.
 */
export function createWebhookTokenAuthenticator(options: WebhookTokenAuthenticatorOptions): WebhookTokenAuthenticator {
  const clock = options.clock ?? systemClock;
  const ttl = options.cacheTtlMs ?? DEFAULT_TOKEN_CACHE_TTL_MS;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const audiences = [...(options.audiences ?? [])];
  const cache = new TtlCache<CachedToken>(clock);

  const reviewToken = async (token: string): Promise<{ result: CachedToken; cacheable: boolean }> => {
    const outcome = await review('token review', (signal) => options.reviewer.review(token, signal), tokenReviewSchema, clock, timeoutMs);
    if (!outcome.ok) {
      const message =
        outcome.stage === 'call'
          ? `token review failed: ${errorMessage(outcome.err)}`
          : `token review reply is not a TokenReview${outcome.where}`;
      return { result: { kind: 'failed', message }, cacheable: false };
    }
    const status = outcome.reply.status ?? {};
    if (status.authenticated !== true) {
      if (status.error !== undefined && status.error !== '') return { result: { kind: 'failed', message: status.error }, cacheable: false };
      return { result: { kind: 'failed', message: 'invalid bearer token' }, cacheable: true };
    }
    if (audiences.length > 0 && !(status.audiences ?? []).some((a) => audiences.includes(a))) {
      const message = `token audiences ${JSON.stringify(status.audiences ?? [])} is invalid for the target audiences ${JSON.stringify(audiences)}`;
      return { result: { kind: 'failed', message }, cacheable: false };
    }
    const u = status.user ?? {};
    const extra = Object.fromEntries(Object.entries(u.extra ?? {}).map(([k, v]) => [k, v ?? []]));
    const user: UserInfo = {
      name: u.username ?? '',
      groups: [...(u.groups ?? [])],
      ...(u.uid !== undefined && u.uid !== '' ? { uid: u.uid } : {}),
      ...(Object.keys(extra).length > 0 ? { extra } : {}),
    };
    return { result: { kind: 'authenticated', user }, cacheable: true };
  };

  const authenticateToken = async (token: string): Promise<AuthenticationResult> => {
    const key = tokenKey(token, audiences);
    let result = cache.get(key);
    if (result === undefined) {
      const fresh = await reviewToken(token);
      result = fresh.result;
      if (fresh.cacheable) cache.set(key, result, ttl);
    }
    return result.kind === 'authenticated' ? { kind: 'authenticated', user: structuredClone(result.user) } : result;
  };

  return {
    authenticateToken,
    async authenticate(req) {
      const token = bearerToken(req.headers.authorization);
      if (token === undefined) return { kind: 'not-authenticated' };
      const result = await authenticateToken(token);
      if (result.kind === 'authenticated') delete req.headers.authorization;
      return result;
    },
  };
}

const BEARER_PROTOCOL_PREFIX = 'base64url.bearer.authorization.k8s.io.';
const BASE64URL_RAW = /^[A-Za-z0-9_-]*$/;

/** Upstream wsstream.IsWebSocketRequest: `Upgrade: websocket` and a Connection header listing upgrade (first values). */
function isWebSocketRequest(req: IncomingMessage): boolean {
  if ((firstHeader(req, 'upgrade') ?? '').toLowerCase() !== 'websocket') return false;
  return /(^|.*,\s*)upgrade($|\s*,)/.test((firstHeader(req, 'connection') ?? '').toLowerCase());
}

/** Go's base64.RawURLEncoding.DecodeString: the URL alphabet, no padding; undefined when malformed. */
function decodeRawBase64Url(encoded: string): Buffer | undefined {
  if (!BASE64URL_RAW.test(encoded) || encoded.length % 4 === 1) return undefined;
  return Buffer.from(encoded, 'base64url');
}

export interface WebSocketProtocolAuthenticatorOptions {
  /** The token authenticator (and cache) the bearer-token authenticator uses. */
  tokens: TokenAuthenticator;
}

/**
 * Upstream websocket.ProtocolAuthenticator: browsers cannot set Authorization on a WebSocket, so a
 * WebSocket upgrade request may carry its bearer token as a `Sec-WebSocket-Protocol` entry
 * `base64url.bearer.authorization.k8s.io.<base64url token, unpadded>`. Other requests, and WebSocket
 * requests without such an entry (or with an empty token), are not-authenticated. Two such entries, a
 * token that is not base64url or not UTF-8, or a token without another subprotocol beside it (one must
 * be left to echo back) fail; a token the review does not authenticate fails with `invalid bearer token`.
 * On success the entry is removed from the header (the others joined with `,`), so that it never reaches
 * the runtime's streaming server.
 */
export function createWebSocketProtocolAuthenticator(options: WebSocketProtocolAuthenticatorOptions): Authenticator {
  const { tokens } = options;
  const failed = (message: string): AuthenticationResult => ({ kind: 'failed', message });
  return {
    async authenticate(req) {
      if (!isWebSocketRequest(req)) return { kind: 'not-authenticated' };
      let token = '';
      let sawToken = false;
      const filtered: string[] = [];
      for (const header of allHeaders(req, 'sec-websocket-protocol')) {
        for (const entry of header.split(',')) {
          const protocol = entry.trim();
          if (!protocol.startsWith(BEARER_PROTOCOL_PREFIX)) {
            filtered.push(protocol);
            continue;
          }
          if (sawToken) return failed('multiple base64.bearer.authorization tokens specified');
          sawToken = true;
          const decoded = decodeRawBase64Url(protocol.slice(BEARER_PROTOCOL_PREFIX.length));
          if (decoded === undefined) return failed('invalid base64.bearer.authorization token encoding');
          if (!isUtf8(decoded)) return failed('invalid base64.bearer.authorization token');
          token = decoded.toString('utf8');
        }
      }
      if (token !== '' && filtered.length === 0) return failed('missing additional subprotocol');
      if (token === '') return { kind: 'not-authenticated' };
      const result = await tokens.authenticateToken(token);
      if (result.kind === 'authenticated') {
        setHeader(req, 'Sec-WebSocket-Protocol', filtered.join(','));
        return result;
      }
      return result.kind === 'failed' ? result : { kind: 'failed', message: 'invalid bearer token' };
    },
  };
}

/** The token of `Authorization: Bearer <token>` (scheme case-insensitive, as upstream), or undefined. */
function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const parts = header.trim().split(' ');
  if (parts.length < 2 || parts[0]?.toLowerCase() !== 'bearer') return undefined;
  const token = parts[1] ?? '';
  return token === '' ? undefined : token;
}

/** A hash of the token and the audiences, length-prefixed so that no two inputs collide by concatenation. */
function tokenKey(token: string, audiences: readonly string[]): string {
  const h = createHash('sha256');
  const put = (s: string): void => {
    const b = Buffer.from(s, 'utf8');
    const len = Buffer.alloc(4);
    len.writeUInt32BE(b.length);
    h.update(len).update(b);
  };
  put(token);
  put(String(audiences.length));
  for (const a of audiences) put(a);
  return h.digest('base64');
}

export interface UnionAuthenticatorOptions {
  /** `authentication.anonymous.enabled`: a request no authenticator recognised or failed on is system:anonymous. */
  anonymous: boolean;
}

/**
 * Upstream's delegating authenticator: the authenticators in order, the first that authenticates wins and
 * its user gets `system:authenticated` (AuthenticatedGroupAdder); a failure does not stop the others.
 * When none authenticates, any failure is the answer (401 even with anonymous on: FailOnError); otherwise
 * the request is anonymous when enabled, not-authenticated when not. An authenticator that rejects counts
 * as a failure.
 */
export function unionAuthenticator(authenticators: readonly Authenticator[], options: UnionAuthenticatorOptions): Authenticator {
  const list = [...authenticators];
  return {
    async authenticate(req) {
      const failures: string[] = [];
      for (const authenticator of list) {
        let result: AuthenticationResult;
        try {
          result = await authenticator.authenticate(req);
        } catch (err) {
          result = { kind: 'failed', message: errorMessage(err) };
        }
        if (result.kind === 'authenticated') return { kind: 'authenticated', user: withAuthenticatedGroup(result.user) };
        if (result.kind === 'failed') failures.push(result.message);
      }
      if (failures.length === 1) return { kind: 'failed', message: failures[0] ?? '' };
      if (failures.length > 1) return { kind: 'failed', message: `[${failures.join(', ')}]` };
      if (options.anonymous) return { kind: 'authenticated', user: { name: ANONYMOUS_USER, groups: [UNAUTHENTICATED_GROUP] } };
      return { kind: 'not-authenticated' };
    },
  };
}

function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.groups.some((g) => g === AUTHENTICATED_GROUP || g === UNAUTHENTICATED_GROUP)) return user;
  return { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}
