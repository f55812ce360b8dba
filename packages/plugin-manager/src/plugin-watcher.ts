import type { FSWatcher } from 'node:fs';
import { watch } from 'node:fs';
import { lstat, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type { Clock, Logger } from '@kubelet-ts/common';
import { createBackoff, errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import { z } from 'zod';
import { PluginManagerError } from './errors.js';
import { registrationService } from './internal/registration-loader.js';

/** `PluginInfo.type` values (upstream pluginregistration/v1 constants). */
export const PLUGIN_TYPE = {
  CSIPlugin: 'CSIPlugin',
  DevicePlugin: 'DevicePlugin',
} as const;

/** `<root-dir>/plugins_registry` (upstream DefaultKubeletPluginsRegistrationDirName). */
export const pluginsRegistryDir = (rootDir: string): string => join(rootDir, 'plugins_registry');

/**
 * A consumer of one plugin type (upstream pluginmanager cache.PluginHandler): the CSI driver registry of
 * @kubelet-ts/volume-manager for `CSIPlugin`, later the device manager for `DevicePlugin`.
 */
export interface PluginHandler {
  /** Throws to refuse the plugin; the message is sent back to it in NotifyRegistrationStatus. */
  validatePlugin(name: string, endpoint: string, versions: string[]): void;
  /** Registers a validated plugin; throws (and is not registered) on failure. */
  registerPlugin(name: string, endpoint: string, versions: string[]): Promise<void>;
  /** Called once the plugin's registration socket went away (or was replaced). */
  deregisterPlugin(name: string, endpoint: string): void;
}

/** A plugin registered through its registration socket. */
export interface RegisteredPlugin {
  socketPath: string;
  type: string;
  name: string;
  /** The plugin's service socket (GetInfo's endpoint, or the registration socket when it gave none). */
  endpoint: string;
  supportedVersions: string[];
}

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

// GetInfo answers come from a third-party process: validated before use.
const PluginInfoSchema = z.looseObject({
  type: z.string(),
  name: z.string(),
  endpoint: z.string().default(''),
  supportedVersions: z.array(z.string()).default([]),
});

// The plugin gets the handler's own message (its causes are for our logs).
const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

type RpcFn = (req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res: unknown) => void) => void;

interface Registration extends RegisteredPlugin {
  /** The socket's identity when it was registered (inode and change time): a re-created socket registers again. */
  identity: string;
  handler: PluginHandler;
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
  const dialTimeoutMs = options.dialTimeoutMs ?? 10_000;
  const getInfoTimeoutMs = options.getInfoTimeoutMs ?? 1_000;
  const notifyTimeoutMs = options.notifyTimeoutMs ?? 5_000;
  const backoff = createBackoff({ initialMs: options.backoff?.initialMs ?? 500, maxMs: options.backoff?.maxMs ?? 122_000, clock });
  const Client = grpc.makeGenericClientConstructor(registrationService() as unknown as grpc.ServiceDefinition, 'Registration');

  const registered = new Map<string, Registration>();
  const failures = new Map<string, { atMs: number; message: string }>();
  let syncing: Promise<void> | undefined;

  /** Sockets under dir by path, with their identity. */
  const scan = async (dir: string, out: Map<string, string>): Promise<Map<string, string>> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch((err: unknown) => {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    });
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await scan(path, out);
      else if (entry.isSocket()) {
        const info = await lstat(path, { bigint: true }).catch(() => undefined);
        if (info !== undefined) out.set(path, `${info.ino}:${info.ctimeNs}`);
      }
    }
    return out;
  };

  const call = (client: grpc.Client, method: string, request: unknown, timeoutMs: number): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const fn = (client as unknown as Record<string, RpcFn>)[method];
      if (fn === undefined) {
        reject(new PluginManagerError('PLUGIN_REGISTRATION_FAILED', `unknown registration method ${method}`));
        return;
      }
      fn.call(client, request, new grpc.Metadata(), { deadline: Date.now() + timeoutMs }, (err, res) => {
        if (err !== null) reject(new PluginManagerError('PLUGIN_REGISTRATION_FAILED', `rpc error: code = ${grpc.status[err.code] ?? err.code} desc = ${err.details}`, { cause: err }));
        else resolve(res);
      });
    });

  const waitForReady = (client: grpc.Client, socketPath: string): Promise<void> =>
    new Promise((resolve, reject) => {
      client.waitForReady(Date.now() + dialTimeoutMs, (err) => {
        if (err === undefined || err === null) resolve();
        else reject(new PluginManagerError('PLUGIN_REGISTRATION_FAILED', `RegisterPlugin error -- dial failed at socket ${socketPath}, err: ${err.message}`, { cause: err }));
      });
    });

  const notify = async (client: grpc.Client, registeredOk: boolean, error: string): Promise<void> => {
    await call(client, 'NotifyRegistrationStatus', { pluginRegistered: registeredOk, error }, notifyTimeoutMs);
  };

  /** Upstream GenerateRegisterPluginFunc. */
  const register = async (socketPath: string, identity: string): Promise<void> => {
    const client = new Client(`unix://${socketPath}`, grpc.credentials.createInsecure());
    try {
      await waitForReady(client, socketPath);
      let raw: unknown;
      try {
        raw = await call(client, 'GetInfo', {}, getInfoTimeoutMs);
      } catch (err) {
        throw new PluginManagerError('PLUGIN_REGISTRATION_FAILED', `RegisterPlugin error -- failed to get plugin info using RPC GetInfo at socket ${socketPath}, err: ${messageOf(err)}`, { cause: err });
      }
      const parsed = PluginInfoSchema.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new PluginManagerError('INVALID_PLUGIN_INFO', `RegisterPlugin error -- GetInfo at socket ${socketPath}: ${issue?.path.map(String).join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
      }
      const info = parsed.data;
      const refuse = async (message: string, cause?: unknown): Promise<never> => {
        await notify(client, false, message).catch((err: unknown) => logger.warn('NotifyRegistrationStatus failed', { path: socketPath, err: errorMessage(err) }));
        throw new PluginManagerError('PLUGIN_REGISTRATION_FAILED', message, { cause });
      };
      const handler = options.handlers[info.type];
      if (handler === undefined) return await refuse(`RegisterPlugin error -- no handler registered for plugin type: ${info.type} at socket ${socketPath}`);
      const endpoint = info.endpoint !== '' ? info.endpoint : socketPath;
      try {
        handler.validatePlugin(info.name, endpoint, info.supportedVersions);
      } catch (err) {
        return await refuse(`RegisterPlugin error -- plugin validation failed with err: ${messageOf(err)}`, err);
      }
      // In the actual state before the handler's register, as upstream, so that a removal during it deregisters.
      const entry: Registration = { socketPath, identity, handler, type: info.type, name: info.name, endpoint, supportedVersions: info.supportedVersions };
      registered.set(socketPath, entry);
      try {
        await handler.registerPlugin(info.name, endpoint, info.supportedVersions);
      } catch (err) {
        if (registered.get(socketPath) === entry) registered.delete(socketPath);
        return await refuse(`RegisterPlugin error -- plugin registration failed with err: ${messageOf(err)}`, err);
      }
      try {
        await notify(client, true, '');
      } catch (err) {
        // Registered all the same (upstream notifies after registering, so Register always follows Validate).
        logger.warn('RegisterPlugin: failed to send registration status', { path: socketPath, err: errorMessage(err) });
      }
      logger.info('Plugin registered', { path: socketPath, type: info.type, pluginName: info.name, endpoint, versions: info.supportedVersions });
    } finally {
      client.close();
    }
  };

  const reconcile = async (): Promise<void> => {
    let found: Map<string, string>;
    try {
      // Created (as upstream) so that plugins can put their sockets there; again if someone removed it.
      await mkdir(options.dir, { recursive: true, mode: 0o750 });
      found = await scan(options.dir, new Map());
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
        await register(socketPath, identity);
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
      [...registered.values()].map((r) => ({ socketPath: r.socketPath, type: r.type, name: r.name, endpoint: r.endpoint, supportedVersions: [...r.supportedVersions] })),
    async run(signal) {
      await mkdir(options.dir, { recursive: true, mode: 0o750 }).catch(() => undefined); // so that fs.watch has a directory
      let nap: AbortController | undefined;
      let watcher: FSWatcher | undefined;
      if (options.watch ?? true) {
        try {
          watcher = watch(options.dir, { recursive: false }, () => nap?.abort());
          watcher.on('error', (err) => logger.warn('fs.watch of the plugin registration directory failed; rescanning periodically only', { err: errorMessage(err) }));
        } catch (err) {
          logger.warn('Cannot watch the plugin registration directory; rescanning periodically only', { dir: options.dir, err: errorMessage(err) });
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
