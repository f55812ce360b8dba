// Test helpers (not exported): temp dirs that are always cleaned, mounts included.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { parseMountInfo } from '@kubelet-ts/common';
import { createSystemMounter } from '../mounter.js';

export interface TempDir {
  path: string;
  /** Unmounts everything below the dir (deepest first, repeatedly for stacked mounts), then removes it. */
  cleanup(): Promise<void>;
}

export async function makeTempDir(prefix = 'vm-test-'): Promise<TempDir> {
  const path = await mkdtemp(join(os.tmpdir(), prefix));
  const mounter = createSystemMounter();
  return {
    path,
    async cleanup() {
      for (let round = 0; round < 10; round++) {
        const mounts = parseMountInfo(await readFile('/proc/self/mountinfo', 'utf8'))
          .map((m) => m.mountPoint)
          .filter((p) => p.startsWith(`${path}/`))
          .sort((a, b) => b.length - a.length);
        if (mounts.length === 0) break;
        for (const m of mounts) await mounter.unmount(m).catch(() => undefined);
      }
      await rm(path, { recursive: true, force: true });
    },
  };
}

/** Mount points below `dir` right now, from /proc/self/mountinfo. */
export async function mountsUnder(
  dir: string,
): Promise<Array<{ mountPoint: string; fsType: string; superOptions: string[]; options: string[] }>> {
  return parseMountInfo(await readFile('/proc/self/mountinfo', 'utf8')).filter(
    (m) => m.mountPoint === dir || m.mountPoint.startsWith(`${dir}/`),
  );
}

/** Lets real I/O and promise callbacks run (no timers involved). */
export async function settle(rounds = 30): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Polls real state (file system work runs on libuv's pool, not on the fake clock) with a real deadline. */
export async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    if (await check()) return;
    await settle(2);
  }
  throw new Error(`timed out waiting for ${what}`);
}
