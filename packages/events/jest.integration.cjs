const { jestConfig } = require('../../jest.preset.cjs');

// Against the control plane only (the test reads its env file and fails without it): no container
// runtime, so neither the runtime's global setup nor its lock.
module.exports = { ...jestConfig(__dirname, { integration: true }), globalSetup: undefined, globalTeardown: undefined };
