// Benchmarks 2–4 in one session per kubelet, kubelet-ts then the upstream kubelet with the same flags and
// configuration file (the phases share the 110 running pods, which keeps
// `npm run bench` within its time budget):
//   footprint, idle   the kubelet's RSS and CPU (/proc) with no pods, over --idle-seconds;
//   density           --pods manifests written at once (one http-echo container each, httpGet
//                     readiness probe every 10 s); time until every container runs (CRI) and until
//                     /pods reports all Ready; the same pods through the direct-CRI baseline started
//                     concurrently (one task per pod, as the kubelet has one worker per pod);
//   footprint, steady RSS and CPU over --steady-seconds with the pods running, and CRI calls per
//                     second (counted inside the kubelet by bench/lib/cri-call-counter.cjs);
//   stop latency      every manifest deleted at once until every container has stopped, every
//                     sandbox is stopped and every sandbox is gone (the kubelet removes a deleted
//                     pod's sandboxes in housekeeping); the baseline stops and removes its pods with
//                     the kubelet's calls, concurrently.
// Both start phases (and podman's) begin once the machine's CPU is quiet (waitForQuiet, whatever ran
// before) and record where the whole machine's CPU went (startCpuAccount).
// The podman peer is bench/podman/run.mjs; bench/summary.mjs puts the ratios together.
//
// Usage: node bench/density/run.mjs [--pods 110] [--idle-seconds 10] [--steady-seconds 120] [--settle 2] [--idle-settle 15]
//          [--kubelets kubelet-ts,upstream] [--no-baseline] [--baseline-concurrency <pods>] [--baseline-stop-concurrency <pods>] [--baseline-only] [--node-arg <node option>]… [--config-line 'key: value']… [--kubelet-arg <flag>]… [--cpu-prof] [--heap-snapshot] [--v 2] [--out <file.json>] [--keep]
// Needs `bash scripts/test-runtime.sh up`; holds the integration lock from the kubelet's start to the
// baseline's cleanup.
import fs from 'node:fs';
import { defaultMaxParallelStarts } from '@kubelet-ts/config';
import path from 'node:path';
import { baselinePod, startPodDirect, stopPodDirect } from '../lib/baseline.mjs';
import { connectCri, mapLimit, removeCgroupTree, removeSandboxes } from '../lib/cri.mjs';
import { env, fileStamp, log, parseArgs, sleep } from '../lib/env.mjs';
import { containerdCriCounts } from '../lib/containerd-metrics.mjs';
import { KUBELETS, isReady, startKubelet, writeManifests } from '../lib/kubelet.mjs';
import { acquireLock, releaseLock } from '../lib/lock.mjs';
import { machineInfo, machineLine } from '../lib/machine.mjs';
import { cpuAccountLine, cpuMs, loadAverage, machineCpu, measureWindow, shimPids, startCpuAccount, waitForQuiet } from '../lib/proc.mjs';
import { summarizeCpuProfile, summarizeHeapSnapshot } from '../lib/profile.mjs';
import { podManifest, podNames } from '../lib/pods.mjs';
import { table, writeResults } from '../lib/report.mjs';
import { createBenchmarkRun } from '../lib/run.mjs';
import { ratio, round, summarize } from '../lib/stats.mjs';

