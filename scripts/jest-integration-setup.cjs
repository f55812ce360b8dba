// Global setup for integration tests: find the runtime test environment started by
// scripts/test-runtime.sh, or fail loudly with the command that starts it. Never skips.
const fs = require('node:fs');
const path = require('node:path');

module.exports = async function integrationSetup() {
  const dir = process.env.KUBELET_TS_RUNTIME_DIR || '/run/kubelet-ts-runtime';
  const envFile = path.join(dir, 'env');
  if (!process.env.KUBELET_TS_CRI_ENDPOINT && fs.existsSync(envFile)) {
    for (const line of fs.readFileSync(envFile, 'utf8').split('\n')) {
      const match = /^(?:export\s+)?(KUBELET_TS_[A-Z0-9_]+)=(.*)$/.exec(line.trim());
      if (match) process.env[match[1]] = match[2].replace(/^['"]|['"]$/g, '');
    }
  }
  const endpoint = process.env.KUBELET_TS_CRI_ENDPOINT;
  const socket = endpoint ? endpoint.replace(/^unix:\/\//, '') : undefined;
  if (!endpoint || !socket || !fs.existsSync(socket)) {
    throw new Error(
      'The runtime test environment is not running (no containerd socket' +
        (socket ? ` at ${socket}` : '') +
        '). Start it as root with: bash scripts/test-runtime.sh up',
    );
  }
};
