import type { Logger } from '@kubelet-ts/common';
import { noopLogger } from '@kubelet-ts/common';
import type { AuthConfig } from '@kubelet-ts/cri-client';
import type { DockerConfig } from './docker-config.js';
import { parseSchemelessUrl } from './internal/go-url.js';
import { isDefaultRegistryMatch, repositoryToPull, urlsMatch } from './url-match.js';

/** Where a credential came from: a pod's pull secret, the node's docker config, or a plugin. */
export type CredentialSource =
  { kind: 'secret'; namespace: string; name: string; uid?: string } | { kind: 'node' } | { kind: 'plugin'; name: string };

/** A credential and its source (upstream TrackedAuthConfig). */
export interface TrackedAuthConfig {
  auth: AuthConfig;
  source: CredentialSource;
}

/** Registry credentials indexed by registry key (upstream BasicDockerKeyring). */
export interface DockerKeyring {
  /** Adds every entry of a docker config; an entry whose key does not parse as a URL is logged and skipped. */
  add(config: DockerConfig, source: CredentialSource): void;
  /**
   * The credentials for an image, most specific registry key first (the keys in reverse byte
   * order: `quay.io/team` before `quay.io` before `*.quay.io`); each key's credentials in the order
   * they were added. When no key matches a Docker Hub image, the `index.docker.io` credentials.
   * `image` is normalized first (`nginx:1` → `docker.io/library/nginx`).
   */
  lookup(image: string): TrackedAuthConfig[];
}

/** The Docker Hub key of legacy configs (`https://index.docker.io/v1/` ends up as this host). */
const DEFAULT_REGISTRY_HOST = 'index.docker.io';

/** Go's sort.Strings order (bytes), reversed. */
function reverseByteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(b, 'utf8'), Buffer.from(a, 'utf8'));
}

/** The index key of a docker config entry (upstream BasicDockerKeyring.Add), or an error. */
function registryKey(location: string): string | { error: string } {
  const schemeless = location.startsWith('https://') ? location.slice(8) : location.startsWith('http://') ? location.slice(7) : location;
  const parsed = parseSchemelessUrl(schemeless);
  if ('error' in parsed) return parsed;
  // The docker client treats /v1/ and /v2/ as the bare host (docker/registry ResolveAuthConfig).
  const path = parsed.path.startsWith('/v2/') || parsed.path.startsWith('/v1/') ? parsed.path.slice(3) : parsed.path;
  return path !== '' && path !== '/' ? parsed.host + path : parsed.host;
}

/** Creates an empty keyring; `logger` hears about entries that are skipped. */
export function createDockerKeyring(options: { logger?: Logger } = {}): DockerKeyring {
  const logger = options.logger ?? noopLogger;
  const creds = new Map<string, TrackedAuthConfig[]>();
  let index: string[] = [];

  return {
    add(config, source) {
      for (const [location, entry] of config) {
        const key = registryKey(location);
        if (typeof key !== 'string') {
          logger.warn('Entry in dockercfg invalid, ignoring', { entry: location, err: key.error });
          continue;
        }
        const list = creds.get(key) ?? [];
        list.push({ auth: { username: entry.username, password: entry.password }, source });
        creds.set(key, list);
      }
      index = [...creds.keys()].sort(reverseByteOrder);
    },
    lookup(image) {
      const repository = repositoryToPull(image);
      const found = index.filter((key) => urlsMatch(key, repository)).flatMap((key) => creds.get(key) ?? []);
      if (found.length > 0) return found.map((c) => ({ ...c, auth: { ...c.auth } }));
      if (isDefaultRegistryMatch(repository)) return (creds.get(DEFAULT_REGISTRY_HOST) ?? []).map((c) => ({ ...c, auth: { ...c.auth } }));
      return [];
    },
  };
}
