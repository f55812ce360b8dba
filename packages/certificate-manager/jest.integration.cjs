// Integration tests against the real kube-apiserver of scripts/control-plane.sh; they need no
// containerd, so not the runtime's global setup and lock.
const { jestConfig } = require('../../jest.preset.cjs');

module.exports = { ...jestConfig(__dirname, { integration: true }), globalSetup: undefined, globalTeardown: undefined };
