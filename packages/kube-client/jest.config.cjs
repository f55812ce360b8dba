const { jestConfig } = require('../../jest.preset.cjs');

// @kubernetes/client-node is ESM-only; jest's CommonJS runtime needs its one module we load compiled too.
module.exports = { ...jestConfig(__dirname), transformIgnorePatterns: ['/node_modules/(?!@kubernetes/client-node/)'] };
