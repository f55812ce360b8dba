import * as grpc from '@grpc/grpc-js';
import { z } from 'zod';
import { VolumeError } from './errors.js';
import type { NodeGetVolumeStatsRequest } from './gen/csi/v1/NodeGetVolumeStatsRequest.js';
import type { NodePublishVolumeRequest } from './gen/csi/v1/NodePublishVolumeRequest.js';
import type { NodeStageVolumeRequest } from './gen/csi/v1/NodeStageVolumeRequest.js';
import type { NodeUnpublishVolumeRequest } from './gen/csi/v1/NodeUnpublishVolumeRequest.js';
import type { NodeUnstageVolumeRequest } from './gen/csi/v1/NodeUnstageVolumeRequest.js';
import { csiNodeService } from './internal/csi-loader.js';

export type {
  NodeGetVolumeStatsRequest,
  NodePublishVolumeRequest,
  NodeStageVolumeRequest,
  NodeUnpublishVolumeRequest,
  NodeUnstageVolumeRequest,
};

/** Node service capabilities (csi.v1.NodeServiceCapability.RPC.Type). */
export const NODE_CAPABILITY = {
  STAGE_UNSTAGE_VOLUME: 'STAGE_UNSTAGE_VOLUME',
  GET_VOLUME_STATS: 'GET_VOLUME_STATS',
  EXPAND_VOLUME: 'EXPAND_VOLUME',
  VOLUME_CONDITION: 'VOLUME_CONDITION',
  SINGLE_NODE_MULTI_WRITER: 'SINGLE_NODE_MULTI_WRITER',
  VOLUME_MOUNT_GROUP: 'VOLUME_MOUNT_GROUP',
} as const;

// CSI responses cross a trust boundary (a third-party driver): validated before use.
const int64 = z.union([z.string().regex(/^-?\d+$/), z.number()]).transform((v) => Number(v));
const NodeGetInfoResponseSchema = z.looseObject({
  nodeId: z.string().min(1, 'node_id is required'),
  maxVolumesPerNode: int64.default(0),
  accessibleTopology: z
    .looseObject({ segments: z.record(z.string(), z.string()).default({}) })
    .nullable()
    .default(null),
});
const NodeGetCapabilitiesResponseSchema = z.looseObject({
  capabilities: z.array(z.looseObject({ rpc: z.looseObject({ type: z.string() }).nullable().optional() })).default([]),
});
const NodeGetVolumeStatsResponseSchema = z.looseObject({
  usage: z
    .array(
      z.looseObject({
        available: int64.default(0),
        total: int64.default(0),
        used: int64.default(0),
        unit: z.enum(['UNKNOWN', 'BYTES', 'INODES']).default('UNKNOWN'),
      }),
    )
    .default([]),
  volumeCondition: z
    .looseObject({ abnormal: z.boolean().default(false), message: z.string().default('') })
    .nullable()
    .default(null),
});

export interface NodeInfo {
  nodeId: string;
  maxVolumesPerNode: number;
  topology: Record<string, string>;
}

export interface CsiVolumeStats {
  usage: Array<{ available: number; total: number; used: number; unit: 'UNKNOWN' | 'BYTES' | 'INODES' }>;
  condition?: { abnormal: boolean; message: string };
}

/** A typed Promise client for a CSI driver's Node service (upstream csiDriverClient). */
export interface CsiNodeClient {
  nodeGetInfo(): Promise<NodeInfo>;
  /** The RPC capabilities (`STAGE_UNSTAGE_VOLUME`, …). */
  nodeGetCapabilities(): Promise<string[]>;
  nodeStageVolume(request: NodeStageVolumeRequest): Promise<void>;
  nodeUnstageVolume(request: NodeUnstageVolumeRequest): Promise<void>;
  nodePublishVolume(request: NodePublishVolumeRequest): Promise<void>;
  nodeUnpublishVolume(request: NodeUnpublishVolumeRequest): Promise<void>;
  nodeGetVolumeStats(request: NodeGetVolumeStatsRequest): Promise<CsiVolumeStats>;
  close(): void;
}

