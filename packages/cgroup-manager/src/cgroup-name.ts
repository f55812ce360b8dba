import { CgroupError } from './errors.js';

/**
 * A cgroup as its path components, independent of the driver (upstream cm.CgroupName):
 * `['kubepods', 'burstable', 'pod<uid>']`. The empty array is the root.
 */
export type CgroupName = readonly string[];

export type CgroupDriver = 'cgroupfs' | 'systemd';

export const ROOT_CGROUP: CgroupName = Object.freeze([]);

/** Appends components to a name (upstream NewCgroupName). Components must not contain `/`. */
export function cgroupName(base: CgroupName, ...components: string[]): CgroupName {
  for (const c of components) {
    if (c === '' || c.includes('/')) throw new CgroupError('INVALID_CONFIG', `invalid cgroup name component ${JSON.stringify(c)}`);
  }
  return [...base, ...components];
}

/** `/a/b/c` → `['a','b','c']` (upstream ParseCgroupfsToCgroupName). */
export function parseCgroupfsName(path: string): CgroupName {
  return path.split('/').filter((c) => c !== '');
}

/** `['a','b','c']` → `/a/b/c`; the root is `/` (upstream CgroupName.ToCgroupfs). */
export function toCgroupfs(name: CgroupName): string {
  return `/${name.join('/')}`;
}

// systemd unit names escape `-` (the slice hierarchy separator) as `_` (upstream escapeSystemdCgroupName).
function escapeSystemd(part: string): string {
  return part.replaceAll('-', '_');
}

function unescapeSystemd(part: string): string {
  return part.replaceAll('_', '-');
}

/**
 * The systemd form (upstream CgroupName.ToSystemd): every component becomes a slice nested in
 * the previous one, `['kubepods','burstable','pod1-2']` →
 * `/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1_2.slice`. The root is `/`.
 */
export function toSystemd(name: CgroupName): string {
  if (name.length === 0 || (name.length === 1 && name[0] === '')) return '/';
  const parts: string[] = [];
  let prefix = '';
  for (const component of name) {
    const escaped = escapeSystemd(component);
    prefix = prefix === '' ? escaped : `${prefix}-${escaped}`;
    parts.push(`${prefix}.slice`);
  }
  return `/${parts.join('/')}`;
}

/** The inverse of {@link toSystemd} (upstream ParseSystemdToCgroupName). */
export function parseSystemdName(path: string): CgroupName {
  const out: string[] = [];
  for (const part of path.split('/').filter((p) => p !== '')) {
    const unit = part.endsWith('.slice') ? part.slice(0, -'.slice'.length) : part;
    const last = unit.split('-').at(-1) ?? unit;
    out.push(unescapeSystemd(last));
  }
  return out;
}

/** The name as the driver spells it (what the runtime receives as cgroup_parent). */
export function renderCgroupName(name: CgroupName, driver: CgroupDriver): string {
  return driver === 'systemd' ? toSystemd(name) : toCgroupfs(name);
}