const args = parseArgs();
const PODS = args.number('pods', 110);
const IDLE_S = args.number('idle-seconds', 10);
const STEADY_S = args.number('steady-seconds', 120);
const SETTLE_S = args.number('settle', 2);
const IDLE_SETTLE_S = args.number('idle-settle', 15);
const START_TIMEOUT_MS = args.number('start-timeout', 600) * 1000;
const STOP_TIMEOUT_MS = args.number('stop-timeout', 300) * 1000;
// Every 500 ms during starts: the poll's List calls cost containerd and this runner CPU the kubelet and
// the baseline then lack (podman's start is not polled until kube play returns).
const POLL_MS = 500;
const BASELINE = !args.flag('no-baseline');
// Default: as many pods at a time as the kubelet starts by default (--max-parallel-starts: twice the
// CPUs), so the baseline makes the kubelet's calls the way the kubelet makes them. `--baseline-concurrency 110`
// starts every pod at once (the kubelet with --max-parallel-starts=0). Stops run one task per pod, as the
// kubelet's pod workers stop pods (--baseline-stop-concurrency).
const BASELINE_CONCURRENCY = args.number('baseline-concurrency', defaultMaxParallelStarts());
const BASELINE_STOP_CONCURRENCY = args.number('baseline-stop-concurrency', PODS);
const CPU_PROF = args.flag('cpu-prof');
const HEAP_SNAPSHOT = args.flag('heap-snapshot');
// --baseline-only: skip the kubelet (e.g. to compare baseline concurrencies); --node-arg X (repeatable):
// extra node options for the kubelet, for experiments on its footprint.
const BASELINE_ONLY = args.flag('baseline-only');
const NODE_ARGS = args.all('node-arg');
// --config-line 'key: value' (repeatable): an extra KubeletConfiguration line, e.g. to turn a subsystem's period up.
const CONFIG_LINES = args.all('config-line');
// --kubelet-arg X (repeatable): an extra kubelet flag, e.g. --kubelet-arg --max-parallel-starts=2.
const KUBELET_ARGS = args.all('kubelet-arg');
// --kubelets kubelet-ts,upstream (default both, in that order).
const KUBELETS_TO_RUN = args.option('kubelets', KUBELETS.join(',')).split(',');
for (const k of KUBELETS_TO_RUN) if (!KUBELETS.includes(k)) throw new Error(`--kubelets: unknown kubelet ${k} (${KUBELETS.join(', ')})`);
const run = createBenchmarkRun('density', { keep: args.flag('keep') });
const seconds = (ms) => (ms === undefined ? null : round(ms / 1000, 2));

/**
 * CRI calls per second in a measured window: `runtime` as containerd counted them (any kubelet), `own` as
 * kubelet-ts's counter did (null for the upstream kubelet).
 */
function callDelta(window, implementation) {
  const { start, end } = window.extra;
  return {
    ...rates(start.runtime, end.runtime),
    own: implementation === 'kubelet-ts' ? rates(start.own, end.own) : null,
  };
}

/** Calls per second by method between two cumulative snapshots ({ time, counts }). */
function rates(start, end) {
  const elapsedS = (end.time - start.time) / 1000;
  const perMethod = Object.fromEntries(
    Object.keys(end.counts)
      .map((m) => [m.replace(/^\/runtime\.v1\./, ''), round((end.counts[m] - (start.counts[m] ?? 0)) / elapsedS, 2)])
      .filter(([, rate]) => rate > 0)
      .sort((a, b) => b[1] - a[1]),
  );
  const total = round(
    Object.values(perMethod).reduce((a, b) => a + b, 0),
    2,
  );
  return { perSecond: total, perMethod, seconds: round(elapsedS, 1) };
}

/**
 * Polls until `done(state)` holds: state = our running containers (by pod name) and, with
 * `sandboxes: true`, our sandboxes (from a second List call, needed only to watch a stop).
 * `onPoll` sees each state (to record first sightings).
 */
async function pollRuntime(cri, isOurs, done, { deadline, what, onPoll, check, sandboxes = false }) {
  for (;;) {
    const [containers, listed] = await Promise.all([
      cri.runtime.listContainers({ filter: { state: { state: 'CONTAINER_RUNNING' } } }),
      sandboxes ? cri.runtime.listPodSandbox({}) : undefined,
    ]);
    const state = {
      now: performance.now(),
      running: new Set(
        containers.containers.map((c) => c.labels?.['io.kubernetes.pod.name']).filter((name) => name !== undefined && isOurs(name)),
      ),
      sandboxes: listed?.items.filter((s) => isOurs(s.metadata?.name ?? '')) ?? [],
    };
    await onPoll?.(state);
    if (done(state)) return state;
    check?.();
    if (performance.now() > deadline) throw new Error(`timed out ${what}`);
    await sleep(POLL_MS);
  }
}

