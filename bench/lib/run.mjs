// The frame every runtime benchmark shares: the runtime env, a temp work dir, a LIFO stack of
// cleanups that runs on success, failure and SIGINT/SIGTERM (pods, sandboxes and cgroups must
// not outlive a benchmark), and the built packages it needs.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KUBELET_MAIN, REPO_ROOT, loadRuntimeEnv, log } from './env.mjs';
import { releaseLock } from './lock.mjs';

/** Builds a workspace with tsup when its entry point is missing (never the whole monorepo). */
export function ensureBuilt(workspaceDir, entry) {
  if (fs.existsSync(path.join(REPO_ROOT, workspaceDir, entry))) return;
  log(`building ${workspaceDir} (${entry} is missing)`);
  execFileSync('npx', ['tsup'], { cwd: path.join(REPO_ROOT, workspaceDir), stdio: ['ignore', 'inherit', 'inherit'] });
}

export function createBenchmarkRun(name, { keep = false, needsKubelet = true } = {}) {
  loadRuntimeEnv();
  ensureBuilt('packages/cri-client', 'dist/index.js');
  if (needsKubelet && !fs.existsSync(KUBELET_MAIN)) ensureBuilt('apps/kubelet', 'dist/main.js');
  const baseDir = fs.mkdtempSync(path.join(os.tmpdir(), `kubelet-ts-bench-${name}-`));
  const cleanups = [];
  let cleaning;
  const cleanup = () => {
    cleaning ??= (async () => {
      while (cleanups.length > 0) {
        const { what, fn } = cleanups.pop();
        try {
          await fn();
        } catch (err) {
          log(`cleanup (${what}) failed: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      if (keep) log(`kept ${baseDir}`);
      else fs.rmSync(baseDir, { recursive: true, force: true });
      releaseLock();
    })();
    return cleaning;
  };
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      log(`${signal}: cleaning up`);
      cleanup().finally(() => process.exit(130));
    });
  }
  return {
    baseDir,
    /** Registers a cleanup step; steps run last-registered first. */
    defer(what, fn) {
      cleanups.push({ what, fn });
    },
    cleanup,
    /** Runs the benchmark body, then the cleanups; exits non-zero on failure. */
    async main(body) {
      let failed = false;
      try {
        await body();
      } catch (err) {
        failed = true;
        log(`FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      } finally {
        await cleanup();
      }
      process.exit(failed ? 1 : 0);
    },
  };
}
