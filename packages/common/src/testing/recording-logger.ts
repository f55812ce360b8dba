import type { LogFields, Logger } from '../logger.js';

export interface LogRecord {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
  fields: LogFields;
}

/** A logger that keeps every record (child fields merged in) for assertions. */
export class RecordingLogger implements Logger {
  readonly records: LogRecord[];
  readonly #bound: LogFields;

  constructor(records: LogRecord[] = [], bound: LogFields = {}) {
    this.records = records;
    this.#bound = bound;
  }

  debug(msg: string, fields?: LogFields): void {
    this.#push('debug', msg, fields);
  }
  info(msg: string, fields?: LogFields): void {
    this.#push('info', msg, fields);
  }
  warn(msg: string, fields?: LogFields): void {
    this.#push('warn', msg, fields);
  }
  error(msg: string, fields?: LogFields): void {
    this.#push('error', msg, fields);
  }
  child(fields: LogFields): Logger {
    return new RecordingLogger(this.records, { ...this.#bound, ...fields });
  }

  /** Records whose message contains `text`. */
  find(text: string): LogRecord[] {
    return this.records.filter((r) => r.msg.includes(text));
  }

  #push(level: LogRecord['level'], msg: string, fields?: LogFields): void {
    this.records.push({ level, msg, fields: { ...this.#bound, ...fields } });
  }
}
