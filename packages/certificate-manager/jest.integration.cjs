const { jestConfig } = require('../../jest.preset.cjs');

// Against the control plane only (the test reads its env file and fails without it): no container
// runtime, so neither the runtime's global setup nor its lock. kube-client loads one module of the
// ESM-only @kubernetes/client-node, which jest's CommonJS runtime must compile (as kube-client's own config).
const base = jestConfig(__dirname, { integration: true });
const swc = Object.values(base.transform)[0];

module.exports = {
  ...base,
  // kube-client's CommonJS build keeps its dynamic import(): compiled, it becomes a require jest can run.
  transform: { ...base.transform, '/kube-client/dist/.+\\.cjs$': swc },
  globalSetup: undefined,
  globalTeardown: undefined,
  transformIgnorePatterns: ['/node_modules/(?!@kubernetes/client-node/)'],
};
