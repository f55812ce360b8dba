import { lstat, readdir, readFile, readlink, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileProjection } from './atomic-writer.js';
import { validatePayloadPath, writeAtomic } from './atomic-writer.js';
import { makeTempDir } from './internal/test-dirs.js';
import type { TempDir } from './internal/test-dirs.js';

const payload = (entries: Record<string, string>, mode?: number): Map<string, FileProjection> =>
  new Map(Object.entries(entries).map(([k, v]) => [k, { data: Buffer.from(v), ...(mode !== undefined ? { mode } : {}) }]));

describe('writeAtomic', () => {
  let tmp: TempDir;
  beforeEach(async () => {
    tmp = await makeTempDir('atomic-');
  });
  afterEach(async () => {
    await tmp.cleanup();
  });

  it('writes a timestamped generation, a ..data link and user-visible links through it', async () => {
    const dir = join(tmp.path, 'vol');
    expect(await writeAtomic(dir, payload({ a: '1', 'sub/b': '2' }, 0o600), { nowMs: Date.UTC(2026, 10, 29, 12, 0, 5) })).toBe(true);
    const data = await readlink(join(dir, '..data'));
    expect(data).toMatch(/^\.\.2026_11_29_12_00_05\.[0-9a-f]+$/);
    expect(await readlink(join(dir, 'a'))).toBe('..data/a');
    expect(await readlink(join(dir, 'sub'))).toBe('..data/sub');
    expect(await readFile(join(dir, 'sub/b'), 'utf8')).toBe('2');
    expect((await stat(join(dir, 'a'))).mode & 0o777).toBe(0o600);
  });

  it('swaps generations: new content visible, removed keys gone, old generation deleted; unchanged payload writes nothing', async () => {
    const dir = join(tmp.path, 'vol');
    await writeAtomic(dir, payload({ a: '1', b: '2' }), { nowMs: 1000 });
    const first = await readlink(join(dir, '..data'));
    expect(await writeAtomic(dir, payload({ a: '1', b: '2' }), { nowMs: 2000 })).toBe(false);
    expect(await readlink(join(dir, '..data'))).toBe(first);

    expect(await writeAtomic(dir, payload({ a: 'new', c: '3' }), { nowMs: 3000 })).toBe(true);
    expect(await readFile(join(dir, 'a'), 'utf8')).toBe('new');
    expect(await readFile(join(dir, 'c'), 'utf8')).toBe('3');
    await expect(lstat(join(dir, 'b'))).rejects.toMatchObject({ code: 'ENOENT' });
    const entries = (await readdir(dir)).sort();
    expect(entries.filter((e) => e.startsWith('..') && e !== '..data')).toHaveLength(1);
    expect(entries).not.toContain(first);
  });

  it('a concurrent reader never sees a mix of old and new files', async () => {
    const dir = join(tmp.path, 'vol');
    await writeAtomic(dir, payload({ a: 'v0', b: 'v0' }), { nowMs: 0 });
    let stop = false;
    const seen: string[] = [];
    const mixes: string[] = [];
    const reader = (async () => {
      while (!stop) {
        // Resolve ..data once, as a reader of a consistent snapshot does, then read both files.
        const gen = await readlink(join(dir, '..data'));
        try {
          const [a, b] = await Promise.all([readFile(join(dir, gen, 'a'), 'utf8'), readFile(join(dir, gen, 'b'), 'utf8')]);
          seen.push(a);
          if (a !== b) mixes.push(`${a}/${b}`);
        } catch (err) {
          // The writer removed that old generation after the swap: read again.
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        }
        // Through the user-visible links each file is always complete and present.
        const viaLink = await readFile(join(dir, 'a'), 'utf8');
        expect(viaLink).toMatch(/^v\d+$/);
      }
    })();
    for (let i = 1; i <= 40; i++) await writeAtomic(dir, payload({ a: `v${i}`, b: `v${i}` }), { nowMs: i * 1000 });
    stop = true;
    await reader;
    expect(mixes).toEqual([]);
    expect(new Set(seen).size).toBeGreaterThan(1);
    expect(await readFile(join(dir, 'a'), 'utf8')).toBe('v40');
  });

  it.each([
    ['/etc/passwd', 'must be relative path'],
    ['../x', "must not contain '..'"],
    ['a/../../x', "must not contain '..'"],
    ['..data', "must not start with '..'"],
    ['', 'must not be empty'],
  ])('refuses the payload path %j', async (path, reason) => {
    expect(() => validatePayloadPath(path)).toThrow(reason);
    await expect(writeAtomic(join(tmp.path, 'vol'), payload({ [path]: 'x' }), { nowMs: 0 })).rejects.toMatchObject({ code: 'PATH_ESCAPE' });
  });
});
