import { join } from 'node:path';
import type { Clock, Logger, Metrics } from '@kubelet-ts/common';
import { DEFAULT_BUCKETS, errorMessage, goDurationError, noopLogger, noopMetrics, parseGoDuration, systemClock } from '@kubelet-ts/common';
import { z } from 'zod';
import { METRIC_PLUGIN_DURATION, METRIC_PLUGIN_ERRORS, PLUGIN_CACHE_PURGE_INTERVAL_MS, PLUGIN_EXEC_TIMEOUT_MS } from './constants.js';
import type { DockerConfig, DockerConfigEntry } from './docker-config.js';
import { CredentialProviderError } from './errors.js';
import type { DockerConfigProvider } from './node-docker-config.js';
import type { CredentialProviderSpec } from './plugin-config.js';
import { urlsMatch } from './url-match.js';

/** One run of a plugin executable, as the runner port receives it. */
export interface PluginExecRequest {
  /** The plugin's name (for logs). */
  name: string;
  /** `<bin dir>/<name>`. */
  command: string;
  args: readonly string[];
  /** The complete environment: the kubelet's, overlaid with the provider's `env`. */
  env: Readonly<Record<string, string>>;
  /** The encoded CredentialProviderRequest. */
  stdin: string;
  /** Aborted when the run's timeout passes: the runner kills the process and rejects. */
  signal: AbortSignal;
}

export interface PluginExecResult {
  stdout: string;
  stderr: string;
  /** The exit status, or null when a signal ended the process. */
  exitCode: number | null;
  signal: string | null;
}

/**
 * Runs plugin executables (injected so that unit tests need no processes; see
 * `createExecPluginRunner` for the real one). Rejects only when the process could not be run or was
 * aborted; a process that ran reports its exit status.
 */
export interface PluginRunner {
  run(request: PluginExecRequest): Promise<PluginExecResult>;
}

/** A registered exec plugin: provides the docker config entries its last (or cached) response gave. */
export interface CredentialProviderPlugin extends DockerConfigProvider {
  readonly name: string;
}

export interface CredentialProviderPluginOptions {
  spec: CredentialProviderSpec;
  /** The --image-credential-provider-bin-dir. */
  binDir: string;
  runner: PluginRunner;
  clock?: Clock;
  logger?: Logger;
  metrics?: Metrics;
  /** The kubelet's environment, which the plugin inherits. Default: `process.env`. */
  environ?: () => Readonly<Record<string, string | undefined>>;
  /** The catch-all deadline of one run (upstream: 1 minute). */
  timeoutMs?: number;
}

const durationString = z.string().refine((value) => goDurationError(value) === undefined);

// Strict as upstream's decoder; a null auth entry decodes as empty credentials, as Go's would.
const ResponseSchema = z.strictObject({
  kind: z.literal('CredentialProviderResponse'),
  apiVersion: z.string(),
  cacheKeyType: z.string().default(''),
  cacheDuration: durationString.nullable().optional(),
  auth: z
    .record(z.string(), z.strictObject({ username: z.string().default(''), password: z.string().default('') }).nullable())
    .nullable()
    .optional(),
});

/** The cacheKeyType values of a CredentialProviderResponse. */
export const PluginCacheKeyType = { Image: 'Image', Registry: 'Registry', Global: 'Global' } as const;
export type PluginCacheKeyType = (typeof PluginCacheKeyType)[keyof typeof PluginCacheKeyType];

const GLOBAL_CACHE_KEY = 'global';

interface CacheEntry {
  config: DockerConfig;
  expiresAt: number;
}

/** The registry of an image: everything before the first `/`, port included (upstream parseRegistry). */
function registryOf(image: string): string {
  return image.split('/')[0] as string;
}

/** The message of Go's exec errors for a process that ran. */
function exitMessage(result: PluginExecResult): string | undefined {
  if (result.signal !== null) return `signal: ${result.signal === 'SIGKILL' ? 'killed' : result.signal}`;
  if (result.exitCode !== 0) return `exit status ${String(result.exitCode)}`;
  return undefined;
}

/**
 * An exec credential provider plugin (upstream pluginProvider + execPlugin): run for the images its
 * `matchImages` allow, with a CredentialProviderRequest on stdin and a 1 minute deadline; its
 * response cached by cacheKeyType (the image, its registry, or globally) for `cacheDuration` (else
 * the provider's `defaultCacheDuration`; 0 means not cached); concurrent requests for one image
 * share one run. A failed run or a bad response is logged and gives no credentials, as upstream.
 */
