// Upstream server.go InstallProfilingHandler (/debug/pprof/, Go's net/http/pprof) and
// InstallDebugFlagsHandler (/debug/flags/v, apiserver routes.StringFlagPutHandler(logs.GlogSetter)).
// Node.js has no pprof: the profiles served are V8's, in V8's formats.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { getHeapSnapshot } from 'node:v8';
import { errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import type { Clock, Logger } from '@kubelet-ts/common';
import type { Router } from './router.js';
import { sendText } from './router.js';

/** Upstream's pprofBasePath. */
export const PPROF_PATH = '/debug/pprof/';
/** Upstream's debugFlagPath. */
export const DEBUG_FLAGS_PATH = '/debug/flags/v';

/** The kubelet's server answers within 4h (upstream's WriteTimeout); a longer profile is refused, as Go's pprof does. */
const WRITE_TIMEOUT_SECONDS = 4 * 60 * 60;
const DEFAULT_PROFILE_SECONDS = 30;
/** A flag value is a number: a body larger than this is refused rather than read. */
const MAX_FLAG_BODY_BYTES = 1 << 20;

/** What a CPU profiler must do: start sampling, and stop with the profile taken since. */
export interface CpuProfiler {
  /** Starts sampling; rejects when it cannot (no inspector). */
  start(): Promise<{ stop(): Promise<unknown> }>;
}

export interface ProfilingOptions {
  /** Drives the profile's duration (tests use FakeClock). */
  clock?: Clock;
  logger?: Logger;
  /** Default: V8's profiler over a node:inspector session in this thread. */
  cpuProfiler?: CpuProfiler;
  /** Default: node:v8 getHeapSnapshot. */
  heapSnapshot?: () => Readable;
}

/** V8's sampling CPU profiler through an inspector session on the kubelet's own (main) thread. */
const inspectorProfiler: CpuProfiler = {
  async start() {
    // Loaded when asked for: a node built without the inspector fails this request, not the package.
    const { Session } = await import('node:inspector/promises');
    const session = new Session();
    session.connect();
    try {
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    } catch (err) {
      session.disconnect();
      throw err;
    }
    return {
      async stop() {
        try {
          return (await session.post('Profiler.stop')).profile;
        } finally {
          session.disconnect();
        }
      },
    };
  },
};

/** Go's pprof serveError: the text, and X-Go-Pprof so that pprof clients show it as an error. */
function pprofError(res: ServerResponse, status: number, text: string): void {
  sendText(res, status, `${text}\n`, { 'X-Go-Pprof': '1' });
}

/** Go's strconv.ParseInt(s, 10, 64), or undefined. */
function parseInt64(s: string): number | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n > 9223372036854775807n || n < -9223372036854775808n ? undefined : Number(n);
}

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&#34;', "'": '&#39;' })[c] as string);

const PROFILES: ReadonlyArray<{ name: string; href: string; description: string }> = [
  {
    name: 'profile',
    href: 'profile?seconds=30',
    description:
      'CPU profile of the kubelet\'s JavaScript thread, sampled by V8 for "seconds" (default 30): a .cpuprofile JSON document, ' +
      'opened by Chrome DevTools (Performance), VS Code or speedscope. One at a time.',
  },
  {
    name: 'heap',
    href: 'heap',
    description:
      'V8 heap snapshot: every object on the JavaScript heap (after a full garbage collection), as a .heapsnapshot JSON ' +
      'document, opened by Chrome DevTools (Memory). Taking it stops the kubelet for a moment and needs memory of the order of the heap.',
  },
  {
    name: 'cmdline',
    href: 'cmdline',
    description: "The command line: node's executable, its flags and the kubelet's arguments, separated by NUL bytes.",
  },
];

