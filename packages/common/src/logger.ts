/** Structured fields attached to a log record. Keys follow upstream where one exists (pod, podUID, containerName, err). */
export type LogFields = Record<string, unknown>;

/**
 * The logger every kubelet-ts library accepts. Libraries never write to the console;
 * the application chooses the sink (apps/kubelet uses pino).
 */
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

const noop = (): void => undefined;

/** A logger that drops everything: the default of every library. */
export const noopLogger: Logger = {
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  child: () => noopLogger,
};

/** Turns an unknown thrown value into a loggable message without losing the cause chain. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    if (cause === undefined || cause === err) return err.message;
    const causeMessage = errorMessage(cause);
    // Wrappers often quote their cause already: say it once.
    return err.message.includes(causeMessage) ? err.message : `${err.message}: ${causeMessage}`;
  }
  return String(err);
}