/**
 * A poll started beside the work it watches: a failure of the work leaves it running to its deadline,
 * so its rejection is marked handled here and still reaches whoever awaits it.
 */
function observed(poll) {
  poll.catch(() => {});
  return poll;
}

/** Every kubelet phase against one kubelet (started here, stopped and cleaned up at the end). */
async function measureKubelet(implementation, c, { names, containerdPid, socket }) {
  const nodeName = `bench-dens-${implementation === 'upstream' ? 'up' : 'ts'}-${process.pid}`;
  const isOurs = (name) => name.endsWith(`-${nodeName}`);
  const kubeletDir = path.join(run.baseDir, implementation);
  fs.mkdirSync(kubeletDir);
  const kubelet = await startKubelet({
    baseDir: kubeletDir,
    nodeName,
    implementation,
    cpuProf: CPU_PROF,
    heapSnapshots: HEAP_SNAPSHOT,
    verbosity: args.number('v', 2),
    nodeArgs: NODE_ARGS,
    configLines: CONFIG_LINES,
    kubeletArgs: KUBELET_ARGS,
  });
  run.defer(`remove the ${implementation} cgroup root`, () => removeCgroupTree(kubelet.cgroupRoot));
  run.defer(`remove the ${implementation} pods`, () => removeSandboxes(c, (s) => isOurs(s.metadata.name)));
  run.defer(`stop the ${implementation} kubelet`, () => kubelet.stop());
  // Inside kubelet-ts (its counter) and at containerd (any kubelet; windows in which this runner calls nothing).
  const criCalls = () => kubelet.criCounts();
  const windowCalls = async () => ({ own: await criCalls(), runtime: await containerdCriCounts() });
  const check = () => kubelet.assertRunning('the benchmark ran');

  // ---- footprint, idle (after the start-up's own work: first relists, node status, stats)
  await sleep(IDLE_SETTLE_S * 1000);
  log(`idle: measuring the kubelet (pid ${kubelet.pid}) for ${IDLE_S} s`);
  const idle = await measureWindow(kubelet.pid, IDLE_S, { extra: windowCalls, others: { containerd: [containerdPid] } });
  const heapIdle = HEAP_SNAPSHOT ? summarizeHeapSnapshot(await kubelet.takeHeapSnapshot()) : null;

  // ---- density
  const quietBeforeDensity = await waitForQuiet();
  const loadBeforeDensity = loadAverage();
  const pods = names.map((name) => ({ name, manifest: podManifest(name, { readiness: true, label: 'density' }) }));
  log(`density: writing ${PODS} manifests at once`);
  const monoUs = () => Number(process.hrtime.bigint() / 1000n);
  const marks = { densityStartUs: monoUs() };
  const callsBeforeDensity = await criCalls();
  // CPU used while the pods start: the kubelet's, containerd's (with the CNI plugins it ran and reaped) and the machine's.
  const cpuBeforeDensity = { kubelet: cpuMs(kubelet.pid), containerd: cpuMs(containerdPid, true), machine: machineCpu() };
  const densityAccount = startCpuAccount();
  const t0 = writeManifests(kubelet, pods, run.baseDir);
  const firstRunning = new Map();
  let allRunningAt;
  let lastReport = 0;
  await pollRuntime(c.cri, isOurs, (s) => s.running.size >= PODS, {
    deadline: t0 + START_TIMEOUT_MS,
    what: `waiting for ${PODS} running containers`,
    check,
    onPoll: (s) => {
      for (const name of s.running) if (!firstRunning.has(name)) firstRunning.set(name, s.now - t0);
      if (s.running.size >= PODS) allRunningAt = s.now;
      if (s.now - lastReport > 10_000) {
        lastReport = s.now;
        log(`  ${s.running.size} containers running`);
      }
    },
  });
  let allReadyAt;
  for (;;) {
    check();
    const ready = (await kubelet.pods()).filter(isReady).length;
    if (ready >= PODS) {
      allReadyAt = performance.now();
      break;
    }
    if (performance.now() > t0 + START_TIMEOUT_MS) throw new Error(`only ${ready} of ${PODS} pods Ready`);
    await sleep(POLL_MS);
  }
  marks.densityEndUs = monoUs();
  const densityCpuAccount = densityAccount();
  const machineAfterDensity = machineCpu();
  const densityCpu = {
    kubeletCpuSeconds: round(((cpuMs(kubelet.pid) ?? 0) - (cpuBeforeDensity.kubelet ?? 0)) / 1000, 1),
    containerdCpuSeconds: round(((cpuMs(containerdPid, true) ?? 0) - (cpuBeforeDensity.containerd ?? 0)) / 1000, 1),
    machineBusyPercent: round(
      (100 * (machineAfterDensity.busy - cpuBeforeDensity.machine.busy)) /
        Math.max(1, machineAfterDensity.total - cpuBeforeDensity.machine.total),
      1,
    ),
    cpuAccount: densityCpuAccount,
  };
  const callsAfterDensity = await criCalls();
  log(`density: all running after ${seconds(allRunningAt - t0)} s, all Ready after ${seconds(allReadyAt - t0)} s`);

  // ---- footprint, steady
  await sleep(SETTLE_S * 1000);
  log(`steady: measuring for ${STEADY_S} s`);
  marks.steadyStartUs = monoUs();
  const steady = await measureWindow(kubelet.pid, STEADY_S, {
    extra: windowCalls,
    others: { containerd: [containerdPid], shims: shimPids(socket) },
  });
  marks.steadyEndUs = monoUs();
  const heapSteady = HEAP_SNAPSHOT ? summarizeHeapSnapshot(await kubelet.takeHeapSnapshot()) : null;

  // ---- stop latency
  const loadBeforeStop = loadAverage();
  log(`stop: deleting ${PODS} manifests at once`);
  marks.stopStartUs = monoUs();
  const s0 = performance.now();
  for (const name of names) fs.unlinkSync(path.join(kubelet.dirs.manifests, `${name}.json`));
  const stopMarks = {};
  await pollRuntime(c.cri, isOurs, (s) => s.sandboxes.length === 0, {
    sandboxes: true,
    deadline: s0 + STOP_TIMEOUT_MS,
    what: 'waiting for every sandbox to be removed',
    check,
    onPoll: (s) => {
      if (stopMarks.containersStopped === undefined && s.running.size === 0) stopMarks.containersStopped = s.now - s0;
      if (stopMarks.sandboxesStopped === undefined && s.sandboxes.every((x) => x.state !== 'SANDBOX_READY'))
        stopMarks.sandboxesStopped = s.now - s0;
      if (s.sandboxes.length === 0) stopMarks.sandboxesGone = s.now - s0;
    },
  });
  log(
    `stop: containers stopped ${seconds(stopMarks.containersStopped)} s, sandboxes stopped ${seconds(stopMarks.sandboxesStopped)} s, gone ${seconds(stopMarks.sandboxesGone)} s`,
  );
  const totalCalls = await kubelet.criCounts();
  await kubelet.stop();
  marks.stopEndUs = monoUs();
  const profile = CPU_PROF && implementation === 'kubelet-ts' ? profileIn(kubelet.dirs.prof, marks) : null;
  const removed = await removeSandboxes(c, (s) => isOurs(s.metadata.name));
  if (removed > 0) log(`${implementation}: ${removed} sandboxes left after the stop, removed`);
  const densityResult = {
    allRunningSeconds: seconds(allRunningAt - t0),
    allReadySeconds: seconds(allReadyAt - t0),
    perPodRunningSeconds: summarize(
      [...firstRunning.values()].map((ms) => ms / 1000),
      2,
    ),
    quietBefore: quietBeforeDensity,
    ...densityCpu,
  };
  const stopResult = {
    containersStoppedSeconds: seconds(stopMarks.containersStopped),
    sandboxesStoppedSeconds: seconds(stopMarks.sandboxesStopped),
    sandboxesGoneSeconds: seconds(stopMarks.sandboxesGone),
  };
  const densityCalls = Object.fromEntries(
    Object.entries(callsAfterDensity.counts)
      .map(([m, n]) => [m.replace(/^\/runtime\.v1\./, ''), n - (callsBeforeDensity.counts[m] ?? 0)])
      .filter(([, n]) => n > 0),
  );
  const idleCalls = callDelta(idle, implementation);
  const steadyCalls = callDelta(steady, implementation);
  delete idle.extra;
  delete steady.extra;
  return {
    command: kubelet.command,
    loadAverage: { beforeDensity: loadBeforeDensity, beforeStop: loadBeforeStop },
    footprint: {
      idle: { ...idle, criCalls: idleCalls },
      steady: { ...steady, criCalls: steadyCalls },
      heap: HEAP_SNAPSHOT ? { idle: heapIdle, steady: heapSteady } : null,
    },
    // kubelet-ts's own count; the upstream kubelet's is containerd's, with this runner's polling in it.
    density: { ...densityResult, criCalls: densityCalls, criCallsCountedBy: implementation === 'kubelet-ts' ? 'kubelet' : 'containerd' },
    stop: stopResult,
    criCallsWholeRun: implementation === 'kubelet-ts' ? totalCalls.counts : null,
    cpuProfile: profile,
  };
}

