import { readFile as fsReadFile, readdir } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { LENIENT_DECODING_MESSAGE, parseConfigText } from './decode.js';
import type { UnknownFieldsMode } from './decode.js';
import { applyKubeletConfigurationDefaults, effectiveEvictionHard } from './defaults.js';
import { DEFAULT_EVICTION_HARD } from './eviction.js';
import type { KubeletConfiguration } from './defaults.js';
import type { ConfigIssue } from './errors.js';
import { resolveFeatureGates } from './feature-gates.js';
import { refusedSettings } from './refusals.js';
import type { FeatureGates } from './feature-gates.js';
import { validateKubeletFlags } from './flag-validation.js';
import { parseKubeletArgs } from './flags.js';
import type { KubeletFlags } from './flags.js';
import { KUBELET_CONFIG_API_VERSION, KUBELET_CONFIG_KIND } from './schema.js';
import { validateDocument, validateKubeletConfiguration } from './validate.js';
import type { FieldIssue } from './validate.js';

export interface LoadKubeletConfigurationOptions {
  /** Command-line arguments, without the executable (`process.argv.slice(2)`). */
  argv: readonly string[];
  /** Reads a file as UTF-8 text. Default: node:fs/promises. */
  readFile?: (path: string) => Promise<string>;
  /** Lists a directory's entry names. Default: node:fs/promises readdir. */
  readDir?: (path: string) => Promise<string[]>;
  /** Resolves a relative --config / --config-dir. Default: process.cwd(). */
  cwd?: string;
  /**
   * Unknown and duplicate fields in a file (upstream's strict decoding errors). `'warn'` (default, as
   * upstream): the kubelet falls back to lenient decoding, dropping unknown fields and keeping the last
   * value of a duplicate, each with a warning naming file, field and reason. `'error'` rejects them.
   * A duplicate field in a --config-dir drop-in is an error either way (upstream decodes drop-ins
   * strictly, with no fallback).
   */
  unknownFields?: UnknownFieldsMode;
}

/** Where each part of the final configuration came from. */
export interface ConfigSources {
  /** The --config file, resolved, if any. */
  file?: string;
  /** The --config-dir drop-ins applied, in order. */
  dropIns: string[];
  /** Config paths set by flags, and the flag that set each. */
  flags: Record<string, string>;
}

export type LoadKubeletConfigurationResult =
  | {
      ok: true;
      config: KubeletConfiguration;
      flags: KubeletFlags;
      /** The merged feature gates (upstream defaults, then `featureGates`): `featureGates.isEnabled('X')`. */
      featureGates: FeatureGates;
      warnings: string[];
      sources: ConfigSources;
    }
  | { ok: false; errors: ConfigIssue[]; warnings: string[] };

// Paths in the file that upstream resolves relative to the file's directory (KubeletConfigurationPathRefs).
const RELATIVE_PATH_FIELDS: ReadonlyArray<readonly string[]> = [
  ['staticPodPath'],
  ['tlsCertFile'],
  ['tlsPrivateKeyFile'],
  ['authentication', 'x509', 'clientCAFile'],
  ['resolvConf'],
];