function indexPage(): string {
  const rows = PROFILES.map((p) => `<tr><td><a href="${escapeHtml(p.href)}">${escapeHtml(p.name)}</a></td></tr>\n`).join('');
  const descriptions = PROFILES.map(
    (p) => `<li><div class=profile-name>${escapeHtml(p.name)}: </div> ${escapeHtml(p.description)}</li>\n`,
  ).join('');
  return (
    '<html>\n<head>\n<title>/debug/pprof/</title>\n</head>\n<body>\n/debug/pprof/\n<br>\n' +
    "<p>kubelet-ts runs on Node.js: these are V8's profiles in V8's formats, not Go pprof; `go tool pprof` cannot read them.</p>\n" +
    `Types of profiles available:\n<table>\n<thead><td>Profile</td></thead>\n${rows}</table>\n` +
    `<p>\nProfile Descriptions:\n<ul>\n${descriptions}</ul>\n</p>\n</body>\n</html>\n`
  );
}

/**
 * `/debug/pprof/` (upstream's pprof handlers under enableProfilingHandler), GET only, behind the auth
 * filter like every debugging path (`nodes/proxy`). What Node.js can honestly give in place of Go's
 * profiles: `/debug/pprof/` an index of what is served; `profile?seconds=N` a V8 CPU profile (.cpuprofile
 * JSON; N as Go reads it: not a positive integer is 30; 4h or more is 400 `profile duration exceeds
 * server's WriteTimeout`; a second one while one runs is 500 `Could not enable CPU profiling: cpu
 * profiling already in use`; it stops early when the client goes); `heap` a V8 heap snapshot
 * (.heapsnapshot JSON; `gc` and `debug` are ignored, a snapshot always collects first); `cmdline` the
 * command line. Any other name is 404 `Unknown profile`.
 */
export function installProfiling(router: Pick<Router, 'add'>, options: ProfilingOptions = {}): void {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? noopLogger;
  const profiler = options.cpuProfiler ?? inspectorProfiler;
  const heapSnapshot = options.heapSnapshot ?? getHeapSnapshot;
  let profiling = false;

  const cpuProfile = async (res: ServerResponse, query: URLSearchParams): Promise<void> => {
    const asked = parseInt64(query.get('seconds') ?? '');
    const seconds = asked === undefined || asked <= 0 ? DEFAULT_PROFILE_SECONDS : asked;
    if (seconds >= WRITE_TIMEOUT_SECONDS) return pprofError(res, 400, "profile duration exceeds server's WriteTimeout");
    if (profiling) return pprofError(res, 500, 'Could not enable CPU profiling: cpu profiling already in use');
    profiling = true;
    try {
      let running: { stop(): Promise<unknown> };
      try {
        running = await profiler.start();
      } catch (err) {
        return pprofError(res, 500, `Could not enable CPU profiling: ${errorMessage(err)}`);
      }
      // Go's sleep(r, d): the profile ends early when the client goes away.
      const gone = new AbortController();
      const onClose = (): void => gone.abort();
      res.once('close', onClose);
      await clock.sleep(seconds * 1000, gone.signal).catch(() => undefined);
      res.off('close', onClose);
      const profile = await running.stop();
      if (gone.signal.aborted) return;
      const body = JSON.stringify(profile);
      res.writeHead(200, {
        'X-Content-Type-Options': 'nosniff',
        'Content-Type': 'application/octet-stream',
        'Content-Disposition': 'attachment; filename="profile.cpuprofile"',
        'Content-Length': Buffer.byteLength(body),
      });
      res.end(body);
    } finally {
      profiling = false;
    }
  };

  const heap = async (res: ServerResponse): Promise<void> => {
    let snapshot: Readable;
    try {
      snapshot = heapSnapshot();
    } catch (err) {
      return pprofError(res, 500, `Could not take a heap snapshot: ${errorMessage(err)}`);
    }
    res.writeHead(200, {
      'X-Content-Type-Options': 'nosniff',
      'Content-Type': 'application/octet-stream',
      'Content-Disposition': 'attachment; filename="heap.heapsnapshot"',
    });
    await pipeline(snapshot, res).catch((err: unknown) => {
      logger.warn('Heap snapshot not sent', { err: errorMessage(err) });
      res.destroy();
    });
  };

  router.add(['GET'], `${PPROF_PATH}*`, async (_req, res, { url, rest }) => {
    switch (rest) {
      case '': {
        const body = indexPage();
        res.writeHead(200, {
          'X-Content-Type-Options': 'nosniff',
          'Content-Type': 'text/html; charset=utf-8',
          'Content-Length': Buffer.byteLength(body),
        });
        return void res.end(body);
      }
      case 'profile':
        return cpuProfile(res, url.searchParams);
      case 'heap':
        return heap(res);
      case 'cmdline':
        return sendText(res, 200, [process.execPath, ...process.execArgv, ...process.argv.slice(1)].join('\x00'));
      default:
        return pprofError(res, 404, 'Unknown profile');
    }
  });
}

