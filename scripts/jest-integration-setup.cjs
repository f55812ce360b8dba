// Global setup for integration tests: find the runtime test environment started by
// scripts/test-runtime.sh, or fail loudly with the command that starts it. Never skips.
//
// It also takes an exclusive lock on the shared runtime for the whole run: a kubelet under test
// kills every pod it does not own (as upstream does with orphans), so two integration runs on
// one containerd would break each other. CI runs them one after another anyway; the lock makes
// parallel local runs wait their turn instead of failing.
const fs = require('node:fs');
const path = require('node:path');
const { acquireRuntimeLock, runtimeLockDir } = require('./runtime-lock.cjs');

function loadEnv(dir) {
  const envFile = path.join(dir, 'env');
  if (process.env.KUBELET_TS_CRI_ENDPOINT || !fs.existsSync(envFile)) return;
  for (const line of fs.readFileSync(envFile, 'utf8').split('\n')) {
    const match = /^(?:export\s+)?(KUBELET_TS_[A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (match) process.env[match[1]] = match[2].replace(/^['"]|['"]$/g, '');
  }
}

module.exports = async function integrationSetup() {
  const dir = process.env.KUBELET_TS_RUNTIME_DIR || '/run/kubelet-ts-runtime';
  loadEnv(dir);
  const endpoint = process.env.KUBELET_TS_CRI_ENDPOINT;
  const socket = endpoint ? endpoint.replace(/^unix:\/\//, '') : undefined;
  if (!endpoint || !socket || !fs.existsSync(socket)) {
    throw new Error(
      'The runtime test environment is not running (no containerd socket' +
        (socket ? ` at ${socket}` : '') +
        '). Start it as root with: bash scripts/test-runtime.sh up',
    );
  }
  const lockDir = runtimeLockDir(dir);
  await acquireRuntimeLock(lockDir, 30 * 60_000, (holder) =>
    process.stderr.write(`integration tests: waiting for the run of pid ${holder} to finish with the shared runtime\n`),
  );
  process.env.KUBELET_TS_IT_LOCK = lockDir;
};
