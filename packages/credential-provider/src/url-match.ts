import { parseImageReference } from '@kubelet-ts/api';
import { globMatch, parseSchemelessUrl, splitHostPort } from './internal/go-url.js';
import type { ParsedUrl } from './internal/go-url.js';

/** The registry of images without one, and the legacy name that means it (distribution/reference). */
const DEFAULT_DOMAIN = 'docker.io';
const LEGACY_DEFAULT_DOMAIN = 'index.docker.io';
const OFFICIAL_REPO_PREFIX = 'library/';

function parts(url: ParsedUrl): { labels: string[]; port: string } {
  const { host, port } = splitHostPort(url.host);
  return { labels: host.split('.'), port };
}

/**
 * Whether `target` (an image repository such as `registry.io:5000/team/app`) matches `glob` (a
 * registry key such as `*.registry.io:5000/team`), as upstream URLsMatchStr: schemes are not allowed
 * (both are parsed as `https://` + the value), the ports must be equal, the hosts must have as many
 * DNS labels and each label must match its glob (`*` never crosses a `.`), and the glob's path must
 * be a string prefix of the target's.
 */
export function urlsMatch(glob: string, target: string): boolean {
  const globUrl = parseSchemelessUrl(glob);
  const targetUrl = parseSchemelessUrl(target);
  if ('error' in globUrl || 'error' in targetUrl) return false;
  const g = parts(globUrl);
  const t = parts(targetUrl);
  if (g.port !== t.port || g.labels.length !== t.labels.length) return false;
  if (!targetUrl.path.startsWith(globUrl.path)) return false;
  return g.labels.every((label, i) => globMatch(label, t.labels[i] as string));
}

/**
 * Whether an image pulls from Docker Hub by the look of its name (upstream isDefaultRegistryMatch):
 * one path component, a first component that is `docker.io` / `index.docker.io`, or one without
 * a `.` or `:`.
 */
export function isDefaultRegistryMatch(image: string): boolean {
  const slash = image.indexOf('/');
  const first = slash < 0 ? image : image.slice(0, slash);
  if (first === '') return false;
  if (slash < 0) return true;
  if (first === DEFAULT_DOMAIN || first === LEGACY_DEFAULT_DOMAIN) return true;
  return !first.includes('.') && !first.includes(':');
}

/**
 * The repository the kubelet looks credentials up for (upstream parsers.ParseImageName, the
 * normalized name of distribution/reference): tag and digest dropped, `docker.io/` added to a name
 * without a registry and `library/` to an official image; `index.docker.io` becomes `docker.io`.
 * `nginx:1.25` → `docker.io/library/nginx`.
 */
export function repositoryToPull(image: string): string {
  const name = parseImageReference(image).repository;
  const slash = name.indexOf('/');
  const first = slash < 0 ? '' : name.slice(0, slash);
  const hasDomain = slash >= 0 && (first.includes('.') || first.includes(':') || first === 'localhost' || first.toLowerCase() !== first);
  let domain = hasDomain ? first : DEFAULT_DOMAIN;
  let remainder = hasDomain ? name.slice(slash + 1) : name;
  if (domain === LEGACY_DEFAULT_DOMAIN) domain = DEFAULT_DOMAIN;
  if (domain === DEFAULT_DOMAIN && !remainder.includes('/')) remainder = `${OFFICIAL_REPO_PREFIX}${remainder}`;
  return `${domain}/${remainder}`;
}
