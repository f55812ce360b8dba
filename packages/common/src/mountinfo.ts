/** One line of /proc/<pid>/mountinfo (proc(5)), with its path fields unescaped. */
export interface MountPoint {
  id: number;
  parentId: number;
  /** The root of the mount inside its filesystem (a bind mount of a subdirectory shows it here). */
  root: string;
  mountPoint: string;
  options: string[];
  fsType: string;
  source: string;
  superOptions: string[];
}

// mountinfo escapes space, tab, newline and backslash as octal (\040 …).
const unescape = (field: string): string => field.replace(/\\([0-7]{3})/g, (_m, octal: string) => String.fromCharCode(parseInt(octal, 8)));

/**
 * Parses a mountinfo text (upstream mount-utils ParseMountInfo): what the volume manager lists,
 * the cgroup manager finds its hierarchies in and housekeeping checks before removing a pod dir.
 * Lines that do not parse are skipped.
 */
export function parseMountInfo(text: string): MountPoint[] {
  const mounts: MountPoint[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const fields = line.split(' ');
    // Optional fields end at a lone "-"; the filesystem type, source and super options follow it.
    const sep = fields.indexOf('-');
    if (sep < 6 || fields.length < sep + 4) continue;
    mounts.push({
      id: Number(fields[0]),
      parentId: Number(fields[1]),
      root: unescape(fields[3] ?? ''),
      mountPoint: unescape(fields[4] ?? ''),
      options: (fields[5] ?? '').split(','),
      fsType: fields[sep + 1] ?? '',
      source: unescape(fields[sep + 2] ?? ''),
      superOptions: (fields[sep + 3] ?? '').split(','),
    });
  }
  return mounts;
}
