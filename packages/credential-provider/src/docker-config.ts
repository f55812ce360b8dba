import { CredentialProviderError } from './errors.js';

/** One registry's credentials in a docker config (upstream DockerConfigEntry). */
export interface DockerConfigEntry {
  username: string;
  password: string;
  email: string;
}

/**
 * Registry keys (`registry.io`, `https://index.docker.io/v1/`, `*.registry.io/team`) to their
 * credentials, in the order the document lists them (upstream DockerConfig).
 */
export type DockerConfig = ReadonlyMap<string, DockerConfigEntry>;

const ALPHABET = /^[A-Za-z0-9+/]$/;

/** Go's base64 decoding (StdEncoding when `padded`, else RawStdEncoding; `\r` and `\n` skipped), or the offending offset. */
function decodeBase64(field: string, padded: boolean): Buffer | { at: number } {
  let data = '';
  let padding = 0;
  for (let i = 0; i < field.length; i++) {
    const c = field[i] as string;
    if (c === '\r' || c === '\n') continue;
    if (c === '=' && padded && (data.length + padding) % 4 >= 2 && padding < 2) {
      padding++;
      continue;
    }
    if (padding > 0 || !ALPHABET.test(c)) return { at: i };
    data += c;
  }
  const length = data.length + padding;
  if (padded ? length % 4 !== 0 : length % 4 === 1) return { at: field.length };
  return Buffer.from(data, 'base64');
}

/**
 * Splits a docker config `auth` field, base64(`username:password`), as upstream
 * decodeDockerConfigFieldAuth: padded base64 when it ends with `=`, unpadded otherwise.
 * @throws a message (no secret material in it) when the field does not decode.
 */
export function decodeAuthField(field: string): { username: string; password: string } {
  const decoded = decodeBase64(field, field.trim().endsWith('='));
  if (!Buffer.isBuffer(decoded)) throw new Error(`illegal base64 data at input byte ${decoded.at}`);
  const text = decoded.toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0) throw new Error('unable to parse auth field, must be formatted as base64(username:password)');
  return { username: text.slice(0, colon), password: text.slice(colon + 1) };
}

function typeName(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** A JSON object's value for `field`, matched case-insensitively as Go's encoding/json does (the last match wins). */
function field(object: Record<string, unknown>, name: string): unknown {
  let found: unknown;
  for (const [key, value] of Object.entries(object)) if (key.toLowerCase() === name) found = value;
  return found;
}

function stringField(object: Record<string, unknown>, name: string, path: string): string {
  const value = field(object, name);
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new Error(`${path}.${name}: cannot unmarshal ${typeName(value)} into a string`);
  return value;
}

function decodeEntry(value: unknown, path: string): DockerConfigEntry {
  if (value === null) return { username: '', password: '', email: '' };
  if (typeof value !== 'object' || Array.isArray(value))
    throw new Error(`${path}: cannot unmarshal ${typeName(value)} into a docker config entry`);
  const object = value as Record<string, unknown>;
  const entry = {
    username: stringField(object, 'username', path),
    password: stringField(object, 'password', path),
    email: stringField(object, 'email', path),
  };
  const auth = stringField(object, 'auth', path);
  if (auth === '') return entry;
  try {
    return { ...entry, ...decodeAuthField(auth) };
  } catch (err) {
    throw new Error(`${path}.auth: ${(err as Error).message}`);
  }
}

function decodeEntries(value: unknown, path: string): DockerConfig {
  const config = new Map<string, DockerConfigEntry>();
  if (value === null || value === undefined) return config;
  if (typeof value !== 'object' || Array.isArray(value))
    throw new Error(`${path || 'document'}: cannot unmarshal ${typeName(value)} into a map of registries`);
  for (const [registry, entry] of Object.entries(value)) config.set(registry, decodeEntry(entry, `${path}[${JSON.stringify(registry)}]`));
  return config;
}

function parseJson(content: string | Uint8Array): unknown {
  const text = typeof content === 'string' ? content : Buffer.from(content).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // Not the parser's message: it quotes the input, which holds credentials.
    throw new Error('not valid JSON');
  }
}

function invalid(err: unknown, source: string): CredentialProviderError {
  return new CredentialProviderError('INVALID_DOCKER_CONFIG', `${source}: ${(err as Error).message}`, { cause: err });
}

/**
 * Parses the `config.json` format (`{"auths": {"registry.io": {"auth": "…"}}}`), the payload of a
 * `kubernetes.io/dockerconfigjson` secret. `username`/`password` or `auth` (base64 `user:pass`,
 * which wins) and `email` are read, field names case-insensitively as upstream; other fields
 * (`identitytoken`, `HttpHeaders`, `credsStore`…) are ignored, as upstream ignores them.
 * @throws CredentialProviderError INVALID_DOCKER_CONFIG naming `source` and the entry.
 */
export function parseDockerConfigJson(content: string | Uint8Array, source = 'config.json'): DockerConfig {
  try {
    const document = parseJson(content);
    if (document === null) return new Map();
    if (typeof document !== 'object' || Array.isArray(document))
      throw new Error(`cannot unmarshal ${typeName(document)} into a docker config.json`);
    return decodeEntries(field(document as Record<string, unknown>, 'auths'), 'auths');
  } catch (err) {
    throw invalid(err, source);
  }
}

/**
 * Parses the legacy `.dockercfg` format (`{"registry.io": {"auth": "…"}}`), the payload of a
 * `kubernetes.io/dockercfg` secret; entries as {@link parseDockerConfigJson}.
 * @throws CredentialProviderError INVALID_DOCKER_CONFIG naming `source` and the entry.
 */
export function parseDockercfg(content: string | Uint8Array, source = '.dockercfg'): DockerConfig {
  try {
    return decodeEntries(parseJson(content), '');
  } catch (err) {
    throw invalid(err, source);
  }
}