export function createCredentialProviderPlugin(options: CredentialProviderPluginOptions): CredentialProviderPlugin {
  const { spec, runner } = options;
  const clock = options.clock ?? systemClock;
  const logger = (options.logger ?? noopLogger).child({ plugin: spec.name });
  const metrics = options.metrics ?? noopMetrics;
  const environ = options.environ ?? (() => process.env);
  const timeoutMs = options.timeoutMs ?? PLUGIN_EXEC_TIMEOUT_MS;
  const durations = metrics.histogram<'plugin_name'>({
    name: METRIC_PLUGIN_DURATION,
    help: 'Duration of execution in seconds for credential provider plugin',
    labelNames: ['plugin_name'],
    buckets: DEFAULT_BUCKETS,
  });
  const errors = metrics.counter<'plugin_name'>({
    name: METRIC_PLUGIN_ERRORS,
    help: 'Number of errors from credential provider plugin',
    labelNames: ['plugin_name'],
  });
  const cache = new Map<string, CacheEntry>();
  const inflight = new Map<string, Promise<DockerConfig>>();
  let lastPurge = clock.now();

  const cached = (key: string): DockerConfig | undefined => {
    const entry = cache.get(key);
    if (entry === undefined) return undefined;
    // Matches kubelet's expiration policy: expired once the clock is after expiresAt.
    if (clock.now() > entry.expiresAt) {
      cache.delete(key);
      return undefined;
    }
    return entry.config;
  };

  const exec = async (image: string): Promise<z.infer<typeof ResponseSchema>> => {
    const request = { kind: 'CredentialProviderRequest', apiVersion: spec.apiVersion, image };
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(environ())) if (value !== undefined) env[key] = value;
    for (const { name, value } of spec.env) env[name] = value;
    const controller = new AbortController();
    const timer = clock.setTimeout(() => controller.abort(new Error('context deadline exceeded')), timeoutMs);
    const startedAt = clock.now();
    let result: PluginExecResult;
    try {
      const failed = (why: string, stderr: string, cause?: unknown): CredentialProviderError => {
        errors.inc({ plugin_name: spec.name });
        return new CredentialProviderError(
          'PLUGIN_FAILED',
          `error execing credential provider plugin ${spec.name} for image ${image}: ${why}: ${stderr}`,
          cause === undefined ? {} : { cause },
        );
      };
      try {
        result = await runner.run({
          name: spec.name,
          command: join(options.binDir, spec.name),
          args: spec.args,
          env,
          stdin: `${JSON.stringify(request)}\n`,
          signal: controller.signal,
        });
      } catch (err) {
        throw failed(controller.signal.aborted ? 'context deadline exceeded' : errorMessage(err), '', err);
      }
      if (controller.signal.aborted) throw failed('context deadline exceeded', result.stderr);
      const exit = exitMessage(result);
      if (exit !== undefined) throw failed(exit, result.stderr);
    } finally {
      clock.clearTimeout(timer);
      durations.observe({ plugin_name: spec.name }, (clock.now() - startedAt) / 1000);
    }
    let document: unknown;
    try {
      document = JSON.parse(result.stdout) as unknown;
    } catch (err) {
      throw new CredentialProviderError('INVALID_PLUGIN_RESPONSE', `error reading GVK from response: ${errorMessage(err)}`);
    }
    const apiVersion = typeof document === 'object' && document !== null ? (document as { apiVersion?: unknown }).apiVersion : undefined;
    if (apiVersion !== spec.apiVersion) {
      throw new CredentialProviderError(
        'INVALID_PLUGIN_RESPONSE',
        `apiVersion from credential plugin response did not match expected apiVersion:${spec.apiVersion}, actual apiVersion:${typeof apiVersion === 'string' ? apiVersion : ''}`,
      );
    }
    const parsed = ResponseSchema.safeParse(document);
    // Not zod's issues: they may quote the response, which holds credentials.
    if (!parsed.success)
      throw new CredentialProviderError('INVALID_PLUGIN_RESPONSE', 'error decoding credential provider plugin response from stdout');
    return parsed.data;
  };

  const run = async (image: string): Promise<DockerConfig> => {
    let response: z.infer<typeof ResponseSchema>;
    try {
      response = await exec(image);
    } catch (err) {
      logger.error('Failed getting credential from external registry credential provider', { image, err: errorMessage(err) });
      return new Map();
    }
    let key: string;
    if (response.cacheKeyType === PluginCacheKeyType.Image) key = image;
    else if (response.cacheKeyType === PluginCacheKeyType.Registry) key = registryOf(image);
    else if (response.cacheKeyType === PluginCacheKeyType.Global) key = GLOBAL_CACHE_KEY;
    else {
      logger.error('credential provider plugin did not return a valid cacheKeyType', { image, cacheKeyType: response.cacheKeyType });
      return new Map();
    }
    const config = new Map<string, DockerConfigEntry>();
    for (const [matchImage, auth] of Object.entries(response.auth ?? {})) {
      config.set(matchImage, { username: auth?.username ?? '', password: auth?.password ?? '', email: '' });
    }
    const durationMs =
      response.cacheDuration === undefined || response.cacheDuration === null
        ? spec.defaultCacheDurationMs
        : parseGoDuration(response.cacheDuration);
    if (durationMs > 0) cache.set(key, { config, expiresAt: clock.now() + durationMs });
    return config;
  };

  return {
    name: spec.name,
    async provide(image) {
      if (!spec.matchImages.some((matchImage) => urlsMatch(matchImage, image))) return new Map();
      const now = clock.now();
      if (now > lastPurge + PLUGIN_CACHE_PURGE_INTERVAL_MS) {
        for (const [key, entry] of cache) if (now > entry.expiresAt) cache.delete(key);
        lastPurge = now;
      }
      const hit = cached(image) ?? cached(registryOf(image)) ?? cached(GLOBAL_CACHE_KEY);
      if (hit !== undefined) return hit;
      // Concurrent requests for one image share one run (upstream singleflight keyed by image).
      const existing = inflight.get(image);
      if (existing !== undefined) return existing;
      const started = run(image).finally(() => inflight.delete(image));
      inflight.set(image, started);
      return started;
    },
  };
}
