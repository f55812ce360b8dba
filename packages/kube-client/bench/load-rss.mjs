// What loading @kubelet-ts/kube-client costs in RSS, next to loading @kubernetes/client-node itself.
// Each case runs in a fresh `node --expose-gc` process; RSS is read after two GCs. The cost that
// matters is the one on top of what the kubelet loads in standalone mode anyway (@kubelet-ts/api,
// common, yaml, zod): that is the baseline; a bare process is shown too. Run after `npm run build -w @kubelet-ts/kube-client`:
//   node packages/kube-client/bench/load-rss.mjs [kubeconfig]
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, '..', 'dist', 'index.js');
const kubeconfig = process.argv[2] ?? process.env.KUBELET_TS_KUBECONFIG ?? '';
const runs = Number(process.env.RUNS ?? 5);

const shared = `await import('@kubelet-ts/api'); await import('@kubelet-ts/common'); await import('yaml'); await import('zod');`;
const cases = {
  'bare node': '',
  'baseline: api + common + yaml + zod': shared,
  'baseline + import kube-client': `${shared} await import(${JSON.stringify(dist)});`,
  'baseline + kube-client, loadKubeconfig, createKubeClient, one TLS GET': kubeconfig
    ? `${shared} const m = await import(${JSON.stringify(dist)});
       const connection = await m.loadKubeconfig(${JSON.stringify(kubeconfig)});
       const { noopLogger, systemClock } = await import('@kubelet-ts/common');
       const c = m.createKubeClient({ connection, qps: 50, burst: 100, userAgent: 'bench', logger: noopLogger, clock: systemClock, name: 'bench' });
       await c.get('/version').catch(() => undefined);
       c.closeAllConnections();`
    : undefined,
  "baseline + import('@kubernetes/client-node') (for comparison)": `${shared} await import('@kubernetes/client-node');`,
};

function measure(code) {
  const script = `${code}
    for (let i = 0; i < 2; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 50)); }
    process.stdout.write(String(process.memoryUsage().rss));`;
  const out = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { cwd: here, encoding: 'utf8' });
  return Number(out);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mib = (bytes) => (bytes / 1024 / 1024).toFixed(1);
const base = median(Array.from({ length: runs }, () => measure(shared)));
console.log(`node ${process.version}, median of ${runs} runs, RSS after GC`);
for (const [name, code] of Object.entries(cases)) {
  if (code === undefined) continue;
  const rss = median(Array.from({ length: runs }, () => measure(code)));
  console.log(`${name.padEnd(70)} ${mib(rss).padStart(7)} MiB  (${rss >= base ? '+' : ''}${mib(rss - base)} MiB)`);
}
