import type { FSWatcher } from 'node:fs';
import { watch } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type { Clock, Logger } from '@kubelet-ts/common';
import { createBackoff, errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import type { Registration, RegistrationDeps } from './internal/register.js';
import { registerPlugin } from './internal/register.js';
import { registrationService } from './internal/registration-loader.js';
import { scanSockets } from './internal/scan.js';
import type { PluginHandler, RegisteredPlugin } from './types.js';

/** `PluginInfo.type` values (upstream pluginregistration/v1 constants). */
export const PLUGIN_TYPE = {
  CSIPlugin: 'CSIPlugin',
  DevicePlugin: 'DevicePlugin',
} as const;

/** `<root-dir>/plugins_registry` (upstream DefaultKubeletPluginsRegistrationDirName). */
export const pluginsRegistryDir = (rootDir: string): string => join(rootDir, 'plugins_registry');

export interface PluginWatcherOptions {
  /** The directory plugins put their registration sockets in: pluginsRegistryDir(rootDir). Created when missing. */
  dir: string;
  /** Handlers by plugin type (`CSIPlugin`…); a plugin of another type is refused. */
  handlers: Record<string, PluginHandler>;
  clock?: Clock;
  logger?: Logger;
  /** Full rescan period (upstream reconciler loop: 1 s). fs.watch events rescan sooner. */
  resyncPeriodMs?: number;
  /** Use fs.watch to react at once (default true); false relies on the periodic rescan only. */
  watch?: boolean;
  /** Connecting to a registration socket (upstream dialTimeoutDuration: 10 s). */
  dialTimeoutMs?: number;
  /** The GetInfo deadline (upstream: 1 s). */
  getInfoTimeoutMs?: number;
  /** The NotifyRegistrationStatus deadline (upstream notifyTimeoutDuration: 5 s). */
  notifyTimeoutMs?: number;
  /** Retry back-off of failed registrations (upstream exponential backoff: 500 ms doubling to 2m2s). */
  backoff?: { initialMs: number; maxMs: number };
}

/** The kubelet's plugin watcher and registration reconciler (upstream pkg/kubelet/pluginmanager). */
export interface PluginWatcher {
  /** Scans the directory and reconciles until the signal aborts. */
  run(signal: AbortSignal): Promise<void>;
  /** One scan and reconcile now: registers new sockets, deregisters gone ones. */
  sync(): Promise<void>;
  getRegisteredPlugins(): RegisteredPlugin[];
}

/**
 * createPluginWatcher: watches `dir` (recursively, ignoring names starting with a dot) for unix
 * sockets, as upstream's pluginwatcher does. For each new socket it calls
 * `pluginregistration.Registration/GetInfo`, picks the handler by type, validates, registers and
 * answers `NotifyRegistrationStatus` (with upstream's error strings on failure). A socket that
 * goes away is deregistered. Failed registrations are retried with back-off while the socket stays.
 */
export function createPluginWatcher(options: PluginWatcherOptions): PluginWatcher {
  const clock = options.clock ?? systemClock;
  const logger = (options.logger ?? noopLogger).child({ component: 'pluginwatcher' });
  const resyncPeriodMs = options.resyncPeriodMs ?? 1_000;
  const backoff = createBackoff({ initialMs: options.backoff?.initialMs ?? 500, maxMs: options.backoff?.maxMs ?? 122_000, clock });
  const registered = new Map<string, Registration>();
  const registration: RegistrationDeps = {
    Client: grpc.makeGenericClientConstructor(registrationService() as unknown as grpc.ServiceDefinition, 'Registration'),
    handlers: options.handlers,
    registered,
    dialTimeoutMs: options.dialTimeoutMs ?? 10_000,
    getInfoTimeoutMs: options.getInfoTimeoutMs ?? 1_000,
    notifyTimeoutMs: options.notifyTimeoutMs ?? 5_000,
    logger,
  };
  const failures = new Map<string, { atMs: number; message: string }>();
  let syncing: Promise<void> | undefined;

  const reconcile = async (): Promise<void> => {
    let found: Map<string, string>;
    try {
      // Created (as upstream) so that plugins can put their sockets there; again if someone removed it.
      await mkdir(options.dir, { recursive: true, mode: 0o750 });
      found = await scanSockets(options.dir);
    } catch (err) {
      logger.error('Cannot read the plugin registration directory', { dir: options.dir, err: errorMessage(err) });
      return;
    }
    // Gone or replaced sockets first, so that a restarted plugin registers again.
    for (const [socketPath, entry] of [...registered]) {
      if (found.get(socketPath) === entry.identity) continue;
      registered.delete(socketPath);
      try {
        entry.handler.deregisterPlugin(entry.name, entry.endpoint);
      } catch (err) {
        logger.warn('DeRegisterPlugin failed', { path: socketPath, pluginName: entry.name, err: errorMessage(err) });
      }
      logger.info('Plugin deregistered', { path: socketPath, type: entry.type, pluginName: entry.name });
    }
    for (const key of [...failures.keys()]) {
      const [socketPath, identity] = key.split('\n');
      if (socketPath === undefined || found.get(socketPath) !== identity) {
        failures.delete(key);
        backoff.reset(key);
      }
    }
    for (const [socketPath, identity] of found) {
      if (registered.has(socketPath)) continue;
      const key = `${socketPath}\n${identity}`;
      const failed = failures.get(key);
      if (failed !== undefined && backoff.isInBackoffSince(key, failed.atMs)) continue;
      try {
        await registerPlugin(registration, socketPath, identity);
        failures.delete(key);
        backoff.reset(key);
      } catch (err) {
        const message = errorMessage(err);
        backoff.next(key);
        // Logged once per distinct reason, not on every retry.
        if (failed?.message !== message) logger.error('Plugin registration failed, will retry', { path: socketPath, err: message });
        failures.set(key, { atMs: clock.now(), message });
      }
    }
  };

  // Scans never overlap: a second caller waits for the running one and then scans again.
  const sync = async (): Promise<void> => {
    while (syncing !== undefined) await syncing;
    syncing = reconcile().finally(() => {
      syncing = undefined;
    });
    await syncing;
  };

  return {
    sync,
    getRegisteredPlugins: () =>
      [...registered.values()].map((r) => ({
        socketPath: r.socketPath,
        type: r.type,
        name: r.name,
        endpoint: r.endpoint,
        supportedVersions: [...r.supportedVersions],
      })),
    async run(signal) {
      await mkdir(options.dir, { recursive: true, mode: 0o750 }).catch(() => undefined); // so that fs.watch has a directory
      let nap: AbortController | undefined;
      let watcher: FSWatcher | undefined;
      if (options.watch ?? true) {
        try {
          watcher = watch(options.dir, { recursive: false }, () => nap?.abort());
          watcher.on('error', (err) =>
            logger.warn('fs.watch of the plugin registration directory failed; rescanning periodically only', { err: errorMessage(err) }),
          );
        } catch (err) {
          logger.warn('Cannot watch the plugin registration directory; rescanning periodically only', {
            dir: options.dir,
            err: errorMessage(err),
          });
        }
      }
      const onAbort = (): void => nap?.abort();
      signal.addEventListener('abort', onAbort);
      try {
        while (!signal.aborted) {
          await sync();
          nap = new AbortController();
          if (signal.aborted) break;
          await clock.sleep(resyncPeriodMs, nap.signal).catch(() => undefined);
        }
      } finally {
        signal.removeEventListener('abort', onAbort);
        watcher?.close();
      }
    },
  };
}
