import { errorMessage, systemClock } from '@kubelet-ts/common';
import type { Clock } from '@kubelet-ts/common';
import { z } from 'zod';
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer, SubjectAccessReviewer, UserInfo } from './auth.js';
import { ServerError } from './errors.js';
import { review } from './internal/review.js';
import { TtlCache } from './internal/ttl-cache.js';

/** `authorization.mode: AlwaysAllow`. */
export const alwaysAllowAuthorizer: Authorizer = {
  authorize: () => Promise.resolve({ decision: 'allow', reason: '' }),
};

/** Upstream `isSubpath`: the path itself or below it (`/pods`, `/pods/x`, not `/podsx`); a trailing `/` of the root is ignored. */
function isSubpath(subpath: string, root: string): boolean {
  const path = root.endsWith('/') ? root.slice(0, -1) : root;
  return subpath === path || (subpath.startsWith(path) && subpath[path.length] === '/');
}

const VERBS: Readonly<Record<string, string>> = { POST: 'create', GET: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** Paths with a fine-grained subresource tried before the coarse one (KubeletFineGrainedAuthz, on by default). */
const FINE_GRAINED: readonly (readonly [string, string])[] = [
  ['/pods', 'pods'],
  ['/healthz', 'healthz'],
  ['/configz', 'configz'],
  ['/runningpods/', 'pods'],
];

const COARSE: readonly (readonly [string, string])[] = [
  ['/stats', 'stats'],
  ['/metrics', 'metrics'],
  ['/logs', 'log'], // "log" as the other log subresources (pods/log)
  ['/checkpoint', 'checkpoint'],
  ['/statusz', 'statusz'],
  ['/flagz', 'configz'],
];

/**
 * Upstream `nodeAuthorizerAttributesGetter.GetRequestAttributes` with KubeletFineGrainedAuthz on: one
 * attribute set per candidate subresource of `nodes/<nodeName>`, the fine-grained one first (`/pods` →
 * pods, then proxy), tried in order by the filter. HEAD, OPTIONS and the like have the empty verb, as
 * upstream.
 */
export function nodeRequestAttributes(user: UserInfo, method: string, path: string, nodeName: string): AuthorizationAttributes[] {
  const verb = VERBS[method.toUpperCase()] ?? '';
  const subresources: string[] = [];
  const fine = FINE_GRAINED.find(([root]) => isSubpath(path, root));
  if (fine !== undefined) subresources.push(fine[1]);
  subresources.push(COARSE.find(([root]) => isSubpath(path, root))?.[1] ?? 'proxy');
  return subresources.map((subresource) => ({
    user,
    verb,
    namespace: '',
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'nodes',
    subresource,
    name: nodeName,
    resourceRequest: true,
    path,
  }));
}

/** The SubjectAccessReview upstream's webhook authorizer posts for `attrs` (empty fields omitted, as Go's omitempty). */
export function subjectAccessReviewFor(attrs: AuthorizationAttributes): {
  apiVersion: 'authorization.k8s.io/v1';
  kind: 'SubjectAccessReview';
  spec: Record<string, unknown>;
} {
  const opt = (key: string, value: string): Record<string, string> => (value === '' ? {} : { [key]: value });
  const target = attrs.resourceRequest
    ? {
        resourceAttributes: {
          ...opt('namespace', attrs.namespace),
          ...opt('verb', attrs.verb),
          ...opt('group', attrs.apiGroup),
          ...opt('version', attrs.apiVersion),
          ...opt('resource', attrs.resource),
          ...opt('subresource', attrs.subresource),
          ...opt('name', attrs.name),
        },
      }
    : { nonResourceAttributes: { ...opt('path', attrs.path), ...opt('verb', attrs.verb) } };
  const { user } = attrs;
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: {
      ...target,
      ...opt('user', user.name),
      ...(user.groups.length > 0 ? { groups: [...user.groups] } : {}),
      ...(user.extra !== undefined && Object.keys(user.extra).length > 0 ? { extra: structuredClone(user.extra) } : {}),
      ...opt('uid', user.uid ?? ''),
    },
  };
}

const sarReplySchema = z.object({
  status: z
    .object({
      allowed: z.boolean().optional(),
      denied: z.boolean().optional(),
      reason: z.string().optional(),
      evaluationError: z.string().optional(),
    })
    .optional(),
});

type SarStatus = NonNullable<z.infer<typeof sarReplySchema>['status']>;

export interface WebhookAuthorizerOptions {
  reviewer: SubjectAccessReviewer;
  /** `authorization.webhook.cacheAuthorizedTTL` (5m). */
  authorizedTtlMs?: number;
  /** `authorization.webhook.cacheUnauthorizedTTL` (30s). */
  unauthorizedTtlMs?: number;
  clock?: Clock;
  /** Deadline of one review. */
  timeoutMs?: number;
}

export const DEFAULT_AUTHORIZED_TTL_MS = 5 * 60_000;
export const DEFAULT_UNAUTHORIZED_TTL_MS = 30_000;

/**
 * Upstream's webhook authorizer (`authorization.mode: Webhook`): a SubjectAccessReview per attribute set,
 * its status cached by the review's spec (allowed for `authorizedTtlMs`, otherwise `unauthorizedTtlMs`).
 * allowed → allow, denied → deny, neither → no-opinion. A reviewer error, a reply that is not a review, or
 * one both allowed and denied rejects with a ServerError `WEBHOOK_FAILED` (the filter answers 500).
 */
export function createWebhookAuthorizer(options: WebhookAuthorizerOptions): Authorizer {
  const clock = options.clock ?? systemClock;
  const authorizedTtl = options.authorizedTtlMs ?? DEFAULT_AUTHORIZED_TTL_MS;
  const unauthorizedTtl = options.unauthorizedTtlMs ?? DEFAULT_UNAUTHORIZED_TTL_MS;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const cache = new TtlCache<SarStatus>(clock);

  const reviewSar = async (sar: object): Promise<SarStatus> => {
    const outcome = await review(
      'subject access review',
      (signal) => options.reviewer.review(sar, signal),
      sarReplySchema,
      clock,
      timeoutMs,
    );
    if (outcome.ok) return outcome.reply.status ?? {};
    if (outcome.stage === 'call') {
      throw new ServerError('WEBHOOK_FAILED', `subject access review failed: ${errorMessage(outcome.err)}`, { cause: outcome.err });
    }
    throw new ServerError('WEBHOOK_FAILED', `subject access review reply is not a SubjectAccessReview${outcome.where}`);
  };

  return {
    async authorize(attrs) {
      const sar = subjectAccessReviewFor(attrs);
      const key = JSON.stringify(sar.spec);
      let status = cache.get(key);
      if (status === undefined) {
        status = await reviewSar(sar);
        cache.set(key, status, status.allowed === true ? authorizedTtl : unauthorizedTtl);
      }
      const reason = status.reason ?? '';
      if (status.allowed === true && status.denied === true) {
        throw new ServerError('WEBHOOK_FAILED', 'webhook subject access review returned both allow and deny response');
      }
      const decision: AuthorizationDecision = status.denied === true ? 'deny' : status.allowed === true ? 'allow' : 'no-opinion';
      return { decision, reason };
    },
  };
}
