import fs from 'node:fs';
import { startKubelet } from './lib/kubelet.mjs';
import { acquireLock, releaseLock } from './lib/lock.mjs';
import { loadRuntimeEnv, sleep } from './lib/env.mjs';
loadRuntimeEnv();
await acquireLock();
const base = fs.mkdtempSync('/tmp/idlethr-');
const k = await startKubelet({ baseDir: base, nodeName: `idle-${process.pid}`, criCallCounter: false, nodeArgs: process.argv.slice(2) });
const threads = () => Object.fromEntries(fs.readdirSync(`/proc/${k.pid}/task`).map((t) => {
  const st = fs.readFileSync(`/proc/${k.pid}/task/${t}/stat`, 'utf8');
  const name = st.slice(st.indexOf('(') + 1, st.lastIndexOf(')'));
  const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
  return [`${t} ${name}`, Number(f[11]) + Number(f[12])];
}));
await sleep(10000);
const a = threads(); const t0 = Date.now();
await sleep(40000);
const b = threads(); const ms = Date.now() - t0;
let tot = 0;
for (const [k2, v] of Object.entries(b)) { const d = (v - (a[k2] ?? 0)) * 10; tot += d; if (d > 0) console.log(k2.padEnd(30), (d / ms * 100).toFixed(2), '%'); }
console.log('total', (tot / ms * 100).toFixed(2), '%', 'rss', fs.readFileSync(`/proc/${k.pid}/status`,'utf8').match(/VmRSS:\s+(\d+)/)[1]/1024);
await k.stop();
releaseLock();
