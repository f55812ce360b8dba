#!/usr/bin/env node
// The long fuzz run: every *.fuzz.test.ts of every workspace, with each property's unit-run case count
// multiplied by --scale (default 20), one package after another. Prints and records the cases run
// per input (scripts/reliability/results/fuzz-latest.json). Unit runs (CI) use scale 1.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: { scale: { type: 'string', default: '20' }, seed: { type: 'string' }, filter: { type: 'string' } },
});
const scale = Number(values.scale);
if (!Number.isFinite(scale) || scale <= 0) throw new Error(`--scale: not a positive number: ${values.scale}`);

function fuzzFiles(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name === 'integration') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) fuzzFiles(path, out);
    else if (name.endsWith('.fuzz.test.ts')) out.push(path);
  }
  return out;
}

const byPackage = new Map();
for (const top of ['packages', 'apps']) {
  for (const name of readdirSync(join(root, top))) {
    const dir = join(root, top, name);
    const files = fuzzFiles(dir).filter((f) => values.filter === undefined || f.includes(values.filter));
    if (files.length > 0) byPackage.set(dir, files);
  }
}

const resultsDir = join(root, 'scripts/reliability/results');
mkdirSync(resultsDir, { recursive: true });
const reportFile = join(resultsDir, 'fuzz-report.jsonl');
rmSync(reportFile, { force: true });
const started = Date.now();
let failed = 0;
for (const [dir, files] of byPackage) {
  process.stdout.write(`fuzz: ${relative(root, dir)} (${files.length} files, scale ${scale})\n`);
  // Each property's cases grow with the scale, and so may its time: the unit runs' 30 s guard grows too.
  const result = spawnSync(
    'npx',
    ['jest', '--runInBand', `--testTimeout=${Math.round(30_000 * Math.max(1, scale))}`, ...files.map((f) => relative(dir, f))],
    {
      cwd: dir,
      stdio: 'inherit',
      env: {
        ...process.env,
        KUBELET_TS_FUZZ_SCALE: String(scale),
        KUBELET_TS_FUZZ_REPORT: reportFile,
        ...(values.seed !== undefined ? { KUBELET_TS_FUZZ_SEED: values.seed } : {}),
      },
    },
  );
  if (result.status !== 0) failed++;
}

const rows = readFileSync(reportFile, 'utf8')
  .split('\n')
  .filter((line) => line !== '')
  .map((line) => JSON.parse(line));
const summary = {
  date: new Date().toISOString(),
  scale,
  seconds: Math.round((Date.now() - started) / 1000),
  failedPackages: failed,
  inputs: rows,
};
writeFileSync(join(resultsDir, 'fuzz-latest.json'), `${JSON.stringify(summary, null, 2)}\n`);
rmSync(reportFile, { force: true });
const width = Math.max(...rows.map((r) => r.input.length), 5);
process.stdout.write(`\n${'input'.padEnd(width)}  cases     seconds\n`);
for (const row of rows) process.stdout.write(`${row.input.padEnd(width)}  ${String(row.cases).padEnd(8)}  ${(row.ms / 1000).toFixed(1)}\n`);
const total = rows.reduce((sum, r) => sum + r.cases, 0);
process.stdout.write(`\n${rows.length} properties, ${total} cases, ${summary.seconds} s, ${failed} package(s) failed\n`);
process.exit(failed === 0 ? 0 : 1);
