import type { IncomingMessage } from 'node:http';

/** Who made a request (upstream `user.Info`). */
export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/**
 * What an authenticator makes of a request: a user; `not-authenticated` when the request carries no
 * credential it understands; `failed` when it carries one that does not authenticate (the message is for
 * the log only: the client sees 401 `Unauthorized`).
 */
export type AuthenticationResult =
  { kind: 'authenticated'; user: UserInfo } | { kind: 'not-authenticated' } | { kind: 'failed'; message: string };

/** Upstream `authenticator.Request`. Never rejects: an error is a `failed` result. */
export interface Authenticator {
  authenticate(req: IncomingMessage): Promise<AuthenticationResult>;
}

/** Upstream `authorizer.Attributes` as the kubelet fills them (`AttributesRecord`). */
export interface AuthorizationAttributes {
  user: UserInfo;
  /** `get`, `create`, `update`, `patch`, `delete`, or `` for other methods. */
  verb: string;
  namespace: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  name: string;
  resourceRequest: boolean;
  path: string;
}

export type AuthorizationDecision = 'allow' | 'deny' | 'no-opinion';

/**
 * Upstream `authorizer.Authorizer`. A rejection is an authorization error (the filter answers 500), not a
 * denial.
 */
export interface Authorizer {
  authorize(attrs: AuthorizationAttributes): Promise<{ decision: AuthorizationDecision; reason: string }>;
}

/** Posts a TokenReview with `spec.token` and resolves with the API server's raw reply (kube-client `tokenReviewsApi`). */
export interface TokenReviewer {
  review(token: string, signal?: AbortSignal): Promise<unknown>;
}

/** Posts a SubjectAccessReview and resolves with the raw reply (kube-client `subjectAccessReviewsApi`). */
export interface SubjectAccessReviewer {
  review(sar: object, signal?: AbortSignal): Promise<unknown>;
}

/** The user and group of a request no authenticator recognised, with anonymous auth on (upstream `user.Anonymous`). */
export const ANONYMOUS_USER = 'system:anonymous';
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';
/** Added to every authenticated user (upstream `user.AllAuthenticated`). */
export const AUTHENTICATED_GROUP = 'system:authenticated';
