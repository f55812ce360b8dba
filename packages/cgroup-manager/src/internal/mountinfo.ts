import { parseMountInfo } from '@kubelet-ts/common';
import { CgroupError } from '../errors.js';

/** One cgroup filesystem mount from /proc/self/mountinfo. */
export interface CgroupMount {
  version: 1 | 2;
  /** Where it is mounted (host path, unescaped). */
  mountPoint: string;
  /** The cgroup path of the mount's root (`/` unless inside a cgroup namespace or a bind mount). */
  root: string;
  /** v1: the controllers in its super options (`cpu`, `cpuacct`, `name=systemd`…); v2: empty. */
  controllers: string[];
}

/** How the cgroups of this machine are laid out. */
export interface CgroupLayout {
  /** `v2` when only the unified hierarchy carries cpu and memory; `v1` otherwise (also hybrid). */
  mode: 'v1' | 'v2';
  /** v1 mounts by controller (`cpu`, `memory`, …, and `name=systemd`). */
  v1: Map<string, CgroupMount>;
  /** The cgroup2 mount (the whole tree on v2; the hybrid `unified` one on v1), if any. */
  unified: CgroupMount | undefined;
  /** Every cgroup mount, each once. */
  mounts: CgroupMount[];
}

const KNOWN_V1_OPTIONS = new Set([
  'rw',
  'ro',
  'nosuid',
  'nodev',
  'noexec',
  'relatime',
  'noatime',
  'clone_children',
  'xattr',
  'nsdelegate',
  'memory_recursiveprot',
  'favordynmods',
  'memory_localevents',
  'cpuset_v2_mode',
  'noprefix',
]);

/** Parses the cgroup mounts out of a mountinfo text (proc(5) format). */
export function parseCgroupMounts(text: string): CgroupMount[] {
  const out: CgroupMount[] = [];
  for (const { fsType, mountPoint, root, superOptions } of parseMountInfo(text)) {
    if (fsType === 'cgroup2') out.push({ version: 2, mountPoint, root, controllers: [] });
    else if (fsType === 'cgroup') {
      const controllers = superOptions.filter((o) => o !== '' && !KNOWN_V1_OPTIONS.has(o) && !o.startsWith('release_agent='));
      out.push({ version: 1, mountPoint, root, controllers });
    }
  }
  return out;
}

/** Decides the mode from the mounts, as upstream IsCgroup2UnifiedMode does from the filesystem type of /sys/fs/cgroup. */
export function cgroupLayout(mounts: CgroupMount[]): CgroupLayout {
  const v1 = new Map<string, CgroupMount>();
  let unified: CgroupMount | undefined;
  const seen = new Set<string>();
  const unique: CgroupMount[] = [];
  for (const m of mounts) {
    // A hierarchy can be mounted more than once (bind mounts): keep the first, whose root is usually `/`.
    const key = m.version === 2 ? 'cgroup2' : m.controllers.join(',');
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push(m);
    if (m.version === 2) unified = m;
    else for (const c of m.controllers) v1.set(c, m);
  }
  if (v1.has('cpu') || v1.has('memory')) return { mode: 'v1', v1, unified, mounts: unique };
  if (unified !== undefined) return { mode: 'v2', v1, unified, mounts: unique };
  throw new CgroupError('NOT_MOUNTED', 'no cgroup v1 hierarchy with cpu or memory and no cgroup2 mount found in mountinfo');
}

/** The directory of cgroup `path` (absolute, `/a/b`) inside a mount. */
export function mountPath(mount: CgroupMount, path: string): string {
  let rel = path;
  if (mount.root !== '/' && (rel === mount.root || rel.startsWith(`${mount.root}/`))) rel = rel.slice(mount.root.length);
  const trimmed = rel.replace(/^\/+/, '');
  return trimmed === '' ? mount.mountPoint : `${mount.mountPoint.replace(/\/+$/, '')}/${trimmed}`;
}
