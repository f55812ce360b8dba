// Kubeconfig loading: client-node's kubeconfig model (its light config_types module), then zod.
import fs from 'node:fs/promises';
import path from 'node:path';
import { MAX_NESTING_DEPTH, flowNestingExceeds } from '@kubelet-ts/api';
import { parse as parseYaml } from 'yaml';
import { KubeClientError } from './errors.js';
import { checkKubeconfig } from './internal/kubeconfig-schema.js';
import type { RawKubeconfig } from './internal/kubeconfig-schema.js';

/** TLS material: a file (re-read when it changes, for certificate rotation) or inline bytes. */
export type TlsMaterial = { readonly file: string } | { readonly data: Buffer };

/** Everything a client needs to reach one API server as one user: the resolved kubeconfig context. */
export interface ClusterConnection {
  /** Where it came from, for messages (the kubeconfig path, or any label). */
  readonly source: string;
  /** The API server URL, without a trailing slash (a path prefix is kept). */
  readonly server: string;
  /** CA bundle to verify the server with; the system roots when absent. */
  readonly certificateAuthority?: TlsMaterial;
  /** Client certificate; one PEM file holding certificate and key may serve as both (as upstream writes kubelet-client-current.pem). */
  readonly clientCertificate?: TlsMaterial;
  readonly clientKey?: TlsMaterial;
  /** A bearer token. */
  readonly token?: string;
  /** A file holding the bearer token, re-read when it changes (takes precedence over `token`, as in client-go). */
  readonly tokenFile?: string;
  /** `insecure-skip-tls-verify`. */
  readonly skipTLSVerify: boolean;
  /** `tls-server-name`: the name the server certificate is verified against (and sent as SNI). */
  readonly serverName?: string;
  /** The context's default namespace, when it sets one. */
  readonly namespace?: string;
  readonly contextName?: string;
  readonly clusterName?: string;
  readonly userName?: string;
}

export interface LoadKubeconfigOptions {
  /** The context to use; `current-context` when omitted. */
  context?: string;
}

interface ConfigTypes {
  newClusters(a: unknown): unknown[];
  newUsers(a: unknown): unknown[];
  newContexts(a: unknown): unknown[];
}

let configTypes: Promise<ConfigTypes> | undefined;

/**
 * client-node's kubeconfig model, loaded on first use: its `config_types` module only (about 1.5 MiB),
 * never its package root, which pulls the whole generated API (+70 MiB). The package is ESM-only; a
 * dynamic import works from our CommonJS build too.
 */
function loadConfigTypes(): Promise<ConfigTypes> {
  configTypes ??= import('@kubernetes/client-node/dist/config_types.js') as Promise<ConfigTypes>;
  return configTypes;
}

/**
 * Reads a kubeconfig and resolves one context into a {@link ClusterConnection}. Relative file paths are
 * taken relative to the kubeconfig's directory (as kubectl and client-go do). Fails with a
 * `KUBECONFIG_INVALID` KubeClientError naming the file and field; exec and auth-provider plugins are
 * refused (not supported).
 */
export async function loadKubeconfig(file: string, options: LoadKubeconfigOptions = {}): Promise<ClusterConnection> {
  const invalid = (message: string, cause?: unknown): KubeClientError =>
    new KubeClientError('KUBECONFIG_INVALID', `kubeconfig ${file}: ${message}`, { cause });
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    throw invalid(`cannot read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, err);
  }
  // Refused before the recursive YAML parser spends seconds on it (upstream's go-yaml stops at 10 000 levels).
  if (flowNestingExceeds(text, MAX_NESTING_DEPTH)) throw invalid(`not YAML: nested more than ${MAX_NESTING_DEPTH} levels deep`);
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw invalid(`not YAML: ${(err as Error).message}`, err);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw invalid('not a kubeconfig (expected a mapping)');
  const raw = doc as RawKubeconfig;
  const model = await loadConfigTypes();
  let parsed: { clusters: unknown[]; users: unknown[]; contexts: unknown[] };
  try {
    parsed = {
      clusters: model.newClusters(raw.clusters),
      // client-node reads `token-file` itself, relative to the working directory and once: keep it a path.
      users: model.newUsers(withoutTokenFiles(raw.users)),
      contexts: model.newContexts(raw.contexts),
    };
  } catch (err) {
    throw invalid((err as Error).message, err);
  }
  const checked = checkKubeconfig(raw, parsed, options.context);
  if (!checked.ok) throw invalid(checked.message);
  const { cluster, user, context, tokenFile } = checked.value;
  const dir = path.dirname(path.resolve(file));
  const material = (data: string | undefined, filePath: string | undefined): TlsMaterial | undefined =>
    data !== undefined && data !== ''
      ? { data: Buffer.from(data, 'base64') }
      : filePath
        ? { file: path.resolve(dir, filePath) }
        : undefined;
  return {
    source: file,
    server: cluster.server,
    ...optional('certificateAuthority', material(cluster.caData, cluster.caFile)),
    ...optional('clientCertificate', material(user.certData, user.certFile)),
    ...optional('clientKey', material(user.keyData, user.keyFile)),
    ...optional('token', user.token),
    ...optional('tokenFile', tokenFile === undefined ? undefined : path.resolve(dir, tokenFile)),
    skipTLSVerify: cluster.skipTLSVerify,
    ...optional('serverName', cluster.tlsServerName),
    ...optional('namespace', context.namespace),
    contextName: context.name,
    clusterName: cluster.name,
    ...optional('userName', user.name),
  };
}

function optional<K extends string, V>(key: K, value: V | undefined | null | ''): { [P in K]?: V } {
  return value === undefined || value === null || value === '' ? {} : ({ [key]: value } as { [P in K]: V });
}

function withoutTokenFiles(users: unknown): unknown {
  if (!Array.isArray(users)) return users;
  return users.map((entry: unknown) => {
    if (typeof entry !== 'object' || entry === null) return entry;
    const { user } = entry as { user?: unknown };
    if (typeof user !== 'object' || user === null) return entry;
    const { 'token-file': _dropped, ...rest } = user as Record<string, unknown>;
    return { ...entry, user: rest };
  });
}
