// Upstream pluginwatcher's registration of one socket: the Registration client, GetInfo, the handler, NotifyRegistrationStatus.
import * as grpc from '@grpc/grpc-js';
import type { Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import { z } from 'zod';
import { PluginManagerError } from '../errors.js';
import type { PluginHandler, RegisteredPlugin } from '../types.js';

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

export interface Registration extends RegisteredPlugin {
  /** The socket's identity when it was registered (inode and change time): a re-created socket registers again. */
  identity: string;
  handler: PluginHandler;
}

export interface RegistrationDeps {
  /** The generic client constructor of pluginregistration.Registration. */
  Client: grpc.ServiceClientConstructor;
  handlers: Record<string, PluginHandler>;
  /** The actual state: registered plugins by socket path. */
  registered: Map<string, Registration>;
  dialTimeoutMs: number;
  getInfoTimeoutMs: number;
  notifyTimeoutMs: number;
  logger: Logger;
}

const call = (client: grpc.Client, method: string, request: unknown, timeoutMs: number): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const fn = (client as unknown as Record<string, RpcFn>)[method];
    if (fn === undefined) {
      reject(new PluginManagerError('PLUGIN_REGISTRATION_FAILED', `unknown registration method ${method}`));
      return;
    }
    fn.call(client, request, new grpc.Metadata(), { deadline: Date.now() + timeoutMs }, (err, res) => {
      if (err !== null)
        reject(
          new PluginManagerError(
            'PLUGIN_REGISTRATION_FAILED',
            `rpc error: code = ${grpc.status[err.code] ?? err.code} desc = ${err.details}`,
            { cause: err },
          ),
        );
      else resolve(res);
    });
  });

const waitForReady = (client: grpc.Client, socketPath: string, dialTimeoutMs: number): Promise<void> =>
  new Promise((resolve, reject) => {
    client.waitForReady(Date.now() + dialTimeoutMs, (err) => {
      if (err === undefined || err === null) resolve();
      else
        reject(
          new PluginManagerError(
            'PLUGIN_REGISTRATION_FAILED',
            `RegisterPlugin error -- dial failed at socket ${socketPath}, err: ${err.message}`,
            { cause: err },
          ),
        );
    });
  });

const notify = async (client: grpc.Client, registeredOk: boolean, error: string, notifyTimeoutMs: number): Promise<void> => {
  await call(client, 'NotifyRegistrationStatus', { pluginRegistered: registeredOk, error }, notifyTimeoutMs);
};

/**
 * Upstream GenerateRegisterPluginFunc: GetInfo, the handler by type, validate, register (the plugin is in
 * `deps.registered` before the handler's register, as upstream, so that a removal during it deregisters),
 * then NotifyRegistrationStatus. Throws, after telling the plugin, when it is refused.
 */
export async function registerPlugin(deps: RegistrationDeps, socketPath: string, identity: string): Promise<void> {
  const { handlers, registered, logger } = deps;
  const client = new deps.Client(`unix://${socketPath}`, grpc.credentials.createInsecure());
  try {
    await waitForReady(client, socketPath, deps.dialTimeoutMs);
    let raw: unknown;
    try {
      raw = await call(client, 'GetInfo', {}, deps.getInfoTimeoutMs);
    } catch (err) {
      throw new PluginManagerError(
        'PLUGIN_REGISTRATION_FAILED',
        `RegisterPlugin error -- failed to get plugin info using RPC GetInfo at socket ${socketPath}, err: ${messageOf(err)}`,
        { cause: err },
      );
    }
    const parsed = PluginInfoSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new PluginManagerError(
        'INVALID_PLUGIN_INFO',
        `RegisterPlugin error -- GetInfo at socket ${socketPath}: ${issue?.path.map(String).join('.') ?? ''}: ${issue?.message ?? 'invalid'}`,
      );
    }
    const info = parsed.data;
    const refuse = async (message: string, cause?: unknown): Promise<never> => {
      await notify(client, false, message, deps.notifyTimeoutMs).catch((err: unknown) =>
        logger.warn('NotifyRegistrationStatus failed', { path: socketPath, err: errorMessage(err) }),
      );
      throw new PluginManagerError('PLUGIN_REGISTRATION_FAILED', message, { cause });
    };
    const handler = handlers[info.type];
    if (handler === undefined)
      return await refuse(`RegisterPlugin error -- no handler registered for plugin type: ${info.type} at socket ${socketPath}`);
    const endpoint = info.endpoint !== '' ? info.endpoint : socketPath;
    try {
      handler.validatePlugin(info.name, endpoint, info.supportedVersions);
    } catch (err) {
      return await refuse(`RegisterPlugin error -- plugin validation failed with err: ${messageOf(err)}`, err);
    }
    const entry: Registration = {
      socketPath,
      identity,
      handler,
      type: info.type,
      name: info.name,
      endpoint,
      supportedVersions: info.supportedVersions,
    };
    registered.set(socketPath, entry);
    try {
      await handler.registerPlugin(info.name, endpoint, info.supportedVersions);
    } catch (err) {
      if (registered.get(socketPath) === entry) registered.delete(socketPath);
      return await refuse(`RegisterPlugin error -- plugin registration failed with err: ${messageOf(err)}`, err);
    }
    try {
      await notify(client, true, '', deps.notifyTimeoutMs);
    } catch (err) {
      // Registered all the same (upstream notifies after registering, so Register always follows Validate).
      logger.warn('RegisterPlugin: failed to send registration status', { path: socketPath, err: errorMessage(err) });
    }
    logger.info('Plugin registered', {
      path: socketPath,
      type: info.type,
      pluginName: info.name,
      endpoint,
      versions: info.supportedVersions,
    });
  } finally {
    client.close();
  }
}
