/**
 * The few filesystem operations the cgroup code needs. Real cgroupfs makes and removes the
 * control files itself; a fake tree (tests) implements the same contract on a temp dir.
 */
export interface CgroupFs {
  readFile(path: string): Promise<string>;
  writeFile(path: string, data: string): Promise<void>;
  /** mkdir of one level; resolves false when it already existed. */
  mkdir(path: string): Promise<boolean>;
  /** rmdir of one (empty of sub-cgroups) cgroup. */
  rmdir(path: string): Promise<void>;
  /** Names of the sub-directories (child cgroups). */
  subdirs(path: string): Promise<string[]>;
  isDir(path: string): Promise<boolean>;
}
