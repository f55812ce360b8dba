import { errorMessage, systemClock } from '@kubelet-ts/common';
import type { Clock, Logger } from '@kubelet-ts/common';
import { sendText } from './router.js';
import type { Router } from './router.js';

/** A named health check: it passes by returning (or resolving), fails by throwing (or rejecting). */
export interface HealthzCheck {
  name: string;
  check(): Promise<void> | void;
}

/** The `ping` check upstream always installs: it always passes. */
export const pingHealthz: HealthzCheck = { name: 'ping', check: () => undefined };

export interface SyncLoopHealthzOptions {
  /** When the sync loop last started an iteration (ms since epoch), or undefined before the first one. */
  latestLoopEntry: () => number | undefined;
  /** The kubelet's resync interval (syncFrequency). */
  resyncIntervalMs: number;
  clock?: Clock;
}

/**
 * The `syncloop` check of the kubelet (Kubelet.SyncLoopHealthCheck): fails when the loop has not been
 * entered for 2 × resync interval, but never less than 5 minutes. Passes before the first iteration.
 */
export function syncLoopHealthz(options: SyncLoopHealthzOptions): HealthzCheck {
  const clock = options.clock ?? systemClock;
  const limitMs = Math.max(2 * options.resyncIntervalMs, 5 * 60_000);
  return {
    name: 'syncloop',
    check() {
      const entered = options.latestLoopEntry();
      if (entered !== undefined && clock.now() > entered + limitMs) {
        throw new Error(
          `sync loop took longer than expected: last entered ${Math.round((clock.now() - entered) / 1000)}s ago (limit ${limitMs / 1000}s)`,
        );
      }
    },
  };
}

export interface HealthzOptions {
  checks: readonly HealthzCheck[];
  /** Mount point; default `/healthz`. */
  path?: string;
  /**
   * Print each failed check's error in the aggregate response. Upstream prints `reason withheld`
   * (and logs the error); the per-check endpoint `/healthz/<name>` shows the error either way.
   */
  showReasons?: boolean;
  /** A check running longer than this fails with a timeout. Default 30 s. */
  checkTimeoutMs?: number;
  clock?: Clock;
  logger: Logger;
}

async function runCheck(check: HealthzCheck, timeoutMs: number, clock: Clock): Promise<Error | undefined> {
  let timer: ReturnType<Clock['setTimeout']> | undefined;
  const timeout = new Promise<Error>((resolve) => {
    timer = clock.setTimeout(() => resolve(new Error(`check timed out after ${timeoutMs}ms`)), timeoutMs);
  });
  try {
    const outcome = await Promise.race([
      Promise.resolve()
        .then(() => check.check())
        .then(
          () => undefined,
          (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
        ),
      timeout,
    ]);
    return outcome;
  } finally {
    if (timer !== undefined) clock.clearTimeout(timer);
  }
}

/**
 * Installs upstream's healthz handlers (k8s.io/apiserver/pkg/server/healthz) on a router:
 * `GET /healthz` → 200 `ok` when every check passes, else 500 with one `[+]name ok` / `[-]name failed: …`
 * line per check and `healthz check failed`; `?verbose` lists the checks on success too; `?exclude=name`
 * skips a check; `/healthz/<name>` runs one check.
 */
export function installHealthz(router: Router, options: HealthzOptions): void {
  const path = options.path ?? '/healthz';
  const name = path.replace(/^\//, '');
  const clock = options.clock ?? systemClock;
  const timeoutMs = options.checkTimeoutMs ?? 30_000;
  const logger = options.logger;
  const checks = [...options.checks];
  const names = new Set<string>();
  for (const check of checks) {
    if (names.has(check.name)) throw new Error(`duplicate healthz check ${JSON.stringify(check.name)}`);
    names.add(check.name);
  }

  router.add('*', path, async (_req, res, { url }) => {
    const excluded = new Set(
      url.searchParams
        .getAll('exclude')
        .flatMap((v) => v.split(','))
        .filter((v) => v !== ''),
    );
    let lines = '';
    const failed: string[] = [];
    for (const check of checks) {
      if (excluded.delete(check.name)) {
        lines += `[+]${check.name} excluded: ok\n`;
        continue;
      }
      const err = await runCheck(check, timeoutMs, clock);
      if (err === undefined) {
        lines += `[+]${check.name} ok\n`;
      } else {
        failed.push(check.name);
        lines += `[-]${check.name} failed: ${options.showReasons ? errorMessage(err) : 'reason withheld'}\n`;
        logger.info('healthz check failed', { check: check.name, err: errorMessage(err) });
      }
    }
    if (excluded.size > 0)
      lines += `warn: some health checks cannot be excluded: no matches for ${[...excluded].map((e) => JSON.stringify(e)).join(',')}\n`;
    if (failed.length > 0) {
      sendText(res, 500, `${lines}${name} check failed\n`);
      return;
    }
    if (!url.searchParams.has('verbose')) {
      sendText(res, 200, 'ok');
      return;
    }
    sendText(res, 200, `${lines}${name} check passed\n`);
  });

  router.add('*', `${path}/*`, async (_req, res, { rest }) => {
    const check = checks.find((c) => c.name === rest);
    if (check === undefined) {
      sendText(res, 404, '404 page not found\n');
      return;
    }
    const err = await runCheck(check, timeoutMs, clock);
    if (err === undefined) sendText(res, 200, 'ok');
    else sendText(res, 500, `internal server error: ${errorMessage(err)}\n`);
  });
}
