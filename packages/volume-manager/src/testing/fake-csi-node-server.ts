import { mkdir, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { csiNodeService } from '../internal/csi-loader.js';
import type { Mounter } from '../mounter.js';
import { isMountPoint } from '../mounter.js';

export type CsiRequest = Record<string, unknown>;
export type CsiHandler = (request: CsiRequest) => Promise<unknown> | unknown;

export interface FakeCsiNodeServerOptions {
  /** The unix socket to listen on. */
  socketPath: string;
  /** Does the mounting of the default handlers (a real Mounter for real bind mounts, a FakeMounter otherwise). */
  mounter: Mounter;
  /** Where each volume's data lives: `<backingDir>/<volumeId>` is bind-mounted by Stage/Publish. */
  backingDir: string;
  /** Node RPC capabilities to advertise (`STAGE_UNSTAGE_VOLUME`, …). */
  capabilities?: string[];
  nodeId?: string;
}

export interface FakeCsiNodeServer {
  /** `unix://<socketPath>`. */
  endpoint: string;
  /** Every RPC received, in order. */
  calls: Array<{ method: string; request: CsiRequest }>;
  /**
   * Replace a method's behaviour (`NodePublishVolume`, …); throw `csiStatus(...)` for a gRPC error, return
   * a Buffer to answer those bytes as the response message.
   */
  handlers: Record<string, CsiHandler>;
  start(): Promise<void>;
  /** Graceful: waits for the calls under way. */
  stop(): Promise<void>;
  /** As a driver that dies: every connection and call under way dropped at once, the socket gone. */
  kill(): void;
}

/**
 * The service with each response encoder letting a Buffer through as it is: a handler that answers
 * bytes sends them as the response message (a driver answering garbage, for the fuzz tests).
 */
function passBuffers(service: grpc.ServiceDefinition): grpc.ServiceDefinition {
  return Object.fromEntries(
    Object.entries(service).map(([name, d]) => {
      const encode = d.responseSerialize;
      return [name, { ...d, responseSerialize: (value: unknown) => (Buffer.isBuffer(value) ? value : encode(value)) }];
    }),
  ) as grpc.ServiceDefinition;
}

/** An error a handler throws to answer with a gRPC status. */
export function csiStatus(code: grpc.status, details: string): Error & { code: number; details: string } {
  return Object.assign(new Error(details), { code, details });
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * A CSI Node server for tests, speaking the real protocol over a unix socket. By default it acts
 * as a simple driver backed by bind mounts: NodeStageVolume bind-mounts `<backingDir>/<volumeId>`
 * on the staging path, NodePublishVolume bind-mounts the staging path (or the backing dir) on the
 * target path (read-only when asked), and Unpublish/Unstage unmount them. Idempotent as the spec asks.
 * NodeUnpublishVolume removes the target directory, as the spec asks of drivers.
 */
export function createFakeCsiNodeServer(options: FakeCsiNodeServerOptions): FakeCsiNodeServer {
  const { mounter, backingDir } = options;
  const calls: FakeCsiNodeServer['calls'] = [];
  let server: grpc.Server | undefined;
  const mounted = async (path: string): Promise<boolean> => isMountPoint(await mounter.list(), path);

  const handlers: Record<string, CsiHandler> = {
    NodeGetInfo: () => ({ nodeId: options.nodeId ?? 'fake-node', maxVolumesPerNode: '0' }),
    NodeGetCapabilities: () => ({ capabilities: (options.capabilities ?? []).map((type) => ({ rpc: { type } })) }),
    async NodeStageVolume(req) {
      const staging = str(req.stagingTargetPath);
      if (staging === '') throw csiStatus(grpc.status.INVALID_ARGUMENT, 'staging_target_path is required');
      if (await mounted(staging)) return {};
      const source = join(backingDir, str(req.volumeId));
      await mkdir(source, { recursive: true });
      await mkdir(staging, { recursive: true });
      await mounter.mount(source, staging, '', ['bind']);
      return {};
    },
    async NodeUnstageVolume(req) {
      const staging = str(req.stagingTargetPath);
      if (await mounted(staging)) await mounter.unmount(staging);
      return {};
    },
    async NodePublishVolume(req) {
      const target = str(req.targetPath);
      if (target === '') throw csiStatus(grpc.status.INVALID_ARGUMENT, 'target_path is required');
      if (await mounted(target)) return {};
      const staging = str(req.stagingTargetPath);
      // A staged volume must be staged first; an unstaged one (inline ephemeral volumes) is published from the backing dir.
      if (staging !== '' && !(await mounted(staging))) {
        throw csiStatus(grpc.status.FAILED_PRECONDITION, `volume ${str(req.volumeId)} is not staged at ${JSON.stringify(staging)}`);
      }
      const source = staging !== '' ? staging : join(backingDir, str(req.volumeId));
      await mkdir(source, { recursive: true });
      await mkdir(target, { recursive: true });
      await mounter.mount(source, target, '', req.readonly === true ? ['bind', 'ro'] : ['bind']);
      return {};
    },
    async NodeUnpublishVolume(req) {
      const target = str(req.targetPath);
      if (await mounted(target)) await mounter.unmount(target);
      await rmdir(target).catch(() => undefined);
      return {};
    },
    NodeGetVolumeStats: () => ({ usage: [{ available: '10', total: '20', used: '10', unit: 'BYTES' }] }),
  };

  const implementation: grpc.UntypedServiceImplementation = {};
  for (const name of Object.keys(csiNodeService())) {
    implementation[name] = (call: grpc.ServerUnaryCall<CsiRequest, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      calls.push({ method: name, request: call.request });
      const handler = handlers[name];
      if (handler === undefined) {
        callback(csiStatus(grpc.status.UNIMPLEMENTED, `${name} not implemented`));
        return;
      }
      Promise.resolve()
        .then(() => handler(call.request))
        .then(
          (res) => callback(null, res),
          (err: unknown) => {
            const e = err as { code?: number; details?: string; message?: string };
            callback({
              name: 'Error',
              message: e.message ?? String(err),
              code: typeof e.code === 'number' ? e.code : grpc.status.INTERNAL,
              details: e.details ?? e.message ?? String(err),
            });
          },
        );
    };
  }

  return {
    endpoint: `unix://${options.socketPath}`,
    calls,
    handlers,
    start() {
      const s = new grpc.Server();
      s.addService(passBuffers(csiNodeService() as unknown as grpc.ServiceDefinition), implementation);
      server = s;
      return new Promise((resolve, reject) => {
        s.bindAsync(`unix://${options.socketPath}`, grpc.ServerCredentials.createInsecure(), (err) =>
          err === null ? resolve() : reject(err),
        );
      });
    },
    stop() {
      const s = server;
      server = undefined;
      if (s === undefined) return Promise.resolve();
      return new Promise((resolve) => s.tryShutdown(() => resolve()));
    },
    kill() {
      server?.forceShutdown();
      server = undefined;
    },
  };
}
