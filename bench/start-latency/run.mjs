// Benchmark 1, start latency: static pods started one after another (the previous ones keep
// running), each from the moment its manifest is renamed into the kubelet's static pod dir
//   - until its container runs, seen through CRI (ListContainers polled every --poll-ms), and
//   - until the read-only port's /pods reports it Ready (no readiness probe: Ready = running).
// The same number of pods through the direct-CRI baseline (bench/lib/baseline.mjs: the same calls,
// sequentially, no kubelet), half before and half after the kubelet phase, timed from the first call
// until the container is seen running the same way. Reports p50/p99 of each and kubelet ÷ baseline.
//
// Usage: node bench/start-latency/run.mjs [--pods 30] [--poll-ms 20] [--settle 2] [--v 2] [--cpu-prof] [--out <file.json>] [--keep]
// Needs `bash scripts/test-runtime.sh up`; holds the integration lock while it measures.
import fs from 'node:fs';
import path from 'node:path';
import { baselinePod, shapeDiff, startPodDirect } from '../lib/baseline.mjs';
import { connectCri, removeCgroupTree, removeSandboxes } from '../lib/cri.mjs';
import { env, log, parseArgs, sleep } from '../lib/env.mjs';
import { isReady, startKubelet, writeManifests } from '../lib/kubelet.mjs';
import { acquireLock, releaseLock } from '../lib/lock.mjs';
import { machineInfo, machineLine } from '../lib/machine.mjs';
import { loadAverage } from '../lib/proc.mjs';
import { summarizeCpuProfile } from '../lib/profile.mjs';
import { podManifest, podNames } from '../lib/pods.mjs';
import { table, writeResults } from '../lib/report.mjs';
import { createBenchmarkRun } from '../lib/run.mjs';
import { ratio, round, summarize } from '../lib/stats.mjs';

const args = parseArgs();
const PODS = args.number('pods', 30);
const POLL_MS = args.number('poll-ms', 20);
const SETTLE_S = args.number('settle', 2);
const POD_TIMEOUT_MS = args.number('pod-timeout', 60) * 1000;
const CPU_PROF = args.flag('cpu-prof');
const run = createBenchmarkRun('start-latency', { keep: args.flag('keep') });

/** Polls until the pod's container is running in containerd; resolves with performance.now() of the sighting. */
async function waitContainerRunning(cri, podName, deadline, onTick) {
  for (;;) {
    const { containers } = await cri.runtime.listContainers({
      filter: { state: { state: 'CONTAINER_RUNNING' }, labelSelector: { 'io.kubernetes.pod.name': podName } },
    });
    if (containers.length > 0) return performance.now();
    await onTick?.();
    if (performance.now() > deadline) throw new Error(`${podName}: no running container after ${POD_TIMEOUT_MS} ms`);
    await sleep(POLL_MS);
  }
}

