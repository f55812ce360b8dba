// Releases the shared-runtime lock taken by jest-integration-setup.cjs.
const { releaseRuntimeLock } = require('./runtime-lock.cjs');

module.exports = async function integrationTeardown() {
  const lockDir = process.env.KUBELET_TS_IT_LOCK;
  if (lockDir) releaseRuntimeLock(lockDir);
};
