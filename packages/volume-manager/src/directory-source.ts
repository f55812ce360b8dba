import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { z } from 'zod';
import { VolumeError } from './errors.js';
import type { ConfigMapObject, ConfigMapSecretSource, SecretObject } from './types.js';

const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64');
const metadata = z.looseObject({ name: z.string().min(1), namespace: z.string().min(1).optional() });

const ConfigMapManifestSchema = z.looseObject({
  apiVersion: z.literal('v1'),
  kind: z.literal('ConfigMap'),
  metadata,
  data: z.record(z.string(), z.string()).optional(),
  binaryData: z.record(z.string(), base64).optional(),
});

const SecretManifestSchema = z.looseObject({
  apiVersion: z.literal('v1'),
  kind: z.literal('Secret'),
  metadata,
  type: z.string().optional(),
  data: z.record(z.string(), base64).optional(),
  stringData: z.record(z.string(), z.string()).optional(),
});

const ManifestSchema = z.discriminatedUnion('kind', [ConfigMapManifestSchema, SecretManifestSchema]);

export interface DirectoryObjectSourceOptions {
  /** A directory of ConfigMap and Secret manifests (`*.yaml`, `*.yml`, `*.json`; YAML may hold several documents). */
  dir: string;
  /** Called for each file or document that does not validate (it is skipped); the error names the file, field path and reason. */
  onInvalid?: (error: VolumeError) => void;
}

export interface DirectoryObjectSource extends ConfigMapSecretSource {
  /** Re-reads the directory now (get* re-read it themselves when a file changed). */
  load(): Promise<void>;
}

const key = (namespace: string, name: string): string => `${namespace}/${name}`;

/**
 * A ConfigMapSecretSource for standalone mode: ConfigMap and Secret manifests the operator puts
 * in a directory, validated with zod. Every get checks the directory (names, sizes, mtimes) so
 * that edits reach running pods on the volume manager's next re-sync; files are parsed again only
 * when something changed. Invalid documents and duplicates are reported through `onInvalid` (once
 * per change) and skipped. Write files atomically (a dot-file or another extension, then rename):
 * a half-written file may parse as a smaller, valid object.
 */
export function createDirectoryObjectSource(options: DirectoryObjectSourceOptions): DirectoryObjectSource {
  let configMaps = new Map<string, ConfigMapObject>();
  let secrets = new Map<string, SecretObject>();

  let signature: string | undefined;
  let refreshing: Promise<void> | undefined;

  const notFound = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'ENOENT';
  const manifestNames = async (): Promise<string[]> => {
    // A missing directory holds no objects (references to them fail as "not found" until it appears).
    const names = await readdir(options.dir).catch((err: unknown) => {
      if (notFound(err)) return [] as string[];
      throw err;
    });
    return names.filter((n) => /\.(ya?ml|json)$/.test(n) && !n.startsWith('.')).sort();
  };

  // Files are parsed (and invalid ones reported) again only when a name, size or mtime changed.
  const check = async (): Promise<void> => {
    const parts: string[] = [];
    for (const name of await manifestNames()) {
      const info = await stat(join(options.dir, name), { bigint: true }).catch(() => undefined);
      if (info !== undefined) parts.push(`${name}:${info.size}:${info.mtimeNs}`);
    }
    const next = parts.join('/');
    if (next === signature) return;
    await load();
    signature = next;
  };
  // Concurrent gets share one check.
  const refresh = (): Promise<void> => {
    refreshing ??= check().finally(() => {
      refreshing = undefined;
    });
    return refreshing;
  };

  const load = async (): Promise<void> => {
    const nextConfigMaps = new Map<string, ConfigMapObject>();
    const nextSecrets = new Map<string, SecretObject>();
    const origins = new Map<string, string>();
    for (const name of await manifestNames()) {
      const file = join(options.dir, name);
      const text = await readFile(file, 'utf8').catch((err: unknown) => {
        if (notFound(err)) return undefined; // removed since the listing
        throw err;
      });
      if (text === undefined) continue;
      const docs = parseAllDocuments(text);
      const list = Array.isArray(docs) ? docs : [docs];
      list.forEach((doc, index) => {
        const where = list.length > 1 ? `${file} (document ${index + 1})` : file;
        if (doc.errors.length > 0) {
          options.onInvalid?.(new VolumeError('INVALID_OBJECT', `${where}: ${doc.errors[0]?.message ?? 'invalid YAML'}`));
          return;
        }
        const value: unknown = doc.toJS();
        if (value === null || value === undefined) return;
        const parsed = ManifestSchema.safeParse(value);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          const path = issue === undefined || issue.path.length === 0 ? '(root)' : issue.path.map(String).join('.');
          options.onInvalid?.(new VolumeError('INVALID_OBJECT', `${where}: ${path}: ${issue?.message ?? 'invalid'}`));
          return;
        }
        const m = parsed.data;
        const namespace = m.metadata.namespace ?? 'default';
        const id = `${m.kind} ${key(namespace, m.metadata.name)}`;
        // As the API server would: one object per kind, namespace and name; the first file (in name order) keeps it.
        const first = origins.get(id);
        if (first !== undefined) {
          options.onInvalid?.(
            new VolumeError('INVALID_OBJECT', `${where}: metadata.name: Duplicate value: ${id} is already defined in ${first}`),
          );
          return;
        }
        origins.set(id, where);
        if (m.kind === 'ConfigMap') {
          const binaryData: Record<string, Buffer> = {};
          for (const [k, v] of Object.entries(m.binaryData ?? {})) binaryData[k] = Buffer.from(v, 'base64');
          nextConfigMaps.set(key(namespace, m.metadata.name), {
            namespace,
            name: m.metadata.name,
            data: { ...(m.data ?? {}) },
            binaryData,
          });
        } else {
          const data: Record<string, Buffer> = {};
          for (const [k, v] of Object.entries(m.data ?? {})) data[k] = Buffer.from(v, 'base64');
          // As the API server does: stringData wins over data.
          for (const [k, v] of Object.entries(m.stringData ?? {})) data[k] = Buffer.from(v, 'utf8');
          nextSecrets.set(key(namespace, m.metadata.name), { namespace, name: m.metadata.name, type: m.type ?? 'Opaque', data });
        }
      });
    }
    configMaps = nextConfigMaps;
    secrets = nextSecrets;
  };

  return {
    load,
    async getConfigMap(namespace, name) {
      await refresh();
      return configMaps.get(key(namespace, name));
    },
    async getSecret(namespace, name) {
      await refresh();
      return secrets.get(key(namespace, name));
    },
  };
}
