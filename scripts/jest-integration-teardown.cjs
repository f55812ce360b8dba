// Releases the shared-runtime lock taken by jest-integration-setup.cjs.
const fs = require('node:fs');
const path = require('node:path');

module.exports = async function integrationTeardown() {
  const lockDir = process.env.KUBELET_TS_IT_LOCK;
  if (!lockDir) return;
  try {
    if (fs.readFileSync(path.join(lockDir, 'pid'), 'utf8') === String(process.pid)) fs.rmSync(lockDir, { recursive: true, force: true });
  } catch {
    // already gone
  }
};