export interface CsiNodeClientOptions {
  /** `unix:///path/csi.sock`, or a plain absolute socket path. */
  endpoint: string;
  /** Per-call deadline; upstream csiTimeout is 2 minutes for stage/publish. Default 120 s. */
  timeoutMs?: number;
}

const normalizeEndpoint = (endpoint: string): string => (endpoint.startsWith('/') ? `unix://${endpoint}` : endpoint);

export function createCsiNodeClient(options: CsiNodeClientOptions): CsiNodeClient {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const Client = grpc.makeGenericClientConstructor(csiNodeService() as unknown as grpc.ServiceDefinition, 'Node');
  // Upstream dials a new connection for every CSI operation, so a restarted driver answers the next
  // call at once. One channel kept open does the same only with a short reconnect backoff (grpc's
  // default grows to 120 s while the driver is away).
  const client = new Client(normalizeEndpoint(options.endpoint), grpc.credentials.createInsecure(), {
    'grpc.initial_reconnect_backoff_ms': 250,
    'grpc.max_reconnect_backoff_ms': 2_000,
  });

  const call = (method: string, request: unknown): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const fn = (
        client as unknown as Record<
          string,
          (req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res: unknown) => void) => void
        >
      )[method];
      if (fn === undefined) {
        reject(new VolumeError('CSI_FAILED', `unknown CSI method ${method}`));
        return;
      }
      fn.call(client, request, new grpc.Metadata(), { deadline: Date.now() + timeoutMs }, (err, res) => {
        if (err !== null)
          reject(
            new VolumeError('CSI_FAILED', `rpc error: code = ${grpc.status[err.code] ?? err.code} desc = ${err.details}`, { cause: err }),
          );
        else resolve(res);
      });
    });

  const parse = <T>(schema: z.ZodType<T>, method: string, value: unknown): T => {
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new VolumeError(
        'INVALID_OBJECT',
        `CSI ${method} response: ${issue?.path.map(String).join('.') ?? ''}: ${issue?.message ?? 'invalid'}`,
      );
    }
    return parsed.data;
  };

  return {
    async nodeGetInfo() {
      const res = parse(NodeGetInfoResponseSchema, 'NodeGetInfo', await call('NodeGetInfo', {}));
      return { nodeId: res.nodeId, maxVolumesPerNode: res.maxVolumesPerNode, topology: res.accessibleTopology?.segments ?? {} };
    },
    async nodeGetCapabilities() {
      const res = parse(NodeGetCapabilitiesResponseSchema, 'NodeGetCapabilities', await call('NodeGetCapabilities', {}));
      return res.capabilities.flatMap((c) => (c.rpc?.type !== undefined ? [c.rpc.type] : []));
    },
    async nodeStageVolume(request) {
      await call('NodeStageVolume', request);
    },
    async nodeUnstageVolume(request) {
      await call('NodeUnstageVolume', request);
    },
    async nodePublishVolume(request) {
      await call('NodePublishVolume', request);
    },
    async nodeUnpublishVolume(request) {
      await call('NodeUnpublishVolume', request);
    },
    async nodeGetVolumeStats(request) {
      const res = parse(NodeGetVolumeStatsResponseSchema, 'NodeGetVolumeStats', await call('NodeGetVolumeStats', request));
      return { usage: res.usage, ...(res.volumeCondition !== null ? { condition: res.volumeCondition } : {}) };
    },
    close() {
      client.close();
    },
  };
}

/** The standalone driver registry: a configured map of driver name → socket. */
export function createStaticCsiDriverRegistry(drivers: Record<string, string | { endpoint: string; podInfoOnMount?: boolean }>): {
  get(driverName: string): { endpoint: string; podInfoOnMount?: boolean } | undefined;
} {
  return {
    get(driverName) {
      const entry = drivers[driverName];
      if (entry === undefined) return undefined;
      return typeof entry === 'string' ? { endpoint: entry } : entry;
    },
  };
}
