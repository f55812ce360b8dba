import { readFile as fsReadFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import { NODE_DOCKER_CONFIG_CACHE_LIFETIME_MS } from './constants.js';
import type { DockerConfig } from './docker-config.js';
import { parseDockerConfigJson, parseDockercfg } from './docker-config.js';

/** Something that provides docker config entries for an image (upstream DockerConfigProvider). */
export interface DockerConfigProvider {
  provide(image: string): Promise<DockerConfig>;
}

export interface NodeDockerConfigOptions {
  /** The kubelet's --root-dir, searched first (upstream SetPreferredDockercfgPath); unset, the working directory. */
  rootDirectory?: string;
  /** Default: `process.cwd()`. */
  workingDirectory?: string;
  /** Default: `os.homedir()` ($HOME). */
  homeDirectory?: string;
  /** Reads a file; must reject with `code: 'ENOENT'` for a missing one. Default: fs.promises.readFile. */
  readFile?: (path: string) => Promise<Uint8Array>;
  clock?: Clock;
  logger?: Logger;
  /** How long one read of the files is used (upstream: 5 minutes). */
  cacheLifetimeMs?: number;
}

/**
 * The files upstream ReadDockerConfigFile tries, in order: `config.json` in the root dir, the
 * working dir, `$HOME/.docker` and `/.docker`; only when none holds a valid one, `.dockercfg` in
 * the root dir, the working dir, `$HOME` and `/`.
 */
export function nodeDockerConfigPaths(
  options: Pick<NodeDockerConfigOptions, 'rootDirectory' | 'workingDirectory' | 'homeDirectory'> = {},
): {
  configJson: string[];
  dockercfg: string[];
} {
  const cwd = options.workingDirectory ?? process.cwd();
  const home = options.homeDirectory ?? homedir();
  const root = options.rootDirectory ?? '';
  const at = (dir: string, file: string): string => resolve(cwd, dir, file);
  return {
    configJson: [root, '', resolve(cwd, home, '.docker'), '/.docker'].map((dir) => at(dir, 'config.json')),
    dockercfg: [root, '', home, '/'].map((dir) => at(dir, '.dockercfg')),
  };
}

/**
 * The node-wide docker credentials (upstream's `.dockercfg` provider behind a 5 minute
 * CachingDockerConfigProvider): the first valid file of {@link nodeDockerConfigPaths}, re-read when
 * the cache expires; no valid file gives no credentials. An invalid file is logged and skipped.
 */
export function createNodeDockerConfigProvider(options: NodeDockerConfigOptions = {}): DockerConfigProvider {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? noopLogger;
  const read = options.readFile ?? ((path: string) => fsReadFile(path));
  const lifetime = options.cacheLifetimeMs ?? NODE_DOCKER_CONFIG_CACHE_LIFETIME_MS;
  const paths = nodeDockerConfigPaths(options);
  let cached: { config: Promise<DockerConfig>; expiresAt: number } | undefined;

  const first = async (
    files: readonly string[],
    parse: (content: Uint8Array, source: string) => DockerConfig,
  ): Promise<DockerConfig | undefined> => {
    for (const file of files) {
      let content: Uint8Array;
      try {
        content = await read(file);
      } catch (err) {
        if ((err as { code?: unknown }).code !== 'ENOENT')
          logger.debug('Unable to read docker config file', { path: file, err: errorMessage(err) });
        continue;
      }
      try {
        const config = parse(content, file);
        logger.debug('Found docker config file', { path: file });
        return config;
      } catch (err) {
        logger.warn('Unable to parse docker config file', { path: file, err: errorMessage(err) });
      }
    }
    return undefined;
  };

  const load = async (): Promise<DockerConfig> =>
    (await first(paths.configJson, parseDockerConfigJson)) ?? (await first(paths.dockercfg, parseDockercfg)) ?? new Map();

  return {
    provide() {
      const now = clock.now();
      if (cached === undefined || now >= cached.expiresAt) cached = { config: load(), expiresAt: now + lifetime };
      return cached.config;
    },
  };
}
