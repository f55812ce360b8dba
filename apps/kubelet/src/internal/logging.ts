import { pino } from 'pino';
import type { Logger as PinoLogger } from 'pino';
import type { LogFields, Logger } from '@kubelet-ts/common';

export type LogFormat = 'text' | 'json';

export interface KubeletLoggerOptions {
  /** klog verbosity (`-v`): debug records are written from 4 up, as the kubelet logs its detail at V(4); see setVerbosity. */
  verbosity: number;
  format: LogFormat;
  /** Where lines go; stderr like klog by default. */
  write?: (line: string) => void;
}

const LEVEL_LETTER: Record<number, string> = { 10: 'I', 20: 'I', 30: 'I', 40: 'W', 50: 'E', 60: 'F' };

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function quote(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value instanceof Error) return JSON.stringify(value.message);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return JSON.stringify(value);
}

/** Renders one pino JSON record as a klog text line: `I1129 18:58:35.123456 1234 kubelet] "msg" key="value"`. */
export function formatKlogLine(record: Record<string, unknown>): string {
  const { level, time, pid, msg, hostname: _hostname, component, ...rest } = record;
  const t = new Date(typeof time === 'number' ? time : Date.now());
  const letter = LEVEL_LETTER[typeof level === 'number' ? level : 30] ?? 'I';
  const stamp = `${pad(t.getUTCMonth() + 1)}${pad(t.getUTCDate())} ${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}.${pad(t.getUTCMilliseconds(), 3)}000`;
  const fields = Object.entries(rest)
    .map(([key, value]) => `${key}=${quote(value)}`)
    .join(' ');
  const where = typeof component === 'string' ? component : 'kubelet';
  return `${letter}${stamp} ${String(pid ?? process.pid).padStart(7)} ${where}] ${JSON.stringify(String(msg ?? ''))}${fields ? ` ${fields}` : ''}\n`;
}

/** klog's `-v` from which the kubelet's detail (debug records) is written. */
const DEBUG_VERBOSITY = 4;

/** The kubelet's logger, whose verbosity `/debug/flags/v` changes while it runs. */
export interface KubeletLogger extends Logger {
  readonly verbosity: number;
  /** Sets `-v` for this logger and every child made from it, before or after (component-base GlogSetter). */
  setVerbosity(verbosity: number): void;
}

class PinoAdapter implements KubeletLogger {
  readonly #pino: PinoLogger;
  // Shared by a logger and its children: pino children keep the level they were made with, so the
  // threshold is applied here instead.
  readonly #state: { verbosity: number };
  constructor(logger: PinoLogger, state: { verbosity: number }) {
    this.#pino = logger;
    this.#state = state;
  }
  get verbosity(): number {
    return this.#state.verbosity;
  }
  setVerbosity(verbosity: number): void {
    this.#state.verbosity = verbosity;
  }
  debug(msg: string, fields?: LogFields): void {
    if (this.#state.verbosity < DEBUG_VERBOSITY) return;
    this.#pino.debug(normalize(fields), msg);
  }
  info(msg: string, fields?: LogFields): void {
    this.#pino.info(normalize(fields), msg);
  }
  warn(msg: string, fields?: LogFields): void {
    this.#pino.warn(normalize(fields), msg);
  }
  error(msg: string, fields?: LogFields): void {
    this.#pino.error(normalize(fields), msg);
  }
  child(fields: LogFields): KubeletLogger {
    return new PinoAdapter(this.#pino.child(normalize(fields)), this.#state);
  }
}

/** Errors are logged as their message under `err`, as klog's structured logging does. */
function normalize(fields: LogFields | undefined): LogFields {
  if (fields === undefined) return {};
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) out[key] = value instanceof Error ? value.message : value;
  return out;
}

/**
 * The kubelet's log sink: pino, with klog-like text (default) or JSON lines, on stderr. Debug records
 * are written from verbosity 4 up; `setVerbosity` moves the threshold while the kubelet runs.
 */
export function createKubeletLogger(options: KubeletLoggerOptions): KubeletLogger {
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const destination =
    options.format === 'json' ? { write } : { write: (line: string) => write(formatKlogLine(JSON.parse(line) as Record<string, unknown>)) };
  const logger = pino({ level: 'debug', base: { pid: process.pid }, messageKey: 'msg' }, destination);
  return new PinoAdapter(logger, { verbosity: options.verbosity });
}