await run.main(async () => {
  const machine = machineInfo();
  const image = env('KUBELET_TS_HTTP_IMAGE');
  const c = await connectCri();
  run.defer('close the CRI client', () => c.cri.close());
  const names = podNames(PODS, 'dens');
  const socket = env('KUBELET_TS_CRI_ENDPOINT').replace(/^unix:\/\//, '');
  const containerdPid = Number(fs.readFileSync(env('KUBELET_TS_CONTAINERD_PID_FILE'), 'utf8').trim());

  await acquireLock();
  log(`holding the integration lock; work dir ${run.baseDir}`);
  const measured = {};
  if (!BASELINE_ONLY)
    for (const implementation of KUBELETS_TO_RUN)
      measured[implementation] = await measureKubelet(implementation, c, { names, containerdPid, socket });

  // ---- the direct-CRI baseline (the kubelet is stopped: nothing kills these pods)
  let baseline = null;
  if (BASELINE) {
    const label = `density-baseline-${process.pid}`;
    const baselineRoot = `${env('KUBELET_TS_CGROUP_ROOT')}/bench-dens-baseline-${process.pid}`;
    run.defer('remove the baseline cgroup root', () => removeCgroupTree(baselineRoot));
    run.defer('remove the baseline pods', () => removeSandboxes(c, (s) => s.labels?.benchmark === label));
    // Right after the kubelet's teardown: start on a machine as quiet as the kubelet's was.
    const quietBeforeBaseline = await waitForQuiet();
    log(
      `baseline: the machine was quiet after ${quietBeforeBaseline.waitedSeconds} s (busy % per second: ${quietBeforeBaseline.busyPercentPerSecond.join(' ')})`,
    );
    const loadBeforeBaseline = loadAverage();
    const specs = names.map((name) =>
      baselinePod({ name: `${name}-baseline`, dir: path.join(run.baseDir, 'baseline'), cgroupRoot: baselineRoot, label }),
    );
    log(`baseline: starting ${PODS} pods through CRI, ${BASELINE_CONCURRENCY} at a time`);
    const baselineCpuBefore = { containerd: cpuMs(containerdPid, true), machine: machineCpu() };
    const baselineAccount = startCpuAccount();
    const isBaseline = (name) => name.endsWith('-baseline') && names.includes(name.slice(0, -'-baseline'.length));
    // The same observer as the kubelets get, polling from the first moment: its load on containerd and
    // its sighting delay (up to POLL_MS) weigh on both sides alike.
    const b0 = performance.now();
    const allRunningSeen = observed(
      pollRuntime(c.cri, isBaseline, (s) => s.running.size >= PODS, {
        deadline: b0 + START_TIMEOUT_MS,
        what: 'waiting for the baseline pods',
      }),
    );
    const started = await mapLimit(specs, BASELINE_CONCURRENCY, async (spec) => {
      const ids = await startPodDirect(c, spec, image);
      return { ...ids, returnedMs: performance.now() - b0 };
    });
    const baselineAllRunning = (await allRunningSeen).now - b0;
    const baselineCpuAccount = baselineAccount();
    const baselineMachineAfter = machineCpu();
    const baselineCpu = {
      containerdCpuSeconds: round(((cpuMs(containerdPid, true) ?? 0) - (baselineCpuBefore.containerd ?? 0)) / 1000, 1),
      machineBusyPercent: round(
        (100 * (baselineMachineAfter.busy - baselineCpuBefore.machine.busy)) /
          Math.max(1, baselineMachineAfter.total - baselineCpuBefore.machine.total),
        1,
      ),
      cpuAccount: baselineCpuAccount,
    };
    log(`baseline: all running after ${seconds(baselineAllRunning)} s`);
    await sleep(SETTLE_S * 1000);
    const bs0 = performance.now();
    const allGoneSeen = observed(
      pollRuntime(c.cri, isBaseline, (s) => s.sandboxes.length === 0, {
        sandboxes: true,
        deadline: bs0 + STOP_TIMEOUT_MS,
        what: 'waiting for every baseline sandbox to be removed',
      }),
    );
    // Sequential per pod, concurrent across pods, as the kubelet's pod workers.
    await mapLimit(started, BASELINE_STOP_CONCURRENCY, (ids) => stopPodDirect(c, ids));
    const baselineCallsReturnedMs = performance.now() - bs0;
    const baselineStopMs = (await allGoneSeen).now - bs0;
    log(`baseline: all stopped and removed after ${seconds(baselineStopMs)} s`);
    baseline = {
      calls: `per pod, ${BASELINE_CONCURRENCY} pods at a time: ListPodSandbox, ListContainers, RunPodSandbox, PodSandboxStatus, ImageStatus ×2, CreateContainer, StartContainer; stop, ${BASELINE_STOP_CONCURRENCY} at a time: StopContainer, StopPodSandbox, RemoveContainer, StopPodSandbox, RemovePodSandbox`,
      concurrency: BASELINE_CONCURRENCY,
      stopConcurrency: BASELINE_STOP_CONCURRENCY,
      loadAverageBefore: loadBeforeBaseline,
      quietBefore: quietBeforeBaseline,
      allRunningSeconds: seconds(baselineAllRunning),
      ...baselineCpu,
      perPodStartedSeconds: summarize(
        started.map((s) => s.returnedMs / 1000),
        2,
      ),
      stopAndRemoveSeconds: seconds(baselineStopMs),
      stopCallsReturnedSeconds: seconds(baselineCallsReturnedMs),
    };
  }
  releaseLock();

  const base = {
    benchmark: 'density',
    date: new Date().toISOString(),
    command: `node bench/density/run.mjs ${args.argv.join(' ')}`.trim(),
    machine,
    pods: PODS,
    pod: 'one http-echo container (image present), readiness httpGet :8080/ready every 10 s',
  };
  const baselineTable = table(
    ['direct CRI baseline', 'seconds'],
    [
      [`${PODS} pods → all running (${baseline?.concurrency} at a time)`, baseline?.allRunningSeconds],
      ['stop and remove all', baseline?.stopAndRemoveSeconds],
    ],
  );
  let result;
  let md;
  if (BASELINE_ONLY) {
    result = { ...base, baseline };
    md = [
      `# Density baseline only — ${result.date}`,
      '',
      `\`${result.command}\``,
      '',
      `Machine: ${machineLine(machine)}.`,
      '',
      baselineTable,
    ].join('\n');
  } else {
    const ts = measured['kubelet-ts'];
    const up = measured.upstream;
    const vs = (f) => ratio(f(ts), f(up));
    const get = (f) => (m) => (m === undefined ? undefined : f(m));
    const allRunning = get((m) => m.density.allRunningSeconds);
    const allReady = get((m) => m.density.allReadySeconds);
    const gone = get((m) => m.stop.sandboxesGoneSeconds);
    const steadyRss = get((m) => m.footprint.steady.rssMiB.max);
    const steadyCpu = get((m) => m.footprint.steady.cpuPercentOfOneCore);
    const steadyCalls = get((m) => m.footprint.steady.criCalls.perSecond);
    const idleRss = get((m) => m.footprint.idle.rssMiB.max);
    const idleCpu = get((m) => m.footprint.idle.cpuPercentOfOneCore);
    const ratios = {
      densityAllRunning: ratio(allRunning(ts), baseline?.allRunningSeconds),
      stopSandboxesGone: ratio(gone(ts), baseline?.stopAndRemoveSeconds),
      upstreamDensityAllRunning: ratio(allRunning(up), baseline?.allRunningSeconds),
      upstreamStopSandboxesGone: ratio(gone(up), baseline?.stopAndRemoveSeconds),
      vsUpstream: {
        densityAllRunning: vs(allRunning),
        densityAllReady: vs(allReady),
        stopSandboxesGone: vs(gone),
        idleRss: vs(idleRss),
        idleCpu: vs(idleCpu),
        steadyRss: vs(steadyRss),
        steadyCpu: vs(steadyCpu),
        steadyCriCallsPerSecond: vs(steadyCalls),
      },
    };
    const atMost = (value, limit) => value !== null && value !== undefined && value <= limit;
    const upstreamTarget = (r) => (up === undefined ? null : atMost(r, 1.0));
    result = {
      ...base,
      runtime: { containerd: process.env.KUBELET_TS_CONTAINERD_VERSION },
      order: [...KUBELETS_TO_RUN],
      kubeletCommand: ts?.command,
      upstreamCommand: up?.command,
      loadAverage: { ...ts?.loadAverage, atEnd: loadAverage() },
      // kubelet-ts's figures at the top level (as earlier results, for the summary); the upstream kubelet's beside them.
      footprint: ts?.footprint,
      density: ts?.density,
      stop: ts?.stop,
      criCallsWholeRun: ts?.criCallsWholeRun,
      cpuProfile: ts?.cpuProfile ?? null,
      upstream: up ?? null,
      baseline,
      ratios,
      targets: {
        rssAtMost100MiB: atMost(steadyRss(ts), 100),
        rssAtMostUpstream: upstreamTarget(ratios.vsUpstream.steadyRss),
        steadyCpuAtMostUpstream: upstreamTarget(ratios.vsUpstream.steadyCpu),
        densityAtMostUpstream: upstreamTarget(ratios.vsUpstream.densityAllRunning),
        stopAtMostUpstream: upstreamTarget(ratios.vsUpstream.stopSandboxesGone),
        densityAtMost1point1Baseline: atMost(ratios.densityAllRunning, 1.1),
        stopAtMost1point1Baseline: atMost(ratios.stopSandboxesGone, 1.1),
      },
    };
    const footprintRow = (label, m, phase) => {
      const w = m?.footprint[phase];
      return [
        label,
        w?.cpuPercentOfOneCore,
        w === undefined ? null : `${w.rssMiB.p50} / ${w.rssMiB.max}`,
        w?.criCalls.perSecond,
        w?.others.containerd,
        w?.machineBusyPercentOfAllCores,
      ];
    };
    const verdict = (met) => (met === null ? 'not measured' : met ? 'met' : 'not met');
    md = [
      `# Density, footprint and stop latency — ${result.date}`,
      '',
      `\`${result.command}\` — ${PODS} pods; ${result.pod}. containerd ${result.runtime.containerd ?? '?'}; kubelets in this order: ${result.order.join(', ')}, then the baseline.`,
      '',
      `Machine: ${machineLine(machine)}.`,
      '',
      table(
        ['', 'kubelet-ts', 'upstream kubelet', 'direct CRI baseline', 'kubelet-ts ÷ upstream', 'kubelet-ts ÷ baseline'],
        [
          [
            `${PODS} pods written at once → all containers running (s)`,
            allRunning(ts),
            allRunning(up),
            baseline?.allRunningSeconds,
            ratios.vsUpstream.densityAllRunning,
            ratios.densityAllRunning,
          ],
          [`→ all Ready in /pods (s)`, allReady(ts), allReady(up), null, ratios.vsUpstream.densityAllReady, null],
          [
            `delete all → every container stopped (s)`,
            ts?.stop.containersStoppedSeconds,
            up?.stop.containersStoppedSeconds,
            null,
            null,
            null,
          ],
          [`delete all → every sandbox stopped (s)`, ts?.stop.sandboxesStoppedSeconds, up?.stop.sandboxesStoppedSeconds, null, null, null],
          [
            `delete all → every sandbox gone (s)`,
            gone(ts),
            gone(up),
            baseline?.stopAndRemoveSeconds,
            ratios.vsUpstream.stopSandboxesGone,
            ratios.stopSandboxesGone,
          ],
        ],
      ),
      '',
      table(
        ['footprint', 'CPU % of one core', 'RSS MiB p50 / max', 'CRI calls/s (containerd)', 'containerd CPU %', 'machine busy %'],
        [
          footprintRow(`kubelet-ts idle, no pods`, ts, 'idle'),
          footprintRow(`upstream kubelet idle, no pods`, up, 'idle'),
          footprintRow(`kubelet-ts steady, ${PODS} pods`, ts, 'steady'),
          footprintRow(`upstream kubelet steady, ${PODS} pods`, up, 'steady'),
        ],
      ),
      '',
      `kubelet-ts ÷ upstream: idle RSS ${ratios.vsUpstream.idleRss}, idle CPU ${ratios.vsUpstream.idleCpu}, steady RSS ${ratios.vsUpstream.steadyRss}, steady CPU ${ratios.vsUpstream.steadyCpu}, steady CRI calls/s ${ratios.vsUpstream.steadyCriCallsPerSecond}.`,
      '',
      ...['kubelet-ts', 'upstream'].flatMap((k) => {
        const m = measured[k];
        if (m === undefined) return [];
        const calls = m.footprint.steady.criCalls.perMethod;
        return [
          `${k}: steady CRI calls per second by method (containerd) — ${Object.entries(calls)
            .map(([method, r]) => `${method} ${r}`)
            .join(', ')}; CRI calls during the density phase (${m.density.criCallsCountedBy}) — ${Object.entries(m.density.criCalls)
            .map(([method, n]) => `${method} ${n}`)
            .join(', ')}; whole machine while the pods start — ${cpuAccountLine(m.density.cpuAccount)}.`,
          '',
        ];
      }),
      ...(baseline ? [`Direct CRI baseline, whole machine while the pods start — ${cpuAccountLine(baseline.cpuAccount)}.`, ''] : []),
      `Targets: kubelet-ts RSS ≤ 100 MiB with ${PODS} pods ${verdict(result.targets.rssAtMost100MiB)}; ≤ upstream: RSS ${verdict(result.targets.rssAtMostUpstream)}, steady CPU ${verdict(result.targets.steadyCpuAtMostUpstream)}, density ${verdict(result.targets.densityAtMostUpstream)}, stop ${verdict(result.targets.stopAtMostUpstream)}; ≤ 1.1 × baseline: density ${verdict(result.targets.densityAtMost1point1Baseline)}, stop ${verdict(result.targets.stopAtMost1point1Baseline)}.`,
    ].join('\n');
  }
  // A baseline-only run is an experiment: it never becomes the latest density result.
  const out = args.option('out') ?? (BASELINE_ONLY ? `bench/results/density/baseline-only-${fileStamp()}.json` : undefined);
  const files = writeResults('density', result, md, { out });
  process.stdout.write(`${md}\n\nresults: ${files.json}, ${files.md}\n`);
});

/** The profile per phase (V8's profile clock is CLOCK_MONOTONIC, as process.hrtime here). */
function profileIn(dir, marks) {
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (file === undefined) return { error: 'no .cpuprofile written' };
  const full = path.join(dir, file);
  return {
    density: summarizeCpuProfile(full, { startUs: marks.densityStartUs, endUs: marks.densityEndUs }),
    steady: summarizeCpuProfile(full, { startUs: marks.steadyStartUs, endUs: marks.steadyEndUs }),
    stop: summarizeCpuProfile(full, { startUs: marks.stopStartUs, endUs: marks.stopEndUs }),
  };
}
