import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorMessage, noopLogger } from '@kubelet-ts/common';
import type { Logger } from '@kubelet-ts/common';
import type { AuthenticationResult, Authenticator, Authorizer } from './auth.js';
import { nodeRequestAttributes } from './authorizers.js';
import { requestUrl, sendBadRequest, sendErrorString } from './router.js';

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

export interface AuthFilterOptions {
  authenticator: Authenticator;
  authorizer: Authorizer;
  /** The node's name: the `nodes/<name>` every request is authorized against. */
  nodeName: string;
  logger?: Logger;
}

/** Wraps a request listener so that only authenticated, authorized requests reach it. */
export type AuthFilter = (next: RequestListener) => RequestListener;

// Upstream writes these with go-restful's WriteErrorString (the Forbidden text carries its own newline).
const writeError = sendErrorString;

/**
 * Upstream `InstallAuthFilter`: authenticate (401 `Unauthorized` when no user, the reason logged), then
 * authorize each attribute set of `nodeRequestAttributes` in order until one is allowed; none allowed is
 * 403 `Forbidden (user=…, verb=…, resource=…, subresource(s)=[…])`, an authorizer error 500
 * `Authorization error (…)`. The wrapped listener never throws.
 */
export function createAuthFilter(options: AuthFilterOptions): AuthFilter {
  const logger = options.logger ?? noopLogger;
  const { authenticator, authorizer, nodeName } = options;

  const handle = async (req: IncomingMessage, res: ServerResponse, next: RequestListener): Promise<void> => {
    let authn: AuthenticationResult;
    try {
      authn = await authenticator.authenticate(req);
    } catch (err) {
      authn = { kind: 'failed', message: errorMessage(err) };
    }
    if (authn.kind !== 'authenticated') {
      if (authn.kind === 'failed')
        logger.error('Unable to authenticate the request due to an error', { err: authn.message, path: req.url });
      writeError(res, 401, 'Unauthorized');
      return;
    }
    const url = requestUrl(req);
    if (url === undefined) return sendBadRequest(res);
    const path = url.pathname;
    const attrsList = nodeRequestAttributes(authn.user, req.method ?? 'GET', path, nodeName);
    const subresources: string[] = [];
    for (const attrs of attrsList) {
      subresources.push(attrs.subresource);
      let decision: string;
      try {
        decision = (await authorizer.authorize(attrs)).decision;
      } catch (err) {
        const fields = { user: attrs.user.name, verb: attrs.verb, resource: attrs.resource, subresource: attrs.subresource };
        logger.error('Authorization error', { ...fields, err: errorMessage(err) });
        writeError(
          res,
          500,
          `Authorization error (user=${fields.user}, verb=${fields.verb}, resource=${fields.resource}, subresource=${fields.subresource})`,
        );
        return;
      }
      if (decision === 'allow') {
        next(req, res);
        return;
      }
    }
    const first = attrsList[0];
    const user = first?.user.name ?? authn.user.name;
    const verb = first?.verb ?? '';
    const resource = first?.resource ?? 'nodes';
    logger.debug('Forbidden', { user, verb, resource, 'subresource(s)': subresources });
    writeError(res, 403, `Forbidden (user=${user}, verb=${verb}, resource=${resource}, subresource(s)=[${subresources.join(' ')}])\n`);
  };

  return (next) => (req, res) => {
    handle(req, res, next).catch((err: unknown) => {
      logger.error('auth filter failed', { path: req.url, err: errorMessage(err) });
      if (!res.headersSent) writeError(res, 500, 'Internal Server Error\n');
      else res.destroy();
    });
  };
}
