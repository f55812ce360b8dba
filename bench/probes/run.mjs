// Benchmark: the probe manager with 110 pods, each with an httpGet readiness probe and a liveness
// probe (exec through a fake ExecSync with the ~60 ms latency measured on containerd here), plus
// 10 pods whose targets hang. Measures how regular each worker's period stays (interval between
// two runs of the same worker vs. its period), time to all-ready, CPU and memory.
// Usage: node bench/probes/run.mjs [--pods 110] [--hanging 10] [--period 1] [--seconds 30]
import http from 'node:http';
import { createProbeManager } from '@kubelet-ts/probe-runner';

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, arg, i, all) => (arg.startsWith('--') ? [...acc, [arg.slice(2), all[i + 1]]] : acc), []),
);
const PODS = Number(args.pods ?? 110);
const HANGING = Number(args.hanging ?? 10);
const PERIOD_S = Number(args.period ?? 1);
const SECONDS = Number(args.seconds ?? 30);
const EXEC_LATENCY_MS = 60;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
function listen(handler) {
  return new Promise((resolve) => {
    const server = http.createServer(handler);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

const healthy = await listen((_req, res) => res.end('ok'));
const stuck = [];
const hanging = await listen((_req, res) => stuck.push(res)); // never answers
const port = (s) => s.address().port;

/** Per worker key: the times it ran. */
const runs = new Map();
let execCalls = 0;
const manager = createProbeManager({
  exec: async (containerId) => {
    execCalls++;
    const key = `liveness/${containerId}`;
    (runs.get(key) ?? runs.set(key, []).get(key)).push(performance.now());
    await sleep(containerId.startsWith('hang') ? 60_000 : EXEC_LATENCY_MS);
    return { exitCode: 0, stdout: '', stderr: '' };
  },
});

const total = PODS + HANGING;
const readinessRuns = new Map();
const started = performance.now();
const cpu0 = process.cpuUsage();
for (let i = 0; i < total; i++) {
  const hang = i >= PODS;
  const uid = `uid-${i}`;
  const id = `${hang ? 'hang' : 'ok'}-${i}`;
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `pod-${i}`, namespace: 'bench', uid },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'busybox',
          readinessProbe: {
            httpGet: { path: '/ready', port: port(hang ? hanging : healthy), scheme: 'HTTP' },
            periodSeconds: PERIOD_S,
            timeoutSeconds: 1,
            successThreshold: 1,
            failureThreshold: 3,
          },
          livenessProbe: {
            exec: { command: ['true'] },
            periodSeconds: PERIOD_S,
            timeoutSeconds: 1,
            successThreshold: 1,
            failureThreshold: 3,
          },
        },
      ],
    },
  };
  manager.updatePodStatus(pod, {
    phase: 'Running',
    podIP: '127.0.0.1',
    containerStatuses: [
      {
        name: 'app',
        containerID: `containerd://${id}`,
        state: { running: { startedAt: new Date().toISOString() } },
        ready: false,
        restartCount: 0,
        image: 'busybox',
        imageID: '',
      },
    ],
  });
}
manager.onResultChange((c) => {
  if (c.probeType === 'readiness' && c.result === 'success') readinessRuns.set(c.containerId, performance.now() - started);
});

let allReadyMs;
const deadline = started + SECONDS * 1000;
while (performance.now() < deadline) {
  await sleep(100);
  if (allReadyMs === undefined && readinessRuns.size >= PODS) allReadyMs = performance.now() - started;
}
const cpu = process.cpuUsage(cpu0);
const m = manager.metrics();
await manager.stop();
for (const res of stuck) res.destroy();
healthy.closeAllConnections();
hanging.closeAllConnections();
healthy.close();
hanging.close();

// Interval regularity of the healthy liveness workers (the exec fake records each run).
const deviations = [];
for (const [key, times] of runs) {
  if (key.includes('hang')) continue;
  for (let i = 1; i < times.length; i++) deviations.push(Math.abs(times[i] - times[i - 1] - PERIOD_S * 1000));
}
deviations.sort((a, b) => a - b);
const pct = (p) => deviations[Math.min(deviations.length - 1, Math.floor((p / 100) * deviations.length))] ?? NaN;
const totals = Object.fromEntries(
  ['successful', 'failed', 'unknown'].map((r) => [r, m.probeTotal.filter((s) => s.labels.result === r).reduce((a, s) => a + s.value, 0)]),
);
const result = {
  date: new Date().toISOString(),
  node: process.version,
  pods: PODS,
  hangingPods: HANGING,
  periodSeconds: PERIOD_S,
  seconds: SECONDS,
  probeRuns: totals,
  probesPerSecond: Math.round((totals.successful + totals.failed) / SECONDS),
  allReadyMs: allReadyMs === undefined ? null : Math.round(allReadyMs),
  intervalDeviationMs: { p50: +pct(50).toFixed(1), p99: +pct(99).toFixed(1), max: +pct(100).toFixed(1), samples: deviations.length },
  missedRuns: m.missedRuns,
  cpuPercentOfOneCore: +(((cpu.user + cpu.system) / 1000 / (SECONDS * 1000)) * 100).toFixed(1),
  rssMiB: +(process.memoryUsage().rss / 1024 / 1024).toFixed(1),
  execCalls,
};
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
process.exit(0);
