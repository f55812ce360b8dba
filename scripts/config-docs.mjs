#!/usr/bin/env node
// Writes docs/configuration.md (every KubeletConfiguration field and flag, upstream default, what
// kubelet-ts does with it) from @kubelet-ts/config's settings registry. Build the package first
// (npx turbo run build --filter=@kubelet-ts/config).
//
//   node scripts/config-docs.mjs           write the file
//   node scripts/config-docs.mjs --check   exit 1 when the committed file is out of date
// packages/config's tests run the same comparison (config-docs.test.ts).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const require = createRequire(path.join(ROOT, 'packages/config/package.json'));
const { renderConfigurationDoc } = require(path.join(ROOT, 'packages/config/dist/index.cjs'));
const file = path.join(ROOT, 'docs/configuration.md');
const text = renderConfigurationDoc();
if (process.argv.includes('--check')) {
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  if (current !== text) {
    console.error('docs/configuration.md is out of date: run `node scripts/config-docs.mjs`');
    process.exit(1);
  }
  console.log('docs/configuration.md is up to date');
} else {
  fs.writeFileSync(file, text);
  console.log(`wrote ${path.relative(ROOT, file)}`);
}