await run.main(async () => {
  const machine = machineInfo();
  const image = env('KUBELET_TS_HTTP_IMAGE');
  const c = await connectCri();
  run.defer('close the CRI client', () => c.cri.close());
  const names = podNames(PODS, 'start');

  // ---- the direct-CRI baseline, half before and half after the kubelet phase, so that a machine whose
  // load drifts (shared by other builds) weighs on both sides alike. No kubelet runs meanwhile, so
  // nothing kills these pods; each half is removed before the next phase.
  const baselineRoot = `${env('KUBELET_TS_CGROUP_ROOT')}/bench-start-baseline-${process.pid}`;
  const baselineLabel = `start-baseline-${process.pid}`;
  const baselineDir = path.join(run.baseDir, 'baseline');
  run.defer('remove the baseline cgroup root', () => removeCgroupTree(baselineRoot));
  run.defer('remove the baseline pods', () => removeSandboxes(c, (s) => s.labels?.benchmark === baselineLabel));
  const baselineRuns = [];
  let firstBaselinePod;
  const runBaseline = async (half) => {
    for (const name of half) {
      const pod = baselinePod({ name: `${name}-baseline`, dir: baselineDir, cgroupRoot: baselineRoot, label: baselineLabel });
      firstBaselinePod ??= pod;
      const t0 = performance.now();
      const { steps } = await startPodDirect(c, pod, image);
      const running = await waitContainerRunning(c.cri, pod.name, t0 + POD_TIMEOUT_MS);
      baselineRuns.push({
        pod: name,
        runningMs: round(running - t0),
        loadAverage1m: loadAverage()[0],
        steps: Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, round(v)])),
      });
      log(`baseline ${name}: running ${round(running - t0)} ms`);
    }
    const removed = await removeSandboxes(c, (s) => s.labels?.benchmark === baselineLabel);
    log(`baseline: ${removed} sandboxes removed`);
  };

  // ---- the kubelet
  await acquireLock();
  log(`holding the integration lock; work dir ${run.baseDir}`);
  const loadBeforeBaseline = loadAverage();
  await runBaseline(names.filter((_, i) => i % 2 === 0));
  const nodeName = `bench-start-${process.pid}`;
  const kubeletDir = path.join(run.baseDir, 'kubelet');
  fs.mkdirSync(kubeletDir);
  const kubelet = await startKubelet({ baseDir: kubeletDir, nodeName, cpuProf: CPU_PROF, verbosity: args.number('v', 2) });
  run.defer('remove the kubelet cgroup root', () => removeCgroupTree(kubelet.cgroupRoot));
  run.defer('remove the kubelet pods', () => removeSandboxes(c, (s) => s.metadata.name.endsWith(`-${nodeName}`)));
  run.defer('stop the kubelet', () => kubelet.stop());
  // The first moments after start (sources' first listing, probe start-up jitter) are not the steady path.
  await sleep(SETTLE_S * 1000);
  const loadBeforeKubelet = loadAverage();
  const kubeletRuns = [];
  for (const name of names) {
    const fullName = `${name}-${nodeName}`;
    const t0 = writeManifests(kubelet, [{ name, manifest: podManifest(name) }], run.baseDir);
    const deadline = t0 + POD_TIMEOUT_MS;
    const running = await waitContainerRunning(c.cri, fullName, deadline, () => kubelet.assertRunning(`starting ${name}`));
    let ready;
    for (;;) {
      const pod = (await kubelet.pods()).find((p) => p.metadata.name === fullName);
      if (pod !== undefined && isReady(pod)) {
        ready = performance.now();
        break;
      }
      if (performance.now() > deadline) throw new Error(`${fullName}: not Ready after ${POD_TIMEOUT_MS} ms`);
      await sleep(POLL_MS);
    }
    // writtenAt (epoch ms) lines a run up with the kubelet log of a `--v 4 --keep` run.
    kubeletRuns.push({
      pod: name,
      writtenAt: Math.round(Date.now() - (performance.now() - t0)),
      runningMs: round(running - t0),
      readyMs: round(ready - t0),
      loadAverage1m: loadAverage()[0],
    });
    log(`kubelet ${name}: running ${round(running - t0)} ms, ready ${round(ready - t0)} ms`);
  }
  const kubeletCalls = await kubelet.criCounts();
  await kubelet.stop();
  const profile = CPU_PROF ? summarizeProfileIn(kubelet.dirs.prof) : null;
  const removedKubelet = await removeSandboxes(c, (s) => s.metadata.name.endsWith(`-${nodeName}`));
  log(`kubelet stopped, ${removedKubelet} sandboxes removed`);
  const loadAfterKubelet = loadAverage();
  await runBaseline(names.filter((_, i) => i % 2 === 1));

  releaseLock();

  const kubeletRunning = summarize(kubeletRuns.map((r) => r.runningMs));
  const kubeletReady = summarize(kubeletRuns.map((r) => r.readyMs));
  const baselineRunning = summarize(baselineRuns.map((r) => r.runningMs));
  const stepNames = Object.keys(baselineRuns[0]?.steps ?? {});
  const baselineSteps = Object.fromEntries(stepNames.map((s) => [s, summarize(baselineRuns.map((r) => r.steps[s]))]));
  const ratios = {
    runningP50: ratio(kubeletRunning.p50, baselineRunning.p50),
    runningP99: ratio(kubeletRunning.p99, baselineRunning.p99),
    readyP50: ratio(kubeletReady.p50, baselineRunning.p50),
    readyP99: ratio(kubeletReady.p99, baselineRunning.p99),
  };
  const result = {
    benchmark: 'start-latency',
    date: new Date().toISOString(),
    command: `node bench/start-latency/run.mjs ${args.argv.join(' ')}`.trim(),
    kubeletCommand: kubelet.command,
    machine,
    loadAverage: {
      beforeBaseline: loadBeforeBaseline,
      beforeKubelet: loadBeforeKubelet,
      afterKubelet: loadAfterKubelet,
      atEnd: loadAverage(),
    },
    pods: PODS,
    pollMs: POLL_MS,
    pod: 'one http-echo container (image present), no probes; pods started one after another, earlier ones keep running',
    kubelet: { runningMs: kubeletRunning, readyMs: kubeletReady, criCalls: kubeletCalls.counts, runs: kubeletRuns },
    baseline: {
      calls:
        'ListPodSandbox, ListContainers, RunPodSandbox, PodSandboxStatus, ImageStatus ×2, CreateContainer, StartContainer (sequential); even-numbered pods before the kubelet phase, odd ones after',
      runningMs: baselineRunning,
      stepsMs: baselineSteps,
      runs: baselineRuns,
      shape: {
        runPodSandbox: shapeDiff(kubeletCalls.samples['/runtime.v1.RuntimeService/RunPodSandbox']?.config, firstBaselinePod?.sandboxConfig),
        createContainer: shapeDiff(
          kubeletCalls.samples['/runtime.v1.RuntimeService/CreateContainer']?.config,
          firstBaselinePod?.containerConfig('', '', ''),
        ),
      },
    },
    ratios,
    target: { ratioAtMost: 1.3, met: ratios.runningP50 !== null && ratios.runningP50 <= 1.3 && ratios.runningP99 <= 1.3 },
    cpuProfile: profile,
  };
  const md = [
    `# Start latency — ${result.date}`,
    '',
    `\`${result.command}\` — ${PODS} pods one after another; ${result.pod}.`,
    '',
    `Machine: ${machineLine(machine)}; load average before the first baseline half ${loadBeforeBaseline.join(' / ')}, before the kubelet phase ${loadBeforeKubelet.join(' / ')}, after it ${loadAfterKubelet.join(' / ')}.`,
    '',
    table(
      ['', 'p50 ms', 'p99 ms', 'min', 'max'],
      [
        ['kubelet: manifest → container running (CRI)', kubeletRunning.p50, kubeletRunning.p99, kubeletRunning.min, kubeletRunning.max],
        ['kubelet: manifest → Ready in /pods', kubeletReady.p50, kubeletReady.p99, kubeletReady.min, kubeletReady.max],
        ['direct CRI baseline: first call → running', baselineRunning.p50, baselineRunning.p99, baselineRunning.min, baselineRunning.max],
        ['kubelet ÷ baseline (running)', ratios.runningP50, ratios.runningP99, null, null],
        ['kubelet ÷ baseline (Ready)', ratios.readyP50, ratios.readyP99, null, null],
      ],
    ),
    '',
    `Baseline steps (p50 ms): ${stepNames.map((s) => `${s} ${baselineSteps[s].p50}`).join(', ')}.`,
    '',
    `Target (running, p50 and p99 ≤ 1.3 × baseline): ${result.target.met ? 'met' : 'not met'}.`,
  ].join('\n');
  const files = writeResults('start-latency', result, md, { out: args.option('out') });
  process.stdout.write(`${md}\n\nresults: ${files.json}, ${files.md}\n`);
});

function summarizeProfileIn(dir) {
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  return file ? summarizeCpuProfile(path.join(dir, file)) : { error: 'no .cpuprofile written' };
}
