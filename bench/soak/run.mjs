// The soak (issue 22): --minutes (30) of churn on one kubelet-ts — --steady-pods (40) pods with readiness
// probes that stay, a pod whose readiness probe fails and recovers every 15 s, a crash-looping pod, and
// a pod created and the oldest churned pod deleted every --churn-every (3) seconds, --churn-pods (20) of
// them alive at a time. Every --sample-seconds (10) it samples the kubelet's RSS, its heap used after a
// full collection, its open fds, its active timers and other resources, and its CRI calls per second.
// Passes when, after --warmup-minutes (5), the last 5 minutes' means are within 5 % of the first 5
// minutes' (a level of small integers within +2) and, once every pod is deleted, mounts, shims, network
// namespaces, NAT rules and cgroups are back at their levels from before.
//
// Usage: node bench/soak/run.mjs [--minutes 30] [--warmup-minutes 5] [--window-minutes 5] [--steady-pods 40]
//        [--churn-pods 20] [--churn-every 3] [--sample-seconds 10] [--tolerance 0.05] [--out <file.json>] [--keep]
// Needs `bash scripts/test-runtime.sh up`; holds the integration lock while it runs.
import fs from 'node:fs';
import path from 'node:path';
import { connectCri, removeCgroupTree, removeSandboxes } from '../lib/cri.mjs';
import { env, log, parseArgs, sleep } from '../lib/env.mjs';
import { startKubelet, writeManifests } from '../lib/kubelet.mjs';
import { nodeLevels } from '../lib/levels.mjs';
import { acquireLock, releaseLock } from '../lib/lock.mjs';
import { machineInfo, machineLine } from '../lib/machine.mjs';
import { cpuMs, rssMiB, waitForQuiet } from '../lib/proc.mjs';
import { podManifest } from '../lib/pods.mjs';
import { table, writeResults } from '../lib/report.mjs';
import { createBenchmarkRun } from '../lib/run.mjs';
import { round } from '../lib/stats.mjs';

const args = parseArgs();
const MINUTES = args.number('minutes', 30);
const WARMUP_MIN = args.number('warmup-minutes', 5);
const WINDOW_MIN = args.number('window-minutes', 5);
const STEADY_PODS = args.number('steady-pods', 40);
const CHURN_PODS = args.number('churn-pods', 20);
const CHURN_EVERY_S = args.number('churn-every', 3);
const SAMPLE_S = args.number('sample-seconds', 10);
const TOLERANCE = args.number('tolerance', 0.05);
if (WARMUP_MIN + 2 * WINDOW_MIN > MINUTES) throw new Error('--minutes must cover the warm-up and two windows');
const run = createBenchmarkRun('soak', { keep: args.flag('keep') });

function busyboxPod(name, spec) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { benchmark: 'soak' } }, spec };
}

/** Ready for 15 s, not ready for 15 s, again and again: its readiness probe fails and recovers. */
function flappingPod(name) {
  return busyboxPod(name, {
    containers: [
      {
        name: 'app',
        image: env('KUBELET_TS_BUSYBOX_IMAGE'),
        command: ['sh', '-c', 'while true; do touch /tmp/ready; sleep 15; rm -f /tmp/ready; sleep 15; done'],
        readinessProbe: { exec: { command: ['test', '-f', '/tmp/ready'] }, periodSeconds: 2, failureThreshold: 1 },
      },
    ],
  });
}

