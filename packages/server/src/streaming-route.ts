// Upstream server.go getExec, getAttach, getPortForward and getRun: /exec, /attach, /portForward
// through the runtime's streaming server, /run through ExecSync.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Pod } from '@kubelet-ts/api';
import { errorMessage } from '@kubelet-ts/common';
import type { Logger } from '@kubelet-ts/common';
import { proxyStream } from './internal/stream-proxy.js';
import type { Router } from './router.js';
import { pathSegments, sendErrorString, sendText } from './router.js';

/** Which streams an exec or attach carries (upstream remotecommand Options). */
export interface StreamOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/** A container of a pod the kubelet has, as the request names it. */
export interface ContainerTarget {
  pod: Pod;
  /** The `{uid}` path segment; `` when the request has none. */
  podUid: string;
  container: string;
}

/**
 * What the streaming routes need of the kubelet. A rejected promise becomes the response: status 404
 * when the error carries `status: 404` (the runtime's NotFound), 429 with `Retry-After: 60` for
 * `status: 429` (too many streams in flight), otherwise 500, the error's message as body — upstream's
 * streaming.WriteError.
 */
export interface StreamingSource {
  /** The pod the kubelet has under this namespace and name (upstream GetPodByName). */
  getPodByName(namespace: string, name: string): Pod | undefined;
  /** CRI Exec in the running container: the streaming URL. */
  getExec(request: ContainerTarget & { command: string[]; streams: StreamOptions }): Promise<string>;
  /** CRI Attach to the running container (its tty is the container's own): the streaming URL. */
  getAttach(request: ContainerTarget & { streams: StreamOptions }): Promise<string>;
  /** CRI PortForward into the pod's sandbox (ports only for WebSocket clients; SPDY names them per stream). */
  getPortForward(request: { pod: Pod; ports: number[] }): Promise<string>;
  /** Runs `command` in the running container and gives stdout then stderr (upstream RunInContainer). */
  runInContainer(request: ContainerTarget & { command: string[] }): Promise<Uint8Array>;
}

/** Upstream remotecommandserver.NewOptions: `input`, `output`, `error`, `tty` set to "1"; tty turns stderr off. */
export function streamOptionsFromQuery(query: URLSearchParams): StreamOptions {
  const flag = (name: string): boolean => query.get(name) === '1';
  const tty = flag('tty');
  const options = { stdin: flag('input'), stdout: flag('output'), stderr: flag('error') && !tty, tty };
  if (!options.stdin && !options.stdout && !options.stderr) throw new Error('you must specify at least 1 of stdin, stdout, stderr');
  return options;
}

/** Upstream portforward.NewV4Options: WebSocket clients name the ports in `port` (repeated or comma-separated). */
export function portsFromQuery(req: IncomingMessage, query: URLSearchParams): number[] {
  const upgrade = String(req.headers.upgrade ?? '').toLowerCase();
  const connection = String(req.headers.connection ?? '').toLowerCase();
  if (upgrade !== 'websocket' || !connection.split(',').some((t) => t.trim() === 'upgrade')) return [];
  const values = query.getAll('port');
  if (values.length === 0) throw new Error('query parameter "port" is required');
  const ports: number[] = [];
  for (const value of values) {
    if (value === '') throw new Error('query parameter "port" cannot be empty');
    for (const part of value.split(',')) {
      const port = /^\d{1,5}$/.test(part) ? Number(part) : NaN;
      if (!(port <= 65535)) throw new Error(`unable to parse ${JSON.stringify(value)} as a port`);
      if (port < 1) throw new Error(`port ${JSON.stringify(value)} must be > 0`);
      ports.push(port);
    }
  }
  return ports;
}

function streamingError(res: ServerResponse, err: unknown): void {
  const status = (err as { status?: unknown }).status;
  if (status === 404) return sendErrorString(res, 404, errorMessage(err));
  if (status === 429) return sendErrorString(res, 429, errorMessage(err), { 'Retry-After': '60' });
  sendErrorString(res, 500, errorMessage(err));
}

/** `{ns}/{pod}/{container}` or `{ns}/{pod}/{uid}/{container}`; undefined for any other shape. */
function containerPath(rest: string): { namespace: string; name: string; podUid: string; container: string } | undefined {
  const parts = pathSegments(rest);
  if (parts === undefined || parts.some((p) => p === '')) return undefined;
  if (parts.length === 3) return { namespace: parts[0] as string, name: parts[1] as string, podUid: '', container: parts[2] as string };
  if (parts.length === 4)
    return { namespace: parts[0] as string, name: parts[1] as string, podUid: parts[2] as string, container: parts[3] as string };
  return undefined;
}

