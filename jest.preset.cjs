// Shared jest settings: TypeScript through @swc/jest, NodeNext-style ".js" specifiers mapped to sources.
const path = require('node:path');

/** @param {string} packageDir @param {{ integration?: boolean }} [options] */
function jestConfig(packageDir, options = {}) {
  const integration = options.integration === true;
  return {
    rootDir: packageDir,
    testEnvironment: 'node',
    roots: integration
      ? ['<rootDir>/test/integration']
      : ['<rootDir>/src', '<rootDir>/test'].filter((r) => require('node:fs').existsSync(r.replace('<rootDir>', packageDir))),
    testMatch: integration ? ['**/*.test.ts'] : ['**/*.test.ts', '!**/test/integration/**'],
    transform: {
      '^.+\\.(t|j)sx?$': [
        require.resolve('@swc/jest'),
        {
          jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
          module: { type: 'commonjs' },
        },
      ],
    },
    moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
    // Generous: a timeout here only guards against hangs (speed is measured in bench/, never asserted);
    // some unit suites mount real tmpfs/bind mounts and must survive a loaded machine.
    testTimeout: integration ? 120_000 : 30_000,
    globalSetup: integration ? path.join(__dirname, 'scripts/jest-integration-setup.cjs') : undefined,
    globalTeardown: integration ? path.join(__dirname, 'scripts/jest-integration-teardown.cjs') : undefined,
    reporters: ['default', path.join(__dirname, 'scripts/jest-summary-reporter.cjs')],
  };
}

module.exports = { jestConfig };
