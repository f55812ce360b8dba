// Integration tests against the real kube-apiserver of scripts/control-plane.sh (found through
// test-support's controlPlaneEnv()); they need no containerd, so not the runtime's global setup and lock.
// @kubernetes/client-node is ESM-only; jest's CommonJS runtime needs its one module we load compiled too.
const { jestConfig } = require('../../jest.preset.cjs');

module.exports = {
  ...jestConfig(__dirname, { integration: true }),
  globalSetup: undefined,
  globalTeardown: undefined,
  transformIgnorePatterns: ['/node_modules/(?!@kubernetes/client-node/)'],
};