/** `{ns}/{pod}` or `{ns}/{pod}/{uid}`. */
function podPath(rest: string): { namespace: string; name: string; podUid: string } | undefined {
  const parts = pathSegments(rest);
  if (parts === undefined || parts.some((p) => p === '') || parts.length < 2 || parts.length > 3) return undefined;
  return { namespace: parts[0] as string, name: parts[1] as string, podUid: parts[2] ?? '' };
}

const notFound = (res: ServerResponse): void => sendText(res, 404, '404 page not found\n');

type ContainerStreamHandler = (target: ContainerTarget, streams: StreamOptions, query: URLSearchParams) => Promise<string>;

function containerStream(source: StreamingSource, start: ContainerStreamHandler) {
  return async (req: IncomingMessage, res: ServerResponse, ctx: { url: URL; rest: string; logger: Logger }): Promise<void> => {
    const path = containerPath(ctx.rest);
    if (path === undefined) return notFound(res);
    let streams: StreamOptions;
    try {
      streams = streamOptionsFromQuery(ctx.url.searchParams);
    } catch (err) {
      return sendErrorString(res, 400, errorMessage(err));
    }
    const pod = source.getPodByName(path.namespace, path.name);
    if (pod === undefined) return sendErrorString(res, 404, 'pod does not exist');
    let target: string;
    try {
      target = await start({ pod, podUid: path.podUid, container: path.container }, streams, ctx.url.searchParams);
    } catch (err) {
      return streamingError(res, err);
    }
    await proxyStream(req, res, new URL(target), ctx.logger);
  };
}

/**
 * Installs the streaming endpoints of the authenticated server: `/exec/{ns}/{pod}[/{uid}]/{container}`
 * and `/attach/…` (GET or POST; `command` repeated, `input`/`output`/`error`/`tty`), `/portForward/{ns}/{pod}[/{uid}]`
 * (GET or POST), each proxied to the runtime's streaming server (upgrade requests only), and
 * `/run/{ns}/{pod}[/{uid}]/{container}?cmd=…` (POST; the command split on spaces), whose output is the body.
 */
export function installStreaming(router: Pick<Router, 'add'>, source: StreamingSource): void {
  router.add(
    ['GET', 'POST'],
    '/exec/*',
    containerStream(source, (target, streams, query) => source.getExec({ ...target, command: query.getAll('command'), streams })),
  );
  router.add(
    ['GET', 'POST'],
    '/attach/*',
    containerStream(source, (target, streams) => source.getAttach({ ...target, streams })),
  );
  router.add(['GET', 'POST'], '/portForward/*', async (req, res, { url, rest, logger }) => {
    const path = podPath(rest);
    if (path === undefined) return notFound(res);
    let ports: number[];
    try {
      ports = portsFromQuery(req, url.searchParams);
    } catch (err) {
      return sendErrorString(res, 400, errorMessage(err));
    }
    const pod = source.getPodByName(path.namespace, path.name);
    if (pod === undefined) return sendErrorString(res, 404, 'pod does not exist');
    if (path.podUid !== '' && pod.metadata.uid !== path.podUid) return sendErrorString(res, 404, 'pod not found');
    let target: string;
    try {
      target = await source.getPortForward({ pod, ports });
    } catch (err) {
      return streamingError(res, err);
    }
    await proxyStream(req, res, new URL(target), logger);
  });
  router.add(['POST'], '/run/*', async (_req, res, { url, rest }) => {
    const path = containerPath(rest);
    if (path === undefined) return notFound(res);
    const pod = source.getPodByName(path.namespace, path.name);
    if (pod === undefined) return sendErrorString(res, 404, 'pod does not exist');
    // For legacy reasons /run takes `cmd`, split on single spaces, where exec takes `command`.
    const command = (url.searchParams.get('cmd') ?? '').split(' ');
    let output: Uint8Array;
    try {
      output = await source.runInContainer({ pod, podUid: path.podUid, container: path.container, command });
    } catch (err) {
      return sendErrorString(res, 500, errorMessage(err));
    }
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': output.byteLength });
    res.end(output);
  });
}
