const { jestConfig } = require('../../jest.preset.cjs');

// The suites about the kubelet as a cluster member: what they test does not depend on the container
// runtime (the standalone suites cover that on every runtime), so CI runs them once, in the pass on
// containerd 2, and leaves them out of the other (scripts/test-all.sh sets KUBELET_TS_IT_RUNTIME_ONLY).
const CLUSTER_SUITES = [
  'api-mode',
  'api-objects',
  'ephemeral',
  'kubelet-server',
  'node-parity',
  'node-registration-settings',
  'preemption',
  'token-rotation',
];

// The fault scenarios' CI subset runs once too, to keep CI short (`npm run faults` runs the full set on
// the runtime that is up; the resilience suite restarts each runtime under pods in both passes).
const ONCE_SUITES = [...CLUSTER_SUITES, 'faults', 'csi-faults'];

const config = jestConfig(__dirname, { integration: true });
if (process.env.KUBELET_TS_IT_RUNTIME_ONLY === '1') {
  config.testPathIgnorePatterns = ['/node_modules/', ...ONCE_SUITES.map((name) => `/test/integration/${name}\\.test\\.ts$`)];
}
module.exports = config;