/** Exits after 3 s, forever: restarts and CrashLoopBackOff. */
function crashLoopingPod(name) {
  return busyboxPod(name, {
    restartPolicy: 'Always',
    containers: [{ name: 'app', image: env('KUBELET_TS_BUSYBOX_IMAGE'), command: ['sh', '-c', 'sleep 3; exit 1'] }],
  });
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

await run.main(async () => {
  const machine = machineInfo();
  const c = await connectCri();
  run.defer('close the CRI client', () => c.cri.close());
  const socket = env('KUBELET_TS_CRI_ENDPOINT').replace(/^unix:\/\//, '');
  const nodeName = `bench-soak-${process.pid}`;
  const isOurs = (name) => name.endsWith(`-${nodeName}`);

  await acquireLock();
  log(`holding the integration lock; work dir ${run.baseDir}`);
  const kubeletDir = path.join(run.baseDir, 'kubelet-ts');
  fs.mkdirSync(kubeletDir);
  const kubelet = await startKubelet({ baseDir: kubeletDir, nodeName });
  run.defer('remove the kubelet cgroup root', () => removeCgroupTree(kubelet.cgroupRoot));
  run.defer('remove the kubelet pods', () => removeSandboxes(c, (s) => isOurs(s.metadata.name)));
  run.defer('stop the kubelet', () => kubelet.stop());
  await sleep(2000);
  await waitForQuiet();
  const before = nodeLevels(kubelet, socket);
  log(`levels before: ${JSON.stringify(before)}`);

  const write = (pods) => writeManifests(kubelet, pods, kubeletDir);
  write([
    ...Array.from({ length: STEADY_PODS }, (_, i) => ({
      name: `steady-${i}`,
      manifest: podManifest(`steady-${i}`, { readiness: true, label: 'soak' }),
    })),
    { name: 'flapping', manifest: flappingPod('flapping') },
    { name: 'crashloop', manifest: crashLoopingPod('crashloop') },
  ]);
  const manifests = new Set([...Array.from({ length: STEADY_PODS }, (_, i) => `steady-${i}`), 'flapping', 'crashloop']);
  const churned = [];
  let churnCount = 0;

  const t0 = Date.now();
  const samples = [];
  let lastCri;
  let nextChurn = t0;
  let nextSample = t0;
  while (Date.now() - t0 < MINUTES * 60_000) {
    kubelet.assertRunning('the soak ran');
    const now = Date.now();
    if (now >= nextChurn) {
      nextChurn += CHURN_EVERY_S * 1000;
      const name = `churn-${churnCount++}`;
      write([{ name, manifest: podManifest(name, { readiness: true, label: 'soak' }) }]);
      manifests.add(name);
      churned.push(name);
      if (churned.length > CHURN_PODS) {
        const gone = churned.shift();
        fs.unlinkSync(path.join(kubelet.dirs.manifests, `${gone}.json`));
        manifests.delete(gone);
      }
    }
    if (now >= nextSample) {
      nextSample += SAMPLE_S * 1000;
      const answer = await kubelet.criCounts(5000, { gc: true });
      const calls = Object.values(answer.counts).reduce((a, b) => a + b, 0);
      const criPerSecond = lastCri === undefined ? null : (calls - lastCri.calls) / ((answer.time - lastCri.time) / 1000);
      lastCri = { calls, time: answer.time };
      const pods = await kubelet.pods();
      samples.push({
        minute: round((now - t0) / 60_000, 2),
        rssMiB: round(rssMiB(kubelet.pid), 1),
        heapMiB: round((answer.heapUsedAfterGc ?? 0) / 2 ** 20, 2),
        fds: fs.readdirSync(`/proc/${kubelet.pid}/fd`).length,
        timers: answer.resources?.Timeout ?? 0,
        resources: Object.values(answer.resources ?? {}).reduce((a, b) => a + b, 0),
        criPerSecond: criPerSecond === null ? null : round(criPerSecond, 2),
        cpuMs: cpuMs(kubelet.pid),
        pods: pods.length,
        running: pods.filter((p) => p.status?.phase === 'Running').length,
      });
      const s = samples.at(-1);
      if (samples.length % 6 === 1) log(`minute ${s.minute}: ${JSON.stringify(s)}`);
    }
    await sleep(Math.max(10, Math.min(nextChurn, nextSample) - Date.now()));
  }

  // Teardown: every manifest deleted, every sandbox gone, the node quiet, then the levels again.
  const s0 = performance.now();
  for (const name of manifests) fs.unlinkSync(path.join(kubelet.dirs.manifests, `${name}.json`));
  for (;;) {
    const { items } = await c.cri.runtime.listPodSandbox({});
    if (items.filter((s) => isOurs(s.metadata?.name ?? '')).length === 0) break;
    kubelet.assertRunning('the pods were deleted');
    if (performance.now() - s0 > 300_000) throw new Error('sandboxes left 5 minutes after the pods were deleted');
    await sleep(500);
  }
  await waitForQuiet();
  const after = nodeLevels(kubelet, socket);
  await kubelet.stop();
  releaseLock();

  const inWindow = (from, to) => samples.filter((s) => s.minute >= from && s.minute < to);
  const first = inWindow(WARMUP_MIN, WARMUP_MIN + WINDOW_MIN);
  const last = inWindow(MINUTES - WINDOW_MIN, MINUTES + 1);
  const FIGURES = { rssMiB: 0, heapMiB: 0, fds: 2, timers: 2, resources: 2, criPerSecond: 0 };
  const flat = {};
  for (const [key, slack] of Object.entries(FIGURES)) {
    const a = mean(first.map((s) => s[key]).filter((v) => v !== null));
    const b = mean(last.map((s) => s[key]).filter((v) => v !== null));
    flat[key] = {
      first: round(a, 2),
      last: round(b, 2),
      growth: a === 0 ? null : round(b / a - 1, 4),
      ok: b <= a * (1 + TOLERANCE) || b - a <= slack,
    };
  }
  const RUNTIME_LEVELS = ['mounts', 'shims', 'networkNamespaces', 'natRules', 'cgroups'];
  const levelsBack = Object.fromEntries(RUNTIME_LEVELS.map((k) => [k, after[k] === before[k]]));
  const passed = Object.values(flat).every((f) => f.ok) && Object.values(levelsBack).every(Boolean);
  const cpuPercent = round(((samples.at(-1).cpuMs - samples[0].cpuMs) / ((samples.at(-1).minute - samples[0].minute) * 60_000)) * 100, 2);
  const result = {
    benchmark: 'soak',
    date: new Date().toISOString(),
    command: `node bench/soak/run.mjs ${args.argv.join(' ')}`.trim(),
    kubeletCommand: kubelet.command,
    machine,
    runtime: { containerd: process.env.KUBELET_TS_CONTAINERD_VERSION },
    minutes: MINUTES,
    warmupMinutes: WARMUP_MIN,
    windowMinutes: WINDOW_MIN,
    pods: {
      steady: STEADY_PODS,
      churnAlive: CHURN_PODS,
      churnEverySeconds: CHURN_EVERY_S,
      churned: churnCount,
      flapping: 1,
      crashLooping: 1,
    },
    cpuPercent,
    flat,
    before,
    after,
    levelsBack,
    passed,
    samples,
  };
  const md = [
    `# Soak — ${result.date}`,
    '',
    `\`${result.command}\` — ${MINUTES} min on one kubelet-ts: ${STEADY_PODS} pods with readiness probes, a flapping readiness probe, a crash-looping pod, a pod created (and the oldest of ${CHURN_PODS} deleted) every ${CHURN_EVERY_S} s: ${churnCount} pods churned; containerd ${result.runtime.containerd ?? '?'}. Kubelet CPU ${cpuPercent} % of a core.`,
    '',
    `Machine: ${machineLine(machine)}.`,
    '',
    `Means of minutes ${WARMUP_MIN}–${WARMUP_MIN + WINDOW_MIN} against the last ${WINDOW_MIN} (flat: within ${TOLERANCE * 100} %, a level of small integers within +2):`,
    '',
    table(
      ['', 'first window', 'last window', 'growth', ''],
      Object.entries(flat).map(([k, f]) => [
        k,
        f.first,
        f.last,
        f.growth === null ? '–' : `${round(f.growth * 100, 1)} %`,
        f.ok ? 'flat' : '**grew**',
      ]),
    ),
    '',
    table(
      ['levels', ...RUNTIME_LEVELS],
      [
        ['before', ...RUNTIME_LEVELS.map((k) => before[k])],
        ['after every pod is gone', ...RUNTIME_LEVELS.map((k) => after[k])],
      ],
    ),
    '',
    `Soak: ${passed ? 'passed' : '**failed**'}.`,
  ].join('\n');
  const files = writeResults('soak', result, md, { out: args.option('out') });
  process.stdout.write(`${md}\n\nresults: ${files.json}, ${files.md}\n`);
  if (!passed) throw new Error('the soak failed');
});
