// Upstream dynamiccertificates.DynamicFileCAContent (NewDynamicCAContentFromFile("client-ca-bundle", …)),
// which the kubelet's BuildAuthn makes of authentication.x509.clientCAFile and runs for its lifetime.
import { promises as fs, watch as fsWatch } from 'node:fs';
import { errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import type { Clock, Logger } from '@kubelet-ts/common';
import { ServerError } from './errors.js';
import { parsePemCertificates } from './internal/pem.js';

/** A client CA bundle that may change while the server runs. */
export interface ClientCAProvider {
  /** The PEM bundle in effect (the last good one read). */
  current(): string;
  /** Hears each new bundle. Returns unsubscribe. */
  onChange(listener: (pem: string) => void): () => void;
}

/** Watches one file; `onEvent` hears `rename` when the watched file went away (replaced, removed). */
export type FileWatch = (path: string, onEvent: (event: 'change' | 'rename') => void) => { close(): void };

export interface DynamicClientCAOptions {
  /** `authentication.x509.clientCAFile`. */
  path: string;
  /** How often the file is read again whatever the watch says (upstream: a minute). */
  checkIntervalMs?: number;
  clock?: Clock;
  logger?: Logger;
  /** Default: node's fs.watch. */
  watch?: FileWatch;
}

export interface DynamicClientCA extends ClientCAProvider {
  /**
   * Reads the file now; resolves true when a new bundle took effect. An unreadable, empty or unparsable
   * file keeps the current bundle and resolves false (logged). Reloads run one at a time.
   */
  reload(): Promise<boolean>;
  /** Watches the file and re-reads it on change and every `checkIntervalMs`, until aborted. */
  run(signal: AbortSignal): Promise<void>;
}

/** Upstream's period: the file watch is (re)started, and the file checked, once a minute. */
export const DEFAULT_CLIENT_CA_CHECK_INTERVAL_MS = 60_000;

const defaultWatch: FileWatch = (path, onEvent) => {
  const watcher = fsWatch(path, { persistent: false }, (event) => onEvent(event === 'rename' ? 'rename' : 'change'));
  // A watch that fails (the file removed) is dropped and made again by the next periodic check.
  watcher.on('error', () => onEvent('rename'));
  return watcher;
};

/**
 * Loads the client CA bundle from `path` and keeps it current: the file is watched and re-read on each
 * change, and read again every minute regardless (so a lost watch or a missed event costs at most a
 * minute). A new bundle is announced to `onChange` listeners (the server's TLS context, the x509
 * authenticator); an empty, unreadable or unparsable file keeps the last good bundle and is logged, as
 * upstream's DynamicFileCAContent does. The first load must succeed: it throws ServerError
 * `INVALID_TLS_CONFIG` naming the bundle (`client-ca-bundle::<path>`).
 */
export async function createDynamicClientCA(options: DynamicClientCAOptions): Promise<DynamicClientCA> {
  const { path } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? noopLogger;
  const watch = options.watch ?? defaultWatch;
  const interval = options.checkIntervalMs ?? DEFAULT_CLIENT_CA_CHECK_INTERVAL_MS;
  const name = `client-ca-bundle::${path}`;
  const listeners = new Set<(pem: string) => void>();

  const load = async (): Promise<string> => {
    let content: string;
    try {
      content = await fs.readFile(path, 'utf8');
    } catch (err) {
      throw new ServerError('INVALID_TLS_CONFIG', `reading CA bundle ${JSON.stringify(name)}: ${errorMessage(err)}`, { cause: err });
    }
    if (content.length === 0) throw new ServerError('INVALID_TLS_CONFIG', `missing content for CA bundle ${JSON.stringify(name)}`);
    try {
      parsePemCertificates(content, path);
    } catch (err) {
      throw new ServerError('INVALID_TLS_CONFIG', `error loading CA bundle for ${JSON.stringify(name)}: ${errorMessage(err)}`, {
        cause: err,
      });
    }
    return content;
  };

  let current = await load();
  let queue: Promise<unknown> = Promise.resolve();

  const reloadNow = async (): Promise<boolean> => {
    let next: string;
    try {
      next = await load();
    } catch (err) {
      logger.error('Failed to reload the client CA bundle, keeping the last good one', { name, err: errorMessage(err) });
      return false;
    }
    if (next === current) return false;
    current = next;
    logger.info('Loaded a new CA Bundle and Verifier', { name });
    for (const listener of [...listeners]) {
      try {
        listener(next);
      } catch (err) {
        logger.error('Client CA bundle listener failed', { name, err: errorMessage(err) });
      }
    }
    return true;
  };

  const reload = (): Promise<boolean> => {
    const run = queue.then(reloadNow);
    queue = run.catch(() => undefined);
    return run;
  };

  return {
    current: () => current,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    reload,
    async run(signal) {
      if (signal.aborted) return;
      let watcher: { close(): void } | undefined;
      const arm = (): void => {
        if (watcher !== undefined || signal.aborted) return;
        try {
          watcher = watch(path, (event) => {
            if (event === 'rename') {
              // The file was replaced (or removed): watch whatever is at the path now.
              watcher?.close();
              watcher = undefined;
              arm();
            }
            void reload();
          });
        } catch (err) {
          logger.warn('Failed to watch the client CA file, will retry later', { name, err: errorMessage(err) });
        }
      };
      arm();
      // Upstream checks once when the watch starts, in case the file changed before it.
      void reload();
      const timer = clock.setInterval(() => {
        arm();
        void reload();
      }, interval);
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      clock.clearInterval(timer);
      watcher?.close();
      watcher = undefined;
      await queue;
    },
  };
}

/** Whether `ca` is a provider rather than a fixed PEM bundle. */
export function isClientCAProvider(ca: string | Buffer | ClientCAProvider): ca is ClientCAProvider {
  return typeof ca === 'object' && !Buffer.isBuffer(ca) && typeof (ca as Partial<ClientCAProvider>).current === 'function';
}
