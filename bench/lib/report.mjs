// Writes a benchmark's results: JSON (everything) and a short markdown summary, side by side
// under bench/results/<benchmark>/<stamp>.{json,md}, plus <benchmark>/latest.{json,md} copies
// that bench/summary.mjs and the docs read.
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, fileStamp } from './env.mjs';

export const RESULTS_DIR = path.join(REPO_ROOT, 'bench/results');

export function writeResults(benchmark, result, markdown, { out } = {}) {
  const dir = path.join(RESULTS_DIR, benchmark);
  fs.mkdirSync(dir, { recursive: true });
  const json = out ? path.resolve(REPO_ROOT, out) : path.join(dir, `${fileStamp(new Date(result.date ?? Date.now()))}.json`);
  const md = json.replace(/\.json$/, '.md');
  fs.mkdirSync(path.dirname(json), { recursive: true });
  fs.writeFileSync(json, `${JSON.stringify(result, null, 2)}\n`);
  fs.writeFileSync(md, `${markdown.trim()}\n`);
  // Development runs (a --out elsewhere) do not replace the latest full run.
  if (!out) {
    // Also the latest on this runtime (bench/run-all.sh runs containerd 2 and 1.6 in turn).
    const major = process.env.KUBELET_TS_CONTAINERD;
    for (const name of ['latest', ...(major ? [`latest-containerd${major}`] : [])]) {
      fs.copyFileSync(json, path.join(dir, `${name}.json`));
      fs.copyFileSync(md, path.join(dir, `${name}.md`));
    }
  }
  return { json: path.relative(REPO_ROOT, json), md: path.relative(REPO_ROOT, md) };
}

/** The latest result of a benchmark, or with `variant` (e.g. containerd2) the latest of that variant. */
export function readLatest(benchmark, variant) {
  const file = path.join(RESULTS_DIR, benchmark, variant ? `latest-${variant}.json` : 'latest.json');
  return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : null;
}

/** A markdown table from a header row and rows of cells. */
export function table(header, rows) {
  const line = (cells) => `| ${cells.map((c) => (c === null || c === undefined ? '–' : String(c))).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
