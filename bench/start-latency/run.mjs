// Benchmark 1, start latency: static pods started one after another (the previous ones keep
// running), each from the moment its manifest is renamed into the kubelet's static pod dir
//   - until its container runs, seen through CRI (ListContainers polled every --poll-ms), and
//   - until the read-only port's /pods reports it Ready (no readiness probe: Ready = running).
// First kubelet-ts, then the upstream kubelet (same flags and config file, bench/lib/kubelet.mjs).
// The same number of pods through the direct-CRI baseline (bench/lib/baseline.mjs: the same calls,
// sequentially, no kubelet), half before and half after the kubelets, timed from the first call
// until the container is seen running the same way (the same poll, started with the first call).
// Reports p50/p99 of each, kubelet-ts ÷ upstream and each kubelet ÷ baseline.
//
// Usage: node bench/start-latency/run.mjs [--pods 30] [--kubelets kubelet-ts,upstream] [--poll-ms 20] [--settle 2] [--v 2] [--cpu-prof] [--out <file.json>] [--keep]
// Needs `bash scripts/test-runtime.sh up`; holds the integration lock while it measures.
import fs from 'node:fs';
import path from 'node:path';
import { baselinePod, shapeDiff, startPodDirect } from '../lib/baseline.mjs';
import { connectCri, removeCgroupTree, removeSandboxes } from '../lib/cri.mjs';
import { env, log, parseArgs, sleep } from '../lib/env.mjs';
import { KUBELETS, isReady, startKubelet, writeManifests } from '../lib/kubelet.mjs';
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
// --kubelets kubelet-ts,upstream (default both, in that order).
// Extra KubeletConfiguration lines for both kubelets (e.g. 'featureGates: {EventedPLEG: true}').
const CONFIG_LINES = args.all('config-line');
const KUBELETS_TO_RUN = args.option('kubelets', KUBELETS.join(',')).split(',');
for (const k of KUBELETS_TO_RUN) if (!KUBELETS.includes(k)) throw new Error(`--kubelets: unknown kubelet ${k} (${KUBELETS.join(', ')})`);
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
      // Observed as the kubelets' pods are: polled from the first moment, beside the calls (a poll started
      // after StartContainer returned would see the container at once, sparing the baseline the
      // sighting delay of up to --poll-ms that the kubelets' pods pay).
      const t0 = performance.now();
      const runningSeen = waitContainerRunning(c.cri, pod.name, t0 + POD_TIMEOUT_MS);
      runningSeen.catch(() => {}); // handled where awaited; a failed start must not leave it unhandled meanwhile
      const { steps } = await startPodDirect(c, pod, image);
      const running = await runningSeen;
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

  // ---- each kubelet in turn (one at a time: a kubelet kills the pods it does not own)
  const measureKubelet = async (implementation) => {
    const nodeName = `bench-start-${implementation === 'upstream' ? 'up' : 'ts'}-${process.pid}`;
    const kubeletDir = path.join(run.baseDir, implementation);
    fs.mkdirSync(kubeletDir);
    const kubelet = await startKubelet({
      baseDir: kubeletDir,
      nodeName,
      implementation,
      cpuProf: CPU_PROF,
      verbosity: args.number('v', 2),
      configLines: CONFIG_LINES,
    });
    run.defer(`remove the ${implementation} cgroup root`, () => removeCgroupTree(kubelet.cgroupRoot));
    run.defer(`remove the ${implementation} pods`, () => removeSandboxes(c, (s) => s.metadata.name.endsWith(`-${nodeName}`)));
    run.defer(`stop the ${implementation} kubelet`, () => kubelet.stop());
    // The first moments after start (sources' first listing, probe start-up jitter) are not the steady path.
    await sleep(SETTLE_S * 1000);
    const loadBefore = loadAverage();
    const runs = [];
    for (const name of names) {
      const fullName = `${name}-${nodeName}`;
      const t0 = writeManifests(kubelet, [{ name, manifest: podManifest(name) }], kubeletDir);
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
      runs.push({
        pod: name,
        writtenAt: Math.round(Date.now() - (performance.now() - t0)),
        runningMs: round(running - t0),
        readyMs: round(ready - t0),
        loadAverage1m: loadAverage()[0],
      });
      log(`${implementation} ${name}: running ${round(running - t0)} ms, ready ${round(ready - t0)} ms`);
    }
    // The upstream kubelet's calls are counted by containerd, with this runner's polling among them: not reported.
    const calls = implementation === 'kubelet-ts' ? await kubelet.criCounts() : undefined;
    await kubelet.stop();
    const profile = CPU_PROF && implementation === 'kubelet-ts' ? summarizeProfileIn(kubelet.dirs.prof) : null;
    const removed = await removeSandboxes(c, (s) => s.metadata.name.endsWith(`-${nodeName}`));
    log(`${implementation} stopped, ${removed} sandboxes removed`);
    return {
      command: kubelet.command,
      loadBefore,
      runningMs: summarize(runs.map((r) => r.runningMs)),
      readyMs: summarize(runs.map((r) => r.readyMs)),
      ...(calls ? { criCalls: calls.counts, samples: calls.samples } : {}),
      runs,
      profile,
    };
  };

  await acquireLock();
  log(`holding the integration lock; work dir ${run.baseDir}`);
  const loadBeforeBaseline = loadAverage();
  await runBaseline(names.filter((_, i) => i % 2 === 0));
  const measured = {};
  for (const implementation of KUBELETS_TO_RUN) measured[implementation] = await measureKubelet(implementation);
  const loadAfterKubelets = loadAverage();
  await runBaseline(names.filter((_, i) => i % 2 === 1));

  releaseLock();

  const ts = measured['kubelet-ts'];
  const up = measured.upstream;
  const baselineRunning = summarize(baselineRuns.map((r) => r.runningMs));
  const stepNames = Object.keys(baselineRuns[0]?.steps ?? {});
  const baselineSteps = Object.fromEntries(stepNames.map((s) => [s, summarize(baselineRuns.map((r) => r.steps[s]))]));
  const ratios = {
    runningP50: ratio(ts?.runningMs.p50, baselineRunning.p50),
    runningP99: ratio(ts?.runningMs.p99, baselineRunning.p99),
    readyP50: ratio(ts?.readyMs.p50, baselineRunning.p50),
    readyP99: ratio(ts?.readyMs.p99, baselineRunning.p99),
    vsUpstream: {
      runningP50: ratio(ts?.runningMs.p50, up?.runningMs.p50),
      runningP99: ratio(ts?.runningMs.p99, up?.runningMs.p99),
      readyP50: ratio(ts?.readyMs.p50, up?.readyMs.p50),
      readyP99: ratio(ts?.readyMs.p99, up?.readyMs.p99),
    },
    upstreamVsBaseline: {
      runningP50: ratio(up?.runningMs.p50, baselineRunning.p50),
      runningP99: ratio(up?.runningMs.p99, baselineRunning.p99),
    },
  };
  const atMost = (value, limit) => value !== null && value !== undefined && value <= limit;
  const target = {
    baselineRatioAtMost: 1.1,
    upstreamRatioAtMost: 1.0,
    metVsBaseline: atMost(ratios.runningP50, 1.1) && atMost(ratios.runningP99, 1.1),
    metVsUpstream: up === undefined ? null : atMost(ratios.vsUpstream.runningP50, 1.0) && atMost(ratios.vsUpstream.runningP99, 1.0),
  };
  const kubeletResult = (m) =>
    m === undefined ? null : { command: m.command, runningMs: m.runningMs, readyMs: m.readyMs, criCalls: m.criCalls, runs: m.runs };
  const result = {
    benchmark: 'start-latency',
    date: new Date().toISOString(),
    command: `node bench/start-latency/run.mjs ${args.argv.join(' ')}`.trim(),
    kubeletCommand: ts?.command,
    upstreamCommand: up?.command,
    machine,
    runtime: { containerd: process.env.KUBELET_TS_CONTAINERD_VERSION },
    loadAverage: {
      beforeBaseline: loadBeforeBaseline,
      beforeKubelet: ts?.loadBefore,
      beforeUpstream: up?.loadBefore,
      afterKubelets: loadAfterKubelets,
      atEnd: loadAverage(),
    },
    pods: PODS,
    pollMs: POLL_MS,
    order: [...KUBELETS_TO_RUN],
    pod: 'one http-echo container (image present), no probes; pods started one after another, earlier ones keep running',
    kubelet: kubeletResult(ts),
    upstream: kubeletResult(up),
    baseline: {
      calls:
        'ListPodSandbox, ListContainers, RunPodSandbox, PodSandboxStatus, ImageStatus ×2, CreateContainer, StartContainer (sequential); even-numbered pods before the kubelets, odd ones after',
      runningMs: baselineRunning,
      stepsMs: baselineSteps,
      runs: baselineRuns,
      shape: ts?.samples
        ? {
            runPodSandbox: shapeDiff(ts.samples['/runtime.v1.RuntimeService/RunPodSandbox']?.config, firstBaselinePod?.sandboxConfig),
            createContainer: shapeDiff(
              ts.samples['/runtime.v1.RuntimeService/CreateContainer']?.config,
              firstBaselinePod?.containerConfig('', '', ''),
            ),
          }
        : null,
    },
    ratios,
    target,
    cpuProfile: ts?.profile ?? null,
  };
  const row = (label, m) => [label, m?.p50, m?.p99, m?.min, m?.max];
  const md = [
    `# Start latency — ${result.date}`,
    '',
    `\`${result.command}\` — ${PODS} pods one after another; ${result.pod}. containerd ${result.runtime.containerd ?? '?'}; kubelets in this order: ${result.order.join(', ')}.`,
    '',
    `Machine: ${machineLine(machine)}; load average before the first baseline half ${loadBeforeBaseline.join(' / ')}, after the kubelets ${loadAfterKubelets.join(' / ')}.`,
    '',
    table(
      ['', 'p50 ms', 'p99 ms', 'min', 'max'],
      [
        row('kubelet-ts: manifest → container running (CRI)', ts?.runningMs),
        row('kubelet-ts: manifest → Ready in /pods', ts?.readyMs),
        row('upstream kubelet: manifest → container running (CRI)', up?.runningMs),
        row('upstream kubelet: manifest → Ready in /pods', up?.readyMs),
        row('direct CRI baseline: first call → running', baselineRunning),
        ['kubelet-ts ÷ upstream (running)', ratios.vsUpstream.runningP50, ratios.vsUpstream.runningP99, null, null],
        ['kubelet-ts ÷ upstream (Ready)', ratios.vsUpstream.readyP50, ratios.vsUpstream.readyP99, null, null],
        ['kubelet-ts ÷ baseline (running)', ratios.runningP50, ratios.runningP99, null, null],
        ['upstream ÷ baseline (running)', ratios.upstreamVsBaseline.runningP50, ratios.upstreamVsBaseline.runningP99, null, null],
      ],
    ),
    '',
    `Baseline steps (p50 ms): ${stepNames.map((s) => `${s} ${baselineSteps[s].p50}`).join(', ')}.`,
    '',
    `Targets (running, p50 and p99): ≤ 1.1 × baseline ${target.metVsBaseline ? 'met' : 'not met'}; ≤ 1.0 × upstream ${target.metVsUpstream === null ? 'not measured' : target.metVsUpstream ? 'met' : 'not met'}.`,
  ].join('\n');
  const files = writeResults('start-latency', result, md, { out: args.option('out') });
  process.stdout.write(`${md}\n\nresults: ${files.json}, ${files.md}\n`);
});

function summarizeProfileIn(dir) {
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  return file ? summarizeCpuProfile(path.join(dir, file)) : { error: 'no .cpuprofile written' };
}
