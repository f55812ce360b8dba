/** In-memory files for `loadKubeletConfiguration({ readFile, readDir })`, recording every read. */
export interface FakeFileSystem {
  readFile(path: string): Promise<string>;
  readDir(path: string): Promise<string[]>;
  /** Paths read, in order (files and directories). */
  readonly calls: string[];
  /** Adds or replaces a file. */
  set(path: string, content: string): void;
}

/** Files keyed by absolute path; a directory lists the files directly inside it. Missing paths reject with ENOENT. */
export function createFakeFileSystem(files: Record<string, string> = {}): FakeFileSystem {
  const contents = new Map(Object.entries(files));
  const calls: string[] = [];
  const enoent = (path: string): Error => Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
  return {
    calls,
    set(path, content) {
      contents.set(path, content);
    },
    async readFile(path) {
      calls.push(path);
      const content = contents.get(path);
      if (content === undefined) throw enoent(path);
      return content;
    },
    async readDir(path) {
      calls.push(path);
      const prefix = path.endsWith('/') ? path : `${path}/`;
      const names = [...contents.keys()]
        .filter((p) => p.startsWith(prefix) && !p.slice(prefix.length).includes('/'))
        .map((p) => p.slice(prefix.length));
      if (names.length === 0) throw enoent(path);
      return names;
    },
  };
}
