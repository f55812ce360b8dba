import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setupDataDirs } from './data-dirs.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'kts-datadirs-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('setupDataDirs', () => {
  it("makes upstream's root dir layout with its modes", async () => {
    await setupDataDirs(join(root, 'kubelet'), join(root, 'pods-logs'));
    for (const dir of ['pods', 'plugins', 'plugins_registry', 'pod-resources']) {
      expect(statSync(join(root, 'kubelet', dir)).mode & 0o777).toBe(0o750);
    }
  });
});
