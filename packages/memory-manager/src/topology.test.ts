import { hugePageResourceName, readMemoryTopology } from './index.js';

function fakeSysfs(files: Record<string, string>) {
  const dirs = new Map<string, Set<string>>();
  for (const path of Object.keys(files)) {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i += 1) {
      const dir = parts.slice(0, i).join('/');
      const set = dirs.get(dir) ?? new Set<string>();
      set.add(parts[i]!);
      dirs.set(dir, set);
    }
  }
  return {
    sysfs: '/sys',
    readFile: async (path: string) => {
      const text = files[path];
      if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
      return text;
    },
    readdir: async (path: string) => {
      const set = dirs.get(path);
      if (set === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
      return [...set];
    },
  };
}

describe('readMemoryTopology', () => {
  it("reads each NUMA node's MemTotal and huge pages as cAdvisor does", async () => {
    const topology = await readMemoryTopology(
      fakeSysfs({
        '/sys/node/online': '0-1\n',
        '/sys/node/node0/meminfo': 'Node 0 MemTotal:       11888376 kB\nNode 0 MemFree:         8551496 kB\n',
        '/sys/node/node0/hugepages/hugepages-2048kB/nr_hugepages': '16\n',
        '/sys/node/node0/hugepages/hugepages-1048576kB/nr_hugepages': '0\n',
        '/sys/node/node1/meminfo': 'Node 1 MemTotal:       1024 kB\n',
      }),
    );
    expect(topology).toEqual({
      nodes: [
        {
          id: 0,
          memoryBytes: 11888376 * 1024,
          hugePages: [
            { pageSizeKiB: 1048576, numPages: 0 },
            { pageSizeKiB: 2048, numPages: 16 },
          ],
        },
        { id: 1, memoryBytes: 1024 * 1024, hugePages: [] },
      ],
    });
  });

  it('makes one node per CPU package, without memory, when sysfs has no NUMA nodes', async () => {
    const topology = await readMemoryTopology(
      fakeSysfs({ '/sys/cpu/cpu0/topology/physical_package_id': '0\n', '/sys/cpu/cpu1/topology/physical_package_id': '0\n' }),
    );
    expect(topology).toEqual({ nodes: [{ id: 0, memoryBytes: 0, hugePages: [] }] });
  });

  it('names huge page sizes as upstream does', () => {
    expect(hugePageResourceName(2048)).toBe('hugepages-2Mi');
    expect(hugePageResourceName(1048576)).toBe('hugepages-1Gi');
    expect(hugePageResourceName(64)).toBe('hugepages-64Ki');
  });
});
