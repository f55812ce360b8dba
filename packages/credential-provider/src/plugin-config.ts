import { readFile as fsReadFile } from 'node:fs/promises';
import { goDurationError, parseGoDuration } from '@kubelet-ts/common';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { CREDENTIAL_PROVIDER_API_VERSIONS, CREDENTIAL_PROVIDER_CONFIG_API_VERSIONS, CREDENTIAL_PROVIDER_CONFIG_KIND } from './constants.js';
import type { CredentialProviderConfigIssue } from './errors.js';
import { CredentialProviderError, formatConfigIssue } from './errors.js';
import { parseSchemelessUrl } from './internal/go-url.js';

/** One exec plugin of a CredentialProviderConfig (upstream kubeletconfig.CredentialProvider). */
export interface CredentialProviderSpec {
  /** The executable's name in the plugin bin dir; also the plugin's identity. */
  name: string;
  /** The images the plugin is run for: registry globs as the keyring matches them (`*.dkr.ecr.*.amazonaws.com`). */
  matchImages: string[];
  /** How long a response without `cacheDuration` is cached; 0: not cached. */
  defaultCacheDurationMs: number;
  /** The CredentialProviderRequest/Response version the plugin speaks (`credentialprovider.kubelet.k8s.io/v1`). */
  apiVersion: string;
  args: string[];
  /** Added to the kubelet's environment for the plugin, later entries winning. */
  env: Array<{ name: string; value: string }>;
}

export interface CredentialProviderConfig {
  apiVersion: string;
  kind: typeof CREDENTIAL_PROVIDER_CONFIG_KIND;
  providers: CredentialProviderSpec[];
}

const durationString = z.string().superRefine((value, ctx) => {
  const why = goDurationError(value);
  if (why !== undefined) ctx.addIssue({ code: 'custom', message: `time: ${why} ${JSON.stringify(value)}` });
});

// Strict, as upstream decodes the file (serializer.EnableStrict): unknown fields are errors.
const ProviderSchema = z.strictObject({
  name: z.string().default(''),
  matchImages: z.array(z.string()).nullable().default([]),
  defaultCacheDuration: durationString.nullable().optional(),
  apiVersion: z.string().default(''),
  args: z.array(z.string()).nullable().default([]),
  env: z
    .array(z.strictObject({ name: z.string().default(''), value: z.string().default('') }))
    .nullable()
    .default([]),
  tokenAttributes: z.looseObject({}).nullable().optional(),
});

const ConfigSchema = z.strictObject({
  apiVersion: z.string(),
  kind: z.string(),
  providers: z.array(ProviderSchema).nullable().default([]),
});

type ParsedProvider = z.infer<typeof ProviderSchema>;

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : out === '' ? String(key) : `.${String(key)}`;
  return out;
}

function zodIssues(error: z.ZodError): Array<{ path: string; reason: string }> {
  return error.issues.flatMap((issue) => {
    const path = issue.path as PropertyKey[];
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: formatPath([...path, key]), reason: 'strict decoding error: unknown field' }));
    }
    if (issue.code === 'invalid_type') {
      const input = (issue as { input?: unknown }).input;
      const got = input === undefined ? 'nothing' : Array.isArray(input) ? 'array' : input === null ? 'null' : typeof input;
      return [{ path: formatPath(path), reason: `cannot decode ${got} as ${issue.expected}` }];
    }
    return [{ path: formatPath(path), reason: issue.message }];
  });
}

/** Upstream field.Error wording: `Invalid value: "x": detail`, `Required value`, `Unsupported value: …`. */
const invalid = (value: string, detail: string): string => `Invalid value: ${JSON.stringify(value)}: ${detail}`;
const required = (detail = ''): string => (detail === '' ? 'Required value' : `Required value: ${detail}`);

/** Upstream validateCredentialProviderConfig, field paths indexed (`providers[1].name`). */
function validate(providers: readonly ParsedProvider[]): Array<{ path: string; reason: string }> {
  const issues: Array<{ path: string; reason: string }> = [];
  if (providers.length === 0) issues.push({ path: 'providers', reason: required('at least 1 item in plugins is required') });
  const seen = new Set<string>();
  providers.forEach((provider, i) => {
    const at = (field: string): string => `providers[${i}].${field}`;
    const name = provider.name;
    if (name.includes('/')) issues.push({ path: at('name'), reason: invalid(name, "provider name cannot contain '/'") });
    if (name.includes(' ')) issues.push({ path: at('name'), reason: invalid(name, 'provider name cannot contain spaces') });
    if (name === '.') issues.push({ path: at('name'), reason: invalid(name, "provider name cannot be '.'") });
    if (name === '..') issues.push({ path: at('name'), reason: invalid(name, "provider name cannot be '..'") });
    if (seen.has(name)) issues.push({ path: at('name'), reason: `Duplicate value: ${JSON.stringify(name)}` });
    seen.add(name);
    if (provider.apiVersion === '') issues.push({ path: at('apiVersion'), reason: required() });
    else if (!(CREDENTIAL_PROVIDER_API_VERSIONS as readonly string[]).includes(provider.apiVersion)) {
      const supported = CREDENTIAL_PROVIDER_API_VERSIONS.map((v) => JSON.stringify(v)).join(', ');
      issues.push({
        path: at('apiVersion'),
        reason: `Unsupported value: ${JSON.stringify(provider.apiVersion)}: supported values: ${supported}`,
      });
    }
    const matchImages = provider.matchImages ?? [];
    if (matchImages.length === 0) issues.push({ path: at('matchImages'), reason: required('at least 1 item in matchImages is required') });
    for (const matchImage of matchImages) {
      const parsed = parseSchemelessUrl(matchImage);
      if ('error' in parsed)
        issues.push({ path: at('matchImages'), reason: invalid(matchImage, `match image is invalid: ${parsed.error}`) });
    }
    if (provider.defaultCacheDuration === undefined || provider.defaultCacheDuration === null) {
      issues.push({ path: at('defaultCacheDuration'), reason: required() });
    } else if (parseGoDuration(provider.defaultCacheDuration) < 0) {
      issues.push({
        path: at('defaultCacheDuration'),
        reason: invalid(provider.defaultCacheDuration, 'must be greater than or equal to 0'),
      });
    }
    if (provider.tokenAttributes !== undefined && provider.tokenAttributes !== null) {
      // kubelet-ts runs plugins without service account tokens: as upstream with the feature gate off.
      issues.push({
        path: at('tokenAttributes'),
        reason:
          'Forbidden: tokenAttributes is not supported when KubeletServiceAccountTokenForCredentialProviders feature gate is disabled',
      });
    }
  });
  return issues;
}

