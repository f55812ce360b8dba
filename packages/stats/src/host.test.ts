import { mkdtemp, mkdir, rm, writeFile, link } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHostFs, diskUsage } from './index.js';
import { FakeHostFs } from './testing/index.js';

describe('diskUsage', () => {
  it('counts allocated blocks and inodes under a path, the path itself included, hard links once, not crossing into another filesystem', async () => {
    const fs = new FakeHostFs();
    fs.setFile('/vol/a', 'x', { blocks: 8, ino: 100 });
    fs.setFile('/vol/sub/b', 'y', { blocks: 16 });
    fs.setFile('/vol/link-to-a', 'x', { blocks: 8, ino: 100 });
    fs.setStatfs('/vol/mnt', { blocks: 10 }, { device: 9 });
    fs.setFile('/vol/mnt/big', 'z', { blocks: 1_000_000 });
    // /vol, a, sub, sub/b (the link to a and the other filesystem are not counted); directories are 8 blocks each.
    expect(await diskUsage(fs, '/vol')).toEqual({ usedBytes: (8 + 8 + 8 + 16) * 512, inodesUsed: 4 });
  });

  it('measures a real directory as du does', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'stats-du-'));
    try {
      await mkdir(join(dir, 'sub'));
      await writeFile(join(dir, 'sub', 'file'), Buffer.alloc(64 * 1024, 1));
      await link(join(dir, 'sub', 'file'), join(dir, 'hard'));
      const usage = await diskUsage(createHostFs(), dir);
      expect(usage.inodesUsed).toBe(3);
      expect(usage.usedBytes).toBeGreaterThanOrEqual(64 * 1024);
      expect(usage.usedBytes).toBeLessThan(2 * 64 * 1024);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('FakeHostFs', () => {
  it('answers missing paths with ENOENT and fails the next access on request', async () => {
    const fs = new FakeHostFs().setFile('/a/b', 'hi');
    await expect(fs.readFile('/a/c')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await fs.readdir('/a')).toEqual([{ name: 'b', isFile: true, isDirectory: false }]);
    fs.failNext('/a/b', new Error('EIO'));
    await expect(fs.readFile('/a/b')).rejects.toThrow('EIO');
    expect(await fs.readFile('/a/b')).toBe('hi');
  });
});
