import { z } from 'zod';
import { DOCKERCFG_KEY, DOCKER_CONFIG_JSON_KEY, SECRET_TYPE_DOCKERCFG, SECRET_TYPE_DOCKER_CONFIG_JSON } from './constants.js';
import type { DockerConfig } from './docker-config.js';
import { parseDockerConfigJson, parseDockercfg } from './docker-config.js';
import { CredentialProviderError } from './errors.js';

/**
 * A pod's image pull secret, as the kubelet has it: a core/v1 Secret (`metadata`, `data` values in
 * base64 as the API serves them) or an already decoded one (`namespace`, `name`, `data` values as
 * bytes, the shape of @kubelet-ts/volume-manager's SecretObject).
 */
export interface PullSecret {
  metadata?: { name?: string; namespace?: string; uid?: string };
  name?: string;
  namespace?: string;
  type?: string;
  data?: Readonly<Record<string, string | Uint8Array>> | null;
}

const PullSecretSchema = z.looseObject({
  metadata: z.looseObject({ name: z.string().optional(), namespace: z.string().optional(), uid: z.string().optional() }).optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
  type: z.string().optional(),
  data: z
    .record(z.string(), z.union([z.string(), z.instanceof(Uint8Array)]))
    .nullable()
    .optional(),
});

/** `namespace/name` of a pull secret, for messages. */
export function pullSecretName(secret: PullSecret): string {
  const name = secret.metadata?.name ?? secret.name ?? '';
  const namespace = secret.metadata?.namespace ?? secret.namespace ?? '';
  return namespace === '' ? name : `${namespace}/${name}`;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A data value's bytes: API values are base64 (Go's []byte JSON encoding: padded, newlines skipped). */
function valueBytes(value: string | Uint8Array, key: string, name: string): Uint8Array {
  if (typeof value !== 'string') return value;
  const compact = value.replace(/[\r\n]/g, '');
  if (!BASE64.test(compact)) {
    throw new CredentialProviderError('INVALID_SECRET', `pull secret "${name}": data[${JSON.stringify(key)}] is not valid base64`);
  }
  return Buffer.from(compact, 'base64');
}

/**
 * The docker config a pull secret carries (upstream secrets.MakeDockerKeyring): the
 * `.dockerconfigjson` of a `kubernetes.io/dockerconfigjson` secret, else the `.dockercfg` of a
 * `kubernetes.io/dockercfg` secret; undefined for any other secret, or one whose key is missing or
 * empty (those are skipped silently, as upstream).
 * @throws CredentialProviderError INVALID_SECRET naming the secret and what did not decode.
 */
export function dockerConfigFromSecret(secret: PullSecret): DockerConfig | undefined {
  const parsed = PullSecretSchema.safeParse(secret);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? '' : `${issue.path.join('.')}: `;
    throw new CredentialProviderError('INVALID_SECRET', `pull secret "${pullSecretName(secret)}": ${where}${issue?.message ?? 'invalid'}`);
  }
  const name = pullSecretName(secret);
  const data = secret.data ?? {};
  const formats = [
    { type: SECRET_TYPE_DOCKER_CONFIG_JSON, key: DOCKER_CONFIG_JSON_KEY, parse: parseDockerConfigJson },
    { type: SECRET_TYPE_DOCKERCFG, key: DOCKERCFG_KEY, parse: parseDockercfg },
  ];
  for (const format of formats) {
    const value = data[format.key];
    if (secret.type !== format.type || value === undefined) continue;
    const bytes = valueBytes(value, format.key, name);
    if (bytes.length === 0) continue;
    try {
      return format.parse(bytes, format.key);
    } catch (err) {
      throw new CredentialProviderError('INVALID_SECRET', `pull secret "${name}": ${(err as Error).message}`, { cause: err });
    }
  }
  return undefined;
}