/** Finds who set `path`: the longest recorded prefix (`evictionHard` for `evictionHard.memory.available`). */
function sourceOf(provenance: ReadonlyMap<string, string>, path: string, fallback: string): string {
  let best: string | undefined;
  for (const key of provenance.keys()) {
    const matches = path === key || path.startsWith(`${key}.`) || path.startsWith(`${key}[`);
    if (matches && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? fallback : (provenance.get(best) as string);
}

/** The message of a thrown value; fs errors may come from another realm, so no instanceof. */
function messageOf(err: unknown): string {
  return typeof err === 'object' && err !== null && 'message' in err ? String(err.message) : String(err);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A drop-in over the configuration so far, as upstream's JSON merge patch (RFC 7386): every object —
 * struct or map (`evictionHard`, `featureGates`) — merges key by key; lists and scalars replace.
 */
function mergePatch(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] = isRecord(current) && isRecord(value) ? mergePatch(current, value) : value;
  }
  return out;
}

// Nested objects of KubeletConfiguration that are structs (merged field by field), not maps.
export const STRUCT_PATHS: ReadonlySet<string> = new Set([
  'authentication',
  'authentication.x509',
  'authentication.webhook',
  'authentication.anonymous',
  'authorization',
  'authorization.webhook',
  'logging',
  'logging.options',
  'logging.options.text',
  'logging.options.json',
  'memorySwap',
  'crashLoopBackOff',
  'tracing',
  'userNamespaces',
]);

/** Records `source` for every struct leaf and top-level field of `doc`. */
function recordProvenance(provenance: Map<string, string>, doc: Record<string, unknown>, source: string, prefix = ''): void {
  for (const [key, value] of Object.entries(doc)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    if (STRUCT_PATHS.has(path) && isRecord(value)) recordProvenance(provenance, value, source, path);
    else provenance.set(path, source);
  }
}

function getIn(obj: Record<string, unknown>, path: readonly string[]): unknown {
  let value: unknown = obj;
  for (const key of path) value = isRecord(value) ? value[key] : undefined;
  return value;
}

function setIn(obj: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let holder = obj;
  for (const key of path.slice(0, -1)) {
    if (!isRecord(holder[key])) holder[key] = {};
    holder = holder[key] as Record<string, unknown>;
  }
  holder[path[path.length - 1] as string] = value;
}

interface LoadedDocument {
  doc?: Record<string, unknown>;
  issues: ConfigIssue[];
  warnings: string[];
}

/** Reads, parses (YAML or JSON) and validates one KubeletConfiguration file. */
async function loadDocument(
  path: string,
  readFile: (path: string) => Promise<string>,
  unknownFields: UnknownFieldsMode,
  dropIn = false,
): Promise<LoadedDocument> {
  const issue = (fieldPath: string, reason: string): ConfigIssue => ({ source: path, path: fieldPath, reason });
  const issues: ConfigIssue[] = [];
  let text: string;
  try {
    text = await readFile(path);
  } catch (err) {
    return { issues: [issue('', `cannot read file: ${messageOf(err)}`)], warnings: [] };
  }
  if (text.trim() === '') return { issues: [issue('', 'file is empty')], warnings: [] };
  const parsed = parseConfigText(text);
  if (parsed.syntaxErrors.length > 0) {
    return { issues: parsed.syntaxErrors.map((e) => issue('', `invalid YAML/JSON: ${e}`)), warnings: [] };
  }
  const raw = parsed.value;
  if (!isRecord(raw)) return { issues: [issue('', 'expected a KubeletConfiguration object')], warnings: [] };
  const lenient = unknownFields === 'warn';
  const warnings: string[] = [];
  for (const dup of parsed.duplicates) {
    if (lenient && !dropIn) warnings.push(`${path}: ${dup}: duplicate field, the last value is used (${LENIENT_DECODING_MESSAGE})`);
    else issues.push(issue(dup, dropIn ? 'duplicate field (drop-ins are decoded strictly, as upstream)' : 'duplicate field'));
  }
  if (raw['apiVersion'] === undefined) issues.push(issue('apiVersion', `required (must be "${KUBELET_CONFIG_API_VERSION}")`));
  if (raw['kind'] === undefined) issues.push(issue('kind', `required (must be "${KUBELET_CONFIG_KIND}")`));
  const result = validateDocument(raw, { unknownFields });
  issues.push(...result.issues.map((i) => issue(i.path, i.reason)));
  warnings.push(...result.ignored.map((p) => `${path}: ${p}: unknown field, ignored (${LENIENT_DECODING_MESSAGE})`));
  if (issues.length > 0 || result.value === undefined) return { issues, warnings };

  const doc = result.value as Record<string, unknown>;
  delete doc['apiVersion'];
  delete doc['kind'];
  const base = dirname(path);
  for (const fieldPath of RELATIVE_PATH_FIELDS) {
    const value = getIn(doc, fieldPath);
    if (typeof value === 'string' && value !== '' && !isAbsolute(value)) setIn(doc, fieldPath, join(base, value));
  }
  return { doc, issues: [], warnings };
}

/**
 * Builds the kubelet's configuration as upstream does: built-in defaults, then the --config file, then
 * --config-dir drop-ins (`*.conf`, lexical order), then command-line flags. Every problem found is
 * returned, each naming its source (file or flag), field path and reason.
 */
export async function loadKubeletConfiguration(options: LoadKubeletConfigurationOptions): Promise<LoadKubeletConfigurationResult> {
  const readFile = options.readFile ?? ((path: string) => fsReadFile(path, 'utf8'));
  const readDir = options.readDir ?? ((path: string) => readdir(path));
  const cwd = options.cwd ?? process.cwd();
  const unknownFields = options.unknownFields ?? 'warn';

  const args = parseKubeletArgs(options.argv);
  const { flags, overrides, setBy } = args;
  const warnings = [...args.warnings];
  const errors: ConfigIssue[] = [...args.errors, ...validateKubeletFlags(flags)];

  // Flag values go through the same field validation as file values.
  const flagCheck = validateDocument(overrides);
  const flagSources = new Map(setBy);
  for (const i of flagCheck.issues) errors.push({ source: sourceOf(flagSources, i.path, 'flags'), path: i.path, reason: i.reason });

  const provenance = new Map<string, string>();
  const sources: ConfigSources = { dropIns: [], flags: Object.fromEntries(setBy) };
  let merged: Record<string, unknown> = {};

  // --help and --version print and exit before the configuration is read.
  const skipFiles = flags.help || flags.version !== false;
  if (!skipFiles && flags.config !== undefined && flags.config !== '') {
    const path = resolve(cwd, flags.config);
    sources.file = path;
    const loaded = await loadDocument(path, readFile, unknownFields);
    errors.push(...loaded.issues);
    warnings.push(...loaded.warnings);
    if (loaded.doc !== undefined) {
      merged = loaded.doc;
      recordProvenance(provenance, loaded.doc, path);
    }
  }
  if (!skipFiles && flags.configDir !== undefined && flags.configDir !== '') {
    const dir = resolve(cwd, flags.configDir);
    let names: string[] = [];
    try {
      names = (await readDir(dir)).filter((n) => n.endsWith('.conf')).sort();
    } catch (err) {
      errors.push({ source: dir, path: '', reason: `cannot read directory: ${messageOf(err)}` });
    }
    // Upstream merges drop-ins over the --config file as loaded, which has the default evictionHard when it sets none.
    if (sources.file !== undefined && merged['evictionHard'] === undefined) merged['evictionHard'] = { ...DEFAULT_EVICTION_HARD };
    for (const name of names) {
      const path = join(dir, name);
      const loaded = await loadDocument(path, readFile, unknownFields, true);
      errors.push(...loaded.issues);
      warnings.push(...loaded.warnings);
      if (loaded.doc !== undefined) {
        merged = mergePatch(merged, loaded.doc);
        recordProvenance(provenance, loaded.doc, path);
        sources.dropIns.push(path);
      }
    }
  }
  if (errors.length > 0) return { ok: false, errors, warnings };

  // Defaults: upstream uses its legacy command-line defaults when no --config file is given.
  const config = applyKubeletConfigurationDefaults(merged, { legacy: sources.file === undefined }) as unknown as Record<string, unknown>;
  const fileGates = isRecord(config['featureGates']) ? config['featureGates'] : {};
  const fileGatesSource = sourceOf(provenance, 'featureGates', 'defaults');
  for (const [path, flag] of setBy) {
    const keys = path.split('.');
    let value = getIn(overrides, keys);
    // kubeletConfigFlagPrecedence: feature gates from flags are merged into the file's, not swapped in.
    if (path === 'featureGates' && isRecord(value)) value = { ...fileGates, ...value };
    setIn(config, keys, value);
    provenance.set(path, flag);
  }
  const final = config as unknown as KubeletConfiguration;
  final.evictionHard = effectiveEvictionHard(final);

  // Feature gates: upstream's SetFromMap on the merged map; a gate set by --feature-gates is the flag's.
  const gateResult = resolveFeatureGates(final.featureGates ?? {});
  const flagGates = isRecord(overrides['featureGates']) ? overrides['featureGates'] : {};
  for (const { gate, reason } of gateResult.errors) {
    const source = gate in flagGates ? (setBy.get('featureGates') ?? 'flags') : fileGatesSource;
    errors.push({ source, path: `featureGates.${gate}`, reason });
  }
  warnings.push(...gateResult.warnings);

  // No setting silently ignored: one kubelet-ts does not do is an error unless it has upstream's default.
  const defaults = applyKubeletConfigurationDefaults({}, { legacy: sources.file === undefined }) as unknown as Record<string, unknown>;
  for (const { name, reason } of refusedSettings(config, defaults, flags)) {
    if (name.startsWith('--')) errors.push({ source: `flag ${name}`, path: '', reason });
    else errors.push({ source: sourceOf(provenance, name, 'defaults'), path: name, reason });
  }

  const crossIssues: FieldIssue[] = validateKubeletConfiguration(final);
  for (const i of crossIssues) errors.push({ source: sourceOf(provenance, i.path, 'defaults'), path: i.path, reason: i.reason });
  if (errors.length > 0) return { ok: false, errors, warnings };
  return { ok: true, config: final, flags, featureGates: gateResult.gates, warnings, sources };
}
