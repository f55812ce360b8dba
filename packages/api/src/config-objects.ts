// core/v1 ConfigMap and Secret as the API serves them (values of `binaryData` and Secret `data` are
// base64 strings), and the decoded shapes the kubelet's consumers read (volumes, env). Loose objects,
// as the other schemas: unknown fields are kept.
import { z } from 'zod';
import { ObjectMetaSchema } from './schemas.js';
import { bool, str, stringMap } from './schemas/primitives.js';

/** Standard base64 (what Go's encoding/json writes for []byte). */
const base64 = str.regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64');
const base64Map = z.record(z.string(), base64);

export const ConfigMapSchema = z.looseObject({
  apiVersion: str.optional(),
  kind: str.optional(),
  metadata: ObjectMetaSchema,
  /** When true, the data cannot change: the kubelet stops watching it (upstream isImmutable). */
  immutable: bool.optional(),
  data: stringMap.optional(),
  /** Values are base64. */
  binaryData: base64Map.optional(),
});
export type ConfigMap = z.infer<typeof ConfigMapSchema>;

export const SecretSchema = z.looseObject({
  apiVersion: str.optional(),
  kind: str.optional(),
  metadata: ObjectMetaSchema,
  immutable: bool.optional(),
  /** Values are base64. */
  data: base64Map.optional(),
  /** Write-only on the server (merged into `data`); kept when a manifest has it. */
  stringData: stringMap.optional(),
  type: str.optional(),
});
export type Secret = z.infer<typeof SecretSchema>;

/** The Secret type when none is set (upstream SecretTypeOpaque). */
export const SECRET_TYPE_OPAQUE = 'Opaque';

/** A ConfigMap as its consumers read it: `binaryData` decoded. */
export interface ConfigMapObject {
  namespace: string;
  name: string;
  data: Record<string, string>;
  binaryData: Record<string, Buffer>;
}

/** A Secret as its consumers read it: values decoded. */
export interface SecretObject {
  namespace: string;
  name: string;
  type: string;
  data: Record<string, Buffer>;
}

/**
 * Where the kubelet reads the ConfigMaps and Secrets pods name (volumes, env, CSI secrets):
 * standalone, a directory of manifests; in API mode, watches of the API server. `undefined` means
 * "not found"; other failures (not registered, cache not synced, invalid object) reject.
 */
export interface ObjectSource {
  getConfigMap(namespace: string, name: string): Promise<ConfigMapObject | undefined>;
  getSecret(namespace: string, name: string): Promise<SecretObject | undefined>;
}

/** The decoded view of a ConfigMap from the API. */
export function decodeConfigMap(configMap: ConfigMap): ConfigMapObject {
  const binaryData: Record<string, Buffer> = {};
  for (const [k, v] of Object.entries(configMap.binaryData ?? {})) binaryData[k] = Buffer.from(v, 'base64');
  return { namespace: configMap.metadata.namespace, name: configMap.metadata.name, data: { ...(configMap.data ?? {}) }, binaryData };
}

/** The decoded view of a Secret: `data` from base64, then `stringData` over it (as the API server merges them). */
export function decodeSecret(secret: Secret): SecretObject {
  const data: Record<string, Buffer> = {};
  for (const [k, v] of Object.entries(secret.data ?? {})) data[k] = Buffer.from(v, 'base64');
  for (const [k, v] of Object.entries(secret.stringData ?? {})) data[k] = Buffer.from(v, 'utf8');
  return {
    namespace: secret.metadata.namespace,
    name: secret.metadata.name,
    type: secret.type !== undefined && secret.type !== '' ? secret.type : SECRET_TYPE_OPAQUE,
    data,
  };
}
