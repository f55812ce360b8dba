import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readHugePages } from './host.js';

describe('readHugePages', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'hugepages-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('names each page size as upstream (BinarySI) and counts the reserved bytes', async () => {
    const dir = path.join(root, 'sys/kernel/mm/hugepages');
    for (const [entry, pages] of [
      ['hugepages-2048kB', '3\n'],
      ['hugepages-1048576kB', '0\n'],
    ] as const) {
      await mkdir(path.join(dir, entry), { recursive: true });
      await writeFile(path.join(dir, entry, 'nr_hugepages'), pages);
    }
    expect(await readHugePages(root)).toEqual({ 'hugepages-1Gi': '0', 'hugepages-2Mi': String(3 * 2 * 1024 * 1024) });
  });

  it('reports none when the machine has no huge page directory', async () => {
    expect(await readHugePages(root)).toEqual({});
  });
});
