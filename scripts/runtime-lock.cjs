// The exclusive lock on the shared runtime test environment, taken by integration runs
// (jest-integration-setup.cjs / -teardown.cjs) and by the benchmarks (bench/lib/lock.mjs): a kubelet
// under test kills every pod it does not own, so only one of them may use the shared containerd at a
// time. mkdir is the atomic step; `pid` names the holder; a lock whose holder is dead is taken over.
const fs = require('node:fs');
const path = require('node:path');

/** `<runtime dir>.it-lock` beside the runtime dir (`/run/kubelet-ts-runtime.it-lock`). */
function runtimeLockDir(runtimeDir) {
  return path.join(path.dirname(runtimeDir), `${path.basename(runtimeDir)}.it-lock`);
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/** Waits until the lock is ours; `onWait(holderPid)` is called once when another live process holds it. */
async function acquireRuntimeLock(lockDir, timeoutMs, onWait = () => {}) {
  const deadline = Date.now() + timeoutMs;
  let announced = false;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      fs.writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
      return;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    let holder = NaN;
    try {
      holder = Number(fs.readFileSync(path.join(lockDir, 'pid'), 'utf8'));
    } catch {
      // being written or removed right now
    }
    if (Number.isInteger(holder) && holder > 0 && !alive(holder)) {
      fs.rmSync(lockDir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`pid ${holder} holds ${lockDir} for too long`);
    if (!announced) {
      onWait(holder);
      announced = true;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Releases the lock if this process holds it. */
function releaseRuntimeLock(lockDir) {
  try {
    if (fs.readFileSync(path.join(lockDir, 'pid'), 'utf8').trim() === String(process.pid))
      fs.rmSync(lockDir, { recursive: true, force: true });
  } catch {
    // already gone
  }
}

module.exports = { runtimeLockDir, acquireRuntimeLock, releaseRuntimeLock };
