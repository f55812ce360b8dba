const { jestConfig } = require('../../jest.preset.cjs');

// Against the real API server only (controlPlaneEnv() fails the tests without it): no containerd,
// so not the runtime setup nor its lock.
module.exports = { ...jestConfig(__dirname, { integration: true }), globalSetup: undefined, globalTeardown: undefined };