/** Upstream with enableProfilingHandler false: `/debug/pprof/` and below answer 405 `profiling endpoint is disabled.`. */
export function installProfilingDisabled(router: Pick<Router, 'add'>): void {
  router.add('*', `${PPROF_PATH}*`, async (_req, res) => sendText(res, 405, 'profiling endpoint is disabled.\n'));
}

/** Changes the log verbosity (klog's `-v`) of the running kubelet. Throwing refuses the value (400 with the message). */
export interface VerbositySetter {
  setVerbosity(level: number): void;
}

export interface DebugFlagsOptions {
  verbosity: VerbositySetter;
}

/** apiserver's writePlainText: `text/plain` (no charset), the text and a newline. */
function plainText(res: ServerResponse, status: number, text: string): void {
  const body = `${text}\n`;
  res.writeHead(status, { 'Content-Type': 'text/plain', 'X-Content-Type-Options': 'nosniff', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/** Go's strconv.Quote for the ASCII a flag body holds (printable as is; the rest escaped). */
function goQuote(s: string): string {
  const named: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' };
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0) as number;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (named[ch] !== undefined) out += named[ch];
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/**
 * component-base's GlogSetter: the value must be a base-10 uint32 (strconv.ParseUint's errors), and a
 * klog Level (int32); then every verbosity callback hears it.
 */
function setGlogVerbosity(value: string, verbosity: VerbositySetter): string {
  if (!/^\d+$/.test(value)) throw new Error(`strconv.ParseUint: parsing ${goQuote(value)}: invalid syntax`);
  const v = BigInt(value);
  if (v > 0xffffffffn) throw new Error(`strconv.ParseUint: parsing ${goQuote(value)}: value out of range`);
  if (v > 0x7fffffffn)
    throw new Error(`failed set klog.logging.verbosity ${value}: strconv.ParseInt: parsing ${goQuote(value)}: value out of range`);
  verbosity.setVerbosity(Number(v));
  return `successfully set klog.logging.verbosity to ${value}`;
}

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new Error('http: request body too large'));
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}

/**
 * `/debug/flags/v` (upstream's enableDebugFlagsHandler): `PUT` with a verbosity as the body sets the
 * kubelet's log verbosity at run time: 200 `successfully set klog.logging.verbosity to N`; a body that
 * is not a uint32 (no sign, no spaces or newline) is 400 with Go's parse error; another method 406
 * `unsupported http method`. Bodies over 1 MiB are refused (400), which upstream does not bother to.
 */
export function installDebugFlags(router: Pick<Router, 'add'>, options: DebugFlagsOptions): void {
  router.add('*', DEBUG_FLAGS_PATH, async (req, res, { logger }) => {
    if (req.method !== 'PUT') return plainText(res, 406, 'unsupported http method');
    let body: string;
    try {
      body = await readBody(req, MAX_FLAG_BODY_BYTES);
    } catch (err) {
      return plainText(res, 400, `error reading request body: ${errorMessage(err)}`);
    }
    let answer: string;
    try {
      answer = setGlogVerbosity(body, options.verbosity);
    } catch (err) {
      return plainText(res, 400, errorMessage(err));
    }
    logger.info('Log verbosity changed', { verbosity: Number(body) });
    plainText(res, 200, answer);
  });
}

/** Upstream with enableDebugFlagsHandler false: 405 `flags endpoint is disabled.`. */
export function installDebugFlagsDisabled(router: Pick<Router, 'add'>): void {
  router.add('*', DEBUG_FLAGS_PATH, async (_req, res) => sendText(res, 405, 'flags endpoint is disabled.\n'));
}
