// The integration tests' exclusive lock on the shared runtime (scripts/runtime-lock.cjs, shared with
// the jest integration setup): a kubelet kills every pod it does not own, so only one kubelet-running
// suite or benchmark may use the shared containerd at a time.
import runtimeLock from '../../scripts/runtime-lock.cjs';
import { RUNTIME_DIR, log } from './env.mjs';

export const LOCK_DIR = runtimeLock.runtimeLockDir(RUNTIME_DIR);
let held = false;

export const lockHeld = () => held;

export async function acquireLock(timeoutMs = 60 * 60_000) {
  await runtimeLock.acquireRuntimeLock(LOCK_DIR, timeoutMs, (holder) =>
    log(`waiting for pid ${holder} to finish with the shared runtime (${LOCK_DIR})`),
  );
  held = true;
}

export function releaseLock() {
  if (!held) return;
  held = false;
  runtimeLock.releaseRuntimeLock(LOCK_DIR);
}
