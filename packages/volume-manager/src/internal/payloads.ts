import os from 'node:os';
import type { DownwardAPIVolumeFile, KeyToPath, NodeResources, Pod } from '@kubelet-ts/api';
import { containerResourceValue } from '@kubelet-ts/api';
import { z } from 'zod';
import type { FileProjection } from '../atomic-writer.js';
import { validatePayloadPath } from '../atomic-writer.js';
import { VolumeError } from '../errors.js';
import type { ConfigMapSecretSource, TokenSource } from '../types.js';

export type Payload = Map<string, FileProjection>;

/** The host's cpus and memory: node allocatable when the volume manager is given none. */
export const machineNodeResources = (): NodeResources => ({ cpuMilli: os.cpus().length * 1000, memoryBytes: os.totalmem() });

export interface PayloadContext {
  pod: Pod;
  source: ConfigMapSecretSource | undefined;
  tokenSource: TokenSource | undefined;
  nodeAllocatable: NodeResources;
}

const DEFAULT_MODE = 0o644;

/** Upstream makePayload for configMap/secret: all keys, or only the listed items (missing keys are errors unless optional). */
function keysToPayload(
  content: Map<string, Buffer>,
  items: KeyToPath[] | undefined,
  defaultMode: number,
  optional: boolean,
  missingKey: (key: string) => string,
): Payload {
  const payload: Payload = new Map();
  if (items === undefined || items.length === 0) {
    for (const [key, data] of content) payload.set(key, { data, mode: defaultMode });
    return payload;
  }
  for (const item of items) {
    const data = content.get(item.key);
    if (data === undefined) {
      if (optional) continue;
      throw new VolumeError('SOURCE_NOT_FOUND', missingKey(item.key));
    }
    validatePayloadPath(item.path);
    payload.set(item.path, { data, mode: item.mode ?? defaultMode });
  }
  return payload;
}

export interface ConfigMapProjection {
  name?: string | undefined;
  items?: KeyToPath[] | undefined;
  optional?: boolean | undefined;
}

export async function configMapPayload(ctx: PayloadContext, ref: ConfigMapProjection, defaultMode: number | undefined): Promise<Payload> {
  const optional = ref.optional === true;
  const name = ref.name ?? '';
  const configMap = ctx.source === undefined ? undefined : await ctx.source.getConfigMap(ctx.pod.metadata.namespace ?? 'default', name);
  if (configMap === undefined) {
    if (optional) return new Map();
    throw new VolumeError('SOURCE_NOT_FOUND', `configmap ${JSON.stringify(name)} not found`);
  }
  const content = new Map<string, Buffer>();
  for (const [k, v] of Object.entries(configMap.data)) content.set(k, Buffer.from(v, 'utf8'));
  for (const [k, v] of Object.entries(configMap.binaryData)) content.set(k, v);
  return keysToPayload(
    content,
    ref.items,
    defaultMode ?? DEFAULT_MODE,
    optional,
    (key) => `configmap references non-existent config key: ${key}`,
  );
}

export interface SecretProjection {
  name?: string | undefined;
  items?: KeyToPath[] | undefined;
  optional?: boolean | undefined;
}

export async function secretPayload(ctx: PayloadContext, ref: SecretProjection, defaultMode: number | undefined): Promise<Payload> {
  const optional = ref.optional === true;
  const name = ref.name ?? '';
  const secret = ctx.source === undefined ? undefined : await ctx.source.getSecret(ctx.pod.metadata.namespace ?? 'default', name);
  if (secret === undefined) {
    if (optional) return new Map();
    throw new VolumeError('SOURCE_NOT_FOUND', `secret ${JSON.stringify(name)} not found`);
  }
  return keysToPayload(
    new Map(Object.entries(secret.data)),
    ref.items,
    defaultMode ?? DEFAULT_MODE,
    optional,
    (key) => `references non-existent secret key: ${key}`,
  );
}

/** Upstream FormatMap: sorted `key="value"` lines. */
function formatMap(map: Record<string, string> | undefined): string {
  return Object.keys(map ?? {})
    .sort()
    .map((k) => `${k}=${JSON.stringify(map?.[k] ?? '')}`)
    .join('\n');
}

function fieldValue(pod: Pod, fieldPath: string): string {
  switch (fieldPath) {
    case 'metadata.name':
      return pod.metadata.name;
    case 'metadata.namespace':
      return pod.metadata.namespace ?? 'default';
    case 'metadata.uid':
      return pod.metadata.uid;
    case 'metadata.labels':
      return formatMap(pod.metadata.labels as Record<string, string> | undefined);
    case 'metadata.annotations':
      return formatMap(pod.metadata.annotations as Record<string, string> | undefined);
  }
  const m = /^metadata\.(labels|annotations)\['([^']+)'\]$/.exec(fieldPath);
  if (m !== null) {
    const map = (m[1] === 'labels' ? pod.metadata.labels : pod.metadata.annotations) as Record<string, string> | undefined;
    return map?.[m[2] ?? ''] ?? '';
  }
  throw new VolumeError('INVALID_VOLUME', `unsupported fieldPath: ${fieldPath}`);
}

