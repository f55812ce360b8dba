// CRI helpers for the benchmarks, through the built @kubelet-ts/cri-client
// (packages/cri-client/dist): connect, list what runs, remove sandboxes, remove a cgroup tree.
import fs from 'node:fs';
import path from 'node:path';
import { env } from './env.mjs';

/** The built client; built on demand by the caller's setup (see ensureBuilt in run.mjs). */
export async function connectCri() {
  const { createCriClient, ignoreNotFound } = await import('@kubelet-ts/cri-client');
  const cri = createCriClient({ endpoint: env('KUBELET_TS_CRI_ENDPOINT') });
  return { cri, ignoreNotFound };
}

/** Runs `fn` over `items` with at most `concurrency` at once. */
export async function mapLimit(items, concurrency, fn) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

/** Stops and removes every sandbox `select` picks (StopPodSandbox runs the CNI DEL); returns how many. */
export async function removeSandboxes({ cri, ignoreNotFound }, select, concurrency = 8) {
  const sandboxes = (await cri.runtime.listPodSandbox({})).items.filter(select);
  await mapLimit(sandboxes, concurrency, async (sandbox) => {
    await ignoreNotFound(cri.runtime.stopPodSandbox({ podSandboxId: sandbox.id }));
    await ignoreNotFound(cri.runtime.removePodSandbox({ podSandboxId: sandbox.id }));
  });
  return sandboxes.length;
}

/** Removes `root` (cgroupfs path) from every cgroup hierarchy, deepest first; busy ones are left to `test-runtime.sh down`. */
export function removeCgroupTree(root) {
  const remove = (dir) => {
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) if (entry.isDirectory()) remove(path.join(dir, entry.name));
    try {
      fs.rmdirSync(dir);
    } catch {
      // still busy
    }
  };
  for (const hierarchy of fs.readdirSync('/sys/fs/cgroup')) remove(path.join('/sys/fs/cgroup', hierarchy, root));
}