function configError(source: string, heading: string, found: ReadonlyArray<{ path: string; reason: string }>): CredentialProviderError {
  const issues: CredentialProviderConfigIssue[] = found.map((issue) => ({ source, ...issue }));
  return new CredentialProviderError('INVALID_CONFIG', `${heading}:\n  ${issues.map(formatConfigIssue).join('\n  ')}`, { issues });
}

/**
 * Decodes and validates a CredentialProviderConfig document (YAML or JSON; kubelet.config.k8s.io
 * v1, v1beta1 or v1alpha1) as upstream's readCredentialProviderConfigFile and
 * validateCredentialProviderConfig do. `source` names the file in errors.
 * @throws CredentialProviderError INVALID_CONFIG with every issue (file, field path, reason).
 */
export function parseCredentialProviderConfig(text: string, source: string): CredentialProviderConfig {
  const decodeError = (found: Array<{ path: string; reason: string }>): CredentialProviderError =>
    configError(source, `error decoding config ${source}`, found);
  const document = parseDocument(text, { version: '1.1', uniqueKeys: true, prettyErrors: false });
  if (document.errors.length > 0) {
    throw decodeError(document.errors.map((e) => ({ path: '', reason: `invalid YAML/JSON: ${e.message.split('\n')[0] ?? e.message}` })));
  }
  const raw: unknown = document.toJS();
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw decodeError([{ path: '', reason: 'not a CredentialProviderConfig object' }]);
  const { apiVersion, kind } = raw as { apiVersion?: unknown; kind?: unknown };
  if (typeof kind !== 'string' || kind === '') throw decodeError([{ path: 'kind', reason: "Object 'Kind' is missing" }]);
  if (typeof apiVersion !== 'string' || !(CREDENTIAL_PROVIDER_CONFIG_API_VERSIONS as readonly string[]).includes(apiVersion)) {
    throw decodeError([
      { path: 'apiVersion', reason: `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion ?? '')}` },
    ]);
  }
  if (kind !== CREDENTIAL_PROVIDER_CONFIG_KIND)
    throw decodeError([{ path: 'kind', reason: `failed to decode ${JSON.stringify(kind)} (wrong Kind)` }]);
  const parsed = ConfigSchema.safeParse(raw, { reportInput: true });
  if (!parsed.success) throw decodeError(zodIssues(parsed.error));
  const providers = parsed.data.providers ?? [];
  const issues = validate(providers);
  if (issues.length > 0) throw configError(source, 'failed to validate credential provider config', issues);
  return {
    apiVersion,
    kind: CREDENTIAL_PROVIDER_CONFIG_KIND,
    providers: providers.map((p) => ({
      name: p.name,
      matchImages: p.matchImages ?? [],
      defaultCacheDurationMs: parseGoDuration(p.defaultCacheDuration as string),
      apiVersion: p.apiVersion,
      args: p.args ?? [],
      env: p.env ?? [],
    })),
  };
}

/**
 * Reads and parses the file of `--image-credential-provider-config`.
 * @throws CredentialProviderError INVALID_CONFIG (unreadable, undecodable or invalid file).
 */
export async function loadCredentialProviderConfig(
  path: string,
  options: { readFile?: (path: string) => Promise<string> } = {},
): Promise<CredentialProviderConfig> {
  if (path === '') throw new CredentialProviderError('INVALID_CONFIG', 'credential provider config path is empty');
  const read = options.readFile ?? ((p: string) => fsReadFile(p, 'utf8'));
  let text: string;
  try {
    text = await read(path);
  } catch (err) {
    throw new CredentialProviderError(
      'INVALID_CONFIG',
      `unable to read external registry credential provider configuration from ${JSON.stringify(path)}: ${(err as Error).message}`,
      { cause: err, issues: [{ source: path, path: '', reason: `unable to read: ${(err as Error).message}` }] },
    );
  }
  return parseCredentialProviderConfig(text, path);
}
