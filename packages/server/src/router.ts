import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorMessage, noopLogger } from '@kubelet-ts/common';
import type { Logger } from '@kubelet-ts/common';
import { ServerError } from './errors.js';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

/** What a handler gets besides the request and response. */
export interface RouteContext {
  /** The parsed request URL (query in `url.searchParams`). */
  url: URL;
  /** For a prefix route (`/containerLogs/*`), the path after the prefix (`ns/pod/container`); otherwise ``. */
  rest: string;
  logger: Logger;
}

export type RouteHandler = (req: IncomingMessage, res: ServerResponse, ctx: RouteContext) => void | Promise<void>;

/**
 * Maps paths to handlers, so that other packages can add endpoints (`/stats/summary`, `/containerLogs/*`,
 * `/metrics`) to a server they do not own. A path is exact (`/pods`) or a prefix ending in `/*`
 * (`/healthz/*` matches `/healthz/ping`). Exact routes win over prefixes, longer prefixes over shorter.
 */
export interface Router {
  /** Registers `handler` for `methods` (or every method with `'*'`) on `path`. */
  add(methods: readonly HttpMethod[] | '*', path: string, handler: RouteHandler): void;
  /** Shorthand for `add(['GET', 'HEAD'], path, handler)`. */
  get(path: string, handler: RouteHandler): void;
  /** The node:http request listener: dispatches, answers 404/405, and turns handler errors into 500. */
  readonly listener: (req: IncomingMessage, res: ServerResponse) => void;
  /** Registered paths, for diagnostics. */
  paths(): string[];
}

interface Route {
  methods: ReadonlySet<string> | '*';
  handler: RouteHandler;
}

/** Writes a plain-text response (what Go's http.Error does: the text plus a newline). */
export function sendText(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

/**
 * Writes an error the way upstream's go-restful `WriteErrorString` does: the text exactly as given (no
 * newline added), `text/plain`.
 */
export function sendErrorString(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** The `/`-separated segments of a prefix route's rest, percent-decoded; undefined when an escape is malformed. */
export function pathSegments(rest: string): string[] | undefined {
  try {
    return rest.split('/').map((p) => decodeURIComponent(p));
  } catch {
    return undefined;
  }
}

/**
 * The request's URL (its query in `searchParams`), or undefined for a request target no URL parser
 * accepts (`http://[::1/x`, a port over 65535): those are answered 400 `400 Bad Request`, as Go's
 * server answers a request URI it cannot parse.
 */
export function requestUrl(req: IncomingMessage): URL | undefined {
  try {
    return new URL(req.url ?? '/', 'http://kubelet.local');
  } catch {
    return undefined;
  }
}

/** Go's answer to a request it cannot parse. */
export function sendBadRequest(res: ServerResponse): void {
  res.shouldKeepAlive = false;
  sendErrorString(res, 400, '400 Bad Request', { Connection: 'close' });
}

/** Writes a JSON response. */
export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

export interface RouterOptions {
  logger?: Logger;
}

export function createRouter(options: RouterOptions = {}): Router {
  const logger = options.logger ?? noopLogger;
  const exact = new Map<string, Route[]>();
  const prefixes = new Map<string, Route[]>();

  const find = (pathname: string): { routes: Route[]; rest: string } | undefined => {
    const routes = exact.get(pathname);
    if (routes !== undefined) return { routes, rest: '' };
    let best: string | undefined;
    for (const prefix of prefixes.keys()) {
      if (pathname.startsWith(prefix) && (best === undefined || prefix.length > best.length)) best = prefix;
    }
    return best === undefined ? undefined : { routes: prefixes.get(best) as Route[], rest: pathname.slice(best.length) };
  };

  const dispatch = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = requestUrl(req);
    if (url === undefined) {
      sendBadRequest(res);
      return;
    }
    const method = req.method ?? 'GET';
    const match = find(url.pathname);
    if (match === undefined) {
      sendText(res, 404, '404 page not found\n');
      return;
    }
    const route = match.routes.find((r) => r.methods === '*' || r.methods.has(method));
    if (route === undefined) {
      const allowed = [...new Set(match.routes.flatMap((r) => (r.methods === '*' ? [] : [...r.methods])))];
      sendText(res, 405, '405: Method Not Allowed\n', { Allow: allowed.join(', ') });
      return;
    }
    await route.handler(req, res, { url, rest: match.rest, logger });
  };

  const add = (methods: readonly HttpMethod[] | '*', path: string, handler: RouteHandler): void => {
    if (!path.startsWith('/')) throw new ServerError('INVALID_ROUTE', `route path must start with "/": ${path}`);
    const isPrefix = path.endsWith('/*');
    const key = isPrefix ? path.slice(0, -1) : path;
    const table = isPrefix ? prefixes : exact;
    const routes = table.get(key) ?? [];
    const wanted = methods === '*' ? '*' : new Set<string>(methods);
    const overlaps = routes.some(
      (r) => r.methods === '*' || wanted === '*' || [...wanted].some((m) => (r.methods as ReadonlySet<string>).has(m)),
    );
    if (overlaps) throw new ServerError('INVALID_ROUTE', `a handler is already registered for ${path}`);
    routes.push({ methods: wanted, handler });
    table.set(key, routes);
  };

  return {
    add,
    get(path, handler) {
      add(['GET', 'HEAD'], path, handler);
    },
    listener(req, res) {
      dispatch(req, res).catch((err: unknown) => {
        logger.error('HTTP handler failed', { method: req.method, path: req.url, err: errorMessage(err) });
        if (!res.headersSent) sendText(res, 500, 'Internal Server Error\n');
        else res.destroy();
      });
    },
    paths() {
      return [...exact.keys(), ...[...prefixes.keys()].map((p) => `${p}*`)].sort();
    },
  };
}