function resourceValue(ctx: PayloadContext, item: DownwardAPIVolumeFile): string {
  const ref = item.resourceFieldRef;
  if (ref === undefined) return '';
  const container = [...ctx.pod.spec.containers, ...(ctx.pod.spec.initContainers ?? [])].find((c) => c.name === ref.containerName);
  if (container === undefined)
    throw new VolumeError(
      'INVALID_VOLUME',
      `container ${JSON.stringify(ref.containerName ?? '')} not found for resourceFieldRef ${ref.resource}`,
    );
  const value = containerResourceValue(ref.resource, ref.divisor, container, ctx.nodeAllocatable);
  if (value === undefined) throw new VolumeError('INVALID_VOLUME', `unsupported container resource: ${ref.resource}`);
  return value;
}

export function downwardAPIPayload(
  ctx: PayloadContext,
  items: DownwardAPIVolumeFile[] | undefined,
  defaultMode: number | undefined,
): Payload {
  const payload: Payload = new Map();
  for (const item of items ?? []) {
    validatePayloadPath(item.path);
    let value: string;
    if (item.fieldRef !== undefined) value = fieldValue(ctx.pod, item.fieldRef.fieldPath);
    else if (item.resourceFieldRef !== undefined) value = resourceValue(ctx, item);
    else throw new VolumeError('INVALID_VOLUME', `downwardAPI item ${JSON.stringify(item.path)} has neither fieldRef nor resourceFieldRef`);
    payload.set(item.path, { data: Buffer.from(value, 'utf8'), mode: item.mode ?? defaultMode ?? DEFAULT_MODE });
  }
  return payload;
}

// projected.sources are loose in @kubelet-ts/api: each source is validated here.
const KeyToPathList = z.array(z.looseObject({ key: z.string(), path: z.string(), mode: z.number().int().optional() })).optional();
const ProjectionSchema = z.looseObject({
  configMap: z.looseObject({ name: z.string().optional(), items: KeyToPathList, optional: z.boolean().optional() }).optional(),
  secret: z.looseObject({ name: z.string().optional(), items: KeyToPathList, optional: z.boolean().optional() }).optional(),
  downwardAPI: z
    .looseObject({
      items: z
        .array(
          z.looseObject({
            path: z.string(),
            fieldRef: z.looseObject({ fieldPath: z.string(), apiVersion: z.string().optional() }).optional(),
            resourceFieldRef: z
              .looseObject({
                containerName: z.string().optional(),
                resource: z.string(),
                divisor: z.union([z.string(), z.number()]).optional(),
              })
              .optional(),
            mode: z.number().int().optional(),
          }),
        )
        .optional(),
    })
    .optional(),
  serviceAccountToken: z
    .looseObject({ audience: z.string().optional(), expirationSeconds: z.number().int().optional(), path: z.string() })
    .optional(),
});

export async function projectedPayload(
  ctx: PayloadContext,
  sources: unknown[] | undefined,
  defaultMode: number | undefined,
): Promise<Payload> {
  const payload: Payload = new Map();
  const merge = (part: Payload): void => {
    for (const [k, v] of part) payload.set(k, v);
  };
  for (const [index, raw] of (sources ?? []).entries()) {
    const parsed = ProjectionSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new VolumeError(
        'INVALID_VOLUME',
        `projected.sources[${index}].${issue?.path.map(String).join('.') ?? ''}: ${issue?.message ?? 'invalid'}`,
      );
    }
    const source = parsed.data;
    if (source.configMap !== undefined) merge(await configMapPayload(ctx, source.configMap, defaultMode));
    else if (source.secret !== undefined) merge(await secretPayload(ctx, source.secret, defaultMode));
    else if (source.downwardAPI !== undefined)
      merge(downwardAPIPayload(ctx, source.downwardAPI.items as DownwardAPIVolumeFile[] | undefined, defaultMode));
    else if (source.serviceAccountToken !== undefined) {
      const sat = source.serviceAccountToken;
      validatePayloadPath(sat.path);
      if (ctx.tokenSource === undefined)
        throw new VolumeError('SOURCE_NOT_FOUND', 'no token source configured for serviceAccountToken projections');
      const token = await ctx.tokenSource.getServiceAccountToken(ctx.pod, {
        audience: sat.audience ?? '',
        expirationSeconds: sat.expirationSeconds ?? 3600,
      });
      // Upstream writes the token with mode 0600 when defaultMode is not set, to protect it.
      payload.set(sat.path, { data: Buffer.from(token, 'utf8'), mode: defaultMode ?? 0o600 });
    } else {
      throw new VolumeError(
        'INVALID_VOLUME',
        `projected.sources[${index}]: unsupported projection (only configMap, secret, downwardAPI and serviceAccountToken)`,
      );
    }
  }
  return payload;
}
