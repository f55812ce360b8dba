const { jestConfig } = require('../../jest.preset.cjs');

// Against the control plane only (no containerd): no runtime lock to wait for.
module.exports = { ...jestConfig(__dirname, { integration: true }), globalSetup: undefined, globalTeardown: undefined };
