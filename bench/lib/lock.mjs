// The integration tests' exclusive lock on the shared runtime (same protocol as
// scripts/jest-integration-setup.cjs): a kubelet kills every pod it does not own, so only one
// kubelet-running suite or benchmark may use the shared containerd at a time. mkdir is the atomic
// step; `pid` names the holder; a lock whose holder is dead is taken over.
import fs from 'node:fs';
import path from 'node:path';
import { RUNTIME_DIR, log, sleep } from './env.mjs';

export const LOCK_DIR = path.join(path.dirname(RUNTIME_DIR), `${path.basename(RUNTIME_DIR)}.it-lock`);
let held = false;

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

export const lockHeld = () => held;

export async function acquireLock(timeoutMs = 60 * 60_000) {
  const deadline = Date.now() + timeoutMs;
  let announced = false;
  for (;;) {
    try {
      fs.mkdirSync(LOCK_DIR);
      fs.writeFileSync(path.join(LOCK_DIR, 'pid'), String(process.pid));
      held = true;
      return;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    let holder = NaN;
    try {
      holder = Number(fs.readFileSync(path.join(LOCK_DIR, 'pid'), 'utf8'));
    } catch {
      // being written or removed right now
    }
    if (Number.isInteger(holder) && holder > 0 && !alive(holder)) {
      fs.rmSync(LOCK_DIR, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`pid ${holder} holds ${LOCK_DIR} for too long`);
    if (!announced) {
      log(`waiting for pid ${holder} to finish with the shared runtime (${LOCK_DIR})`);
      announced = true;
    }
    await sleep(500);
  }
}

export function releaseLock() {
  if (!held) return;
  held = false;
  try {
    if (fs.readFileSync(path.join(LOCK_DIR, 'pid'), 'utf8').trim() === String(process.pid)) fs.rmSync(LOCK_DIR, { recursive: true, force: true });
  } catch {
    // already gone
  }
}
