// Summaries of the kubelet's CPU profile (`node --cpu-prof`) and heap snapshots
// (`--heapsnapshot-signal`), small enough to keep in a result JSON and quote in the docs.
import fs from 'node:fs';
import { REPO_ROOT } from './env.mjs';
import { round } from './stats.mjs';

/** Where a frame's code lives: a workspace package, an npm package, a node: module, or a native/VM entry. */
function areaOf(url, functionName) {
  if (!url) return functionName || '(native)';
  if (url.startsWith('node:')) {
    const rest = url.slice(5).split('/');
    return `node:${rest[0] === 'internal' ? rest.slice(0, 2).join('/') : rest[0]}`;
  }
  return (
    /packages\/([^/]+)\//.exec(url)?.[1] ?? /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? /apps\/([^/]+)\//.exec(url)?.[1] ?? url
  );
}

/**
 * Top self-time functions and areas of a .cpuprofile, optionally only samples inside
 * [startUs, endUs] (the profile's monotonic clock, µs: process.hrtime in the same boot). Shares are
 * of the busy samples ((idle) is the event loop waiting); `inclusive` adds the top areas by total
 * time (a sample counts once for every area on its stack).
 */
export function summarizeCpuProfile(file, { startUs = -Infinity, endUs = Infinity, top = 20 } = {}) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const selfByFn = new Map();
  const selfByArea = new Map();
  const inclusiveByArea = new Map();
  const bump = (map, key) => map.set(key, (map.get(key) ?? 0) + 1);
  let t = profile.startTime;
  let total = 0;
  let idle = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (t < startUs || t > endUs) continue;
    const node = nodes.get(profile.samples[i]);
    if (!node) continue;
    total++;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') {
      idle++;
      continue;
    }
    const where = url ? `${url.replace(`file://${REPO_ROOT}/`, '').replace(/^.*node_modules\//, 'node_modules/')}:${lineNumber + 1}` : '';
    bump(selfByFn, `${functionName || '(anonymous)'}${where ? ` ${where}` : ''}`);
    bump(selfByArea, areaOf(url, functionName));
    const seen = new Set();
    for (let id = node.id; id !== undefined; id = parent.get(id)) {
      const frame = nodes.get(id)?.callFrame;
      if (frame === undefined || frame.functionName === '(root)') continue;
      const area = areaOf(frame.url, frame.functionName);
      if (!seen.has(area)) {
        seen.add(area);
        bump(inclusiveByArea, area);
      }
    }
  }
  const busy = Math.max(1, total - idle);
  const intervalUs = (profile.endTime - profile.startTime) / Math.max(1, profile.samples.length);
  const rank = (map, n) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, count]) => ({ name, percentOfBusy: round((count / busy) * 100) }));
  return {
    samples: total,
    sampleIntervalUs: round(intervalUs),
    busyPercentOfSamples: round(((total - idle) / Math.max(1, total)) * 100),
    topSelf: rank(selfByFn, top),
    selfByArea: rank(selfByArea, 15),
    inclusiveByArea: rank(inclusiveByArea, 15),
  };
}

/** Retained-size is expensive to compute; self size per constructor already shows what fills the heap. */
export function summarizeHeapSnapshot(file, top = 25) {
  const snapshot = JSON.parse(fs.readFileSync(file, 'utf8'));
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const stride = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const { nodes, strings } = snapshot;
  const byKey = new Map();
  let totalBytes = 0;
  for (let i = 0; i < nodes.length; i += stride) {
    const type = types[nodes[i + typeAt]];
    const size = nodes[i + sizeAt];
    totalBytes += size;
    const key = type === 'object' || type === 'native' ? strings[nodes[i + nameAt]] : `(${type})`;
    const entry = byKey.get(key) ?? { count: 0, bytes: 0 };
    entry.count++;
    entry.bytes += size;
    byKey.set(key, entry);
  }
  return {
    totalMiB: round(totalBytes / 1024 ** 2, 2),
    nodes: nodes.length / stride,
    topBySelfSize: [...byKey.entries()]
      .sort((a, b) => b[1].bytes - a[1].bytes)
      .slice(0, top)
      .map(([name, e]) => ({ name, count: e.count, MiB: round(e.bytes / 1024 ** 2, 2) })),
  };
}
