// Benchmark: the probes issue's scenario through the real kubelet binary on the real containerd.
// 110 static pods of the http-echo image, half with (readiness httpGet 1 s, liveness tcpSocket 1 s),
// half with (readiness tcpSocket 1 s, liveness exec `cat /etc/hostname` 10 s). Once all are Running
// and Ready it measures, over a fixed window: per-worker probe intervals (drift = |interval − period|,
// missed periods = an interval over 1.5 × period), the kubelet's CPU and RSS, and the runtime's CPU.
//
// Probe run times come from the kubelet's own log (`-v=4`, JSON): the prober logs every run when it
// completes ("Probe succeeded" / "<Type> probe failed" / "Probe errored") with the pod, container and
// probe type. The HTTP and TCP probes are cross-checked on the target side: http-echo prints one line
// per connection (`GET /ready HTTP/1.1`, or `(empty request)` for a TCP probe), which containerd
// timestamps (ns) in the CRI container log.
//
// Usage: node bench/probes-kubelet/run.mjs [--pods 110] [--seconds 60] [--ready-timeout 600]
//          [--no-exec] [--cpu-prof] [--out bench/probes-kubelet/results/<date>T<HH-MM>Z.json] [--keep-log]
// Needs the runtime of `bash scripts/test-runtime.sh up` and takes the integration tests' lock on it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { removeCgroupTree, removeSandboxes } from '../lib/cri.mjs';
import { KUBELET_MAIN, REPO_ROOT, env, fileStamp, loadRuntimeEnv, log, parseArgs, sleep } from '../lib/env.mjs';
import { startKubelet } from '../lib/kubelet.mjs';
import { LOCK_DIR, acquireLock, lockHeld, releaseLock } from '../lib/lock.mjs';
import { summarizeCpuProfile } from '../lib/profile.mjs';
import { cpuMs, machineCpu, processCpuSnapshot, rssMiB, shimPids, topProcesses } from '../lib/proc.mjs';

const { argv, flag, option } = parseArgs();
const PODS = Number(option('pods', 110));
const SECONDS = Number(option('seconds', 60));
const READY_TIMEOUT_S = Number(option('ready-timeout', 600));
const CPU_PROF = flag('cpu-prof');
const KEEP_LOG = flag('keep-log');
// One file per run: 2026-11-29T20-05Z.
const OUT = path.resolve(REPO_ROOT, option('out', `bench/probes-kubelet/results/${fileStamp()}.json`));
// --no-exec: the odd pods' liveness probe is a tcpSocket at the same 10 s instead of the exec, to
// separate the runtime's cost of ExecSync (a runc exec per probe) from the kubelet's own.
const NO_EXEC = flag('no-exec');
const FAST_PERIOD_S = 1;
const EXEC_PERIOD_S = 10;

const sumCpu = (pids) => pids.reduce((a, pid) => a + (cpuMs(pid, true) ?? 0), 0);

// ---------------------------------------------------------------- statistics

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
const round = (n, digits = 1) => (n === null || n === undefined ? null : Number(n.toFixed(digits)));

/**
 * Interval statistics of one probe kind. `runs` maps a worker key to its run times (ms, sorted);
 * an interval counts when its later run falls inside the window; a gap of more than 1.5 periods
 * (also from the last run to the window's end, or a worker with no run at all) is a missed period.
 */
function intervalStats(runs, periodMs, window, expectedWorkers) {
  const drifts = [];
  let missed = 0;
  let runsInWindow = 0;
  let silentWorkers = 0;
  for (const times of runs.values()) {
    const inWindow = times.filter((t) => t >= window.start && t <= window.end);
    runsInWindow += inWindow.length;
    if (inWindow.length === 0) {
      silentWorkers++;
      missed += Math.floor((window.end - window.start) / periodMs);
      continue;
    }
    for (let i = 1; i < times.length; i++) {
      if (times[i] < window.start || times[i] > window.end) continue;
      const interval = times[i] - times[i - 1];
      drifts.push(Math.abs(interval - periodMs));
      if (interval > 1.5 * periodMs) missed += Math.round(interval / periodMs) - 1;
    }
    const tail = window.end - inWindow[inWindow.length - 1];
    if (tail > 1.5 * periodMs) missed += Math.floor(tail / periodMs);
  }
  const absent = Math.max(0, expectedWorkers - runs.size);
  missed += absent * Math.floor((window.end - window.start) / periodMs);
  drifts.sort((a, b) => a - b);
  return {
    workers: runs.size,
    expectedWorkers,
    runs: runsInWindow,
    probesPerSecond: round(runsInWindow / ((window.end - window.start) / 1000)),
    intervals: drifts.length,
    driftMs: { p50: round(percentile(drifts, 50)), p99: round(percentile(drifts, 99)), max: round(percentile(drifts, 100)) },
    missedPeriods: missed,
    silentWorkers: silentWorkers + absent,
  };
}

// ---------------------------------------------------------------- the pods

function podManifest(i, image) {
  const name = `probe-${String(i).padStart(3, '0')}`;
  const base = { timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 };
  const http = i % 2 === 0;
  const container = {
    name: 'app',
    image,
    imagePullPolicy: 'IfNotPresent',
    ports: [{ containerPort: 8080, protocol: 'TCP' }],
    readinessProbe: http
      ? { ...base, httpGet: { path: '/ready', port: 8080, scheme: 'HTTP' }, periodSeconds: FAST_PERIOD_S }
      : { ...base, tcpSocket: { port: 8080 }, periodSeconds: FAST_PERIOD_S },
    livenessProbe: http
      ? { ...base, tcpSocket: { port: 8080 }, periodSeconds: FAST_PERIOD_S }
      : NO_EXEC
        ? { ...base, tcpSocket: { port: 8080 }, periodSeconds: EXEC_PERIOD_S }
        : { ...base, exec: { command: ['cat', '/etc/hostname'] }, periodSeconds: EXEC_PERIOD_S },
  };
  return {
    name,
    http,
    manifest: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels: { bench: 'probes-kubelet' } },
      spec: { terminationGracePeriodSeconds: 2, containers: [container] },
    },
  };
}

/** Probe kind of a (pod group, probe type) pair. */
const kindOf = (http, probeType) =>
  probeType === 'Readiness' ? (http ? 'readiness-http' : 'readiness-tcp') : http ? 'liveness-tcp' : SLOW_KIND;
const SLOW_KIND = NO_EXEC ? 'liveness-tcp-10s' : 'liveness-exec';
const PERIOD_OF_KIND = {
  'readiness-http': FAST_PERIOD_S * 1000,
  'liveness-tcp': FAST_PERIOD_S * 1000,
  'readiness-tcp': FAST_PERIOD_S * 1000,
  [SLOW_KIND]: EXEC_PERIOD_S * 1000,
};

// ---------------------------------------------------------------- log parsing

/** Probe runs from the kubelet's JSON log: kind → worker → times (ms since the epoch). */
function kubeletProbeRuns(logFile, httpOf, nodeName, window) {
  const runs = Object.fromEntries(Object.keys(PERIOD_OF_KIND).map((k) => [k, new Map()]));
  const outcomes = { success: 0, failure: 0, error: 0 };
  const outcomesInWindow = { success: 0, failure: 0, error: 0 };
  const failureReasonsInWindow = {};
  const failures = [];
  for (const line of fs.readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.includes('"prober"')) continue;
    let record;
    try {
      record = JSON.parse(line);
    } catch {
      continue;
    }
    if (record.component !== 'prober' || typeof record.pod !== 'string') continue;
    let outcome;
    if (record.msg === 'Probe succeeded') outcome = 'success';
    else if (record.probeResult === 'failure') outcome = 'failure';
    else if (record.msg === 'Probe errored') outcome = 'error';
    else continue;
    const podName = record.pod.split('/')[1]?.replace(new RegExp(`-${nodeName}$`), '');
    const http = httpOf.get(podName);
    if (http === undefined) continue;
    outcomes[outcome]++;
    if (record.time >= window.start && record.time <= window.end) {
      outcomesInWindow[outcome]++;
      if (outcome !== 'success') {
        // "dial tcp 10.77.1.88:8080: connect: connection refused" → "dial tcp <ip>: connect: connection refused"
        const reason = `${kindOf(httpOf.get(record.pod.split('/')[1]?.replace(new RegExp(`-${nodeName}$`), '')), record.probeType)}: ${String(
          record.output ?? record.err ?? record.msg,
        )
          .replace(/\d+\.\d+\.\d+\.\d+(:\d+)?/g, '<ip>')
          .slice(0, 120)}`;
        failureReasonsInWindow[reason] = (failureReasonsInWindow[reason] ?? 0) + 1;
      }
    }
    if (outcome !== 'success' && failures.length < 20)
      failures.push({
        time: new Date(record.time).toISOString(),
        pod: podName,
        probeType: record.probeType,
        msg: record.msg,
        err: record.err,
        output: record.output,
      });
    const workers = runs[kindOf(http, record.probeType)];
    const key = `${podName}/${record.containerName}`;
    (workers.get(key) ?? workers.set(key, []).get(key)).push(record.time);
  }
  for (const workers of Object.values(runs)) for (const times of workers.values()) times.sort((a, b) => a - b);
  return { runs, outcomes, outcomesInWindow, failureReasonsInWindow, failures };
}

/** RFC 3339 with nanoseconds → ms since the epoch (with the sub-ms fraction). */
function parseCriTime(text) {
  const match = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$/.exec(text);
  if (!match) return undefined;
  return Date.parse(`${match[1]}${match[3]}`) + Number(`0${match[2] ?? '.0'}`) * 1000;
}

/** Probe arrivals seen by http-echo in each pod's CRI log: kind → pod → times. */
function targetProbeArrivals(podLogsDir, pods) {
  const runs = { 'readiness-http': new Map(), 'liveness-tcp': new Map(), 'readiness-tcp': new Map() };
  const dirs = fs.existsSync(podLogsDir) ? fs.readdirSync(podLogsDir) : [];
  for (const pod of pods) {
    const dir = dirs.find((d) => d.startsWith(`default_${pod.fullName}_`));
    if (dir === undefined) continue;
    const containerDir = path.join(podLogsDir, dir, 'app');
    for (const file of fs.existsSync(containerDir) ? fs.readdirSync(containerDir) : []) {
      for (const line of fs.readFileSync(path.join(containerDir, file), 'utf8').split('\n')) {
        const [stamp, stream, , ...rest] = line.split(' ');
        if (stream !== 'stdout') continue;
        const text = rest.join(' ');
        // With --no-exec an odd pod's TCP arrivals mix both of its probes: not attributable.
        const tcpKind = pod.http ? 'liveness-tcp' : NO_EXEC ? undefined : 'readiness-tcp';
        const kind = text.startsWith('GET ') ? 'readiness-http' : text === '(empty request)' ? tcpKind : undefined;
        const time = kind && parseCriTime(stamp);
        if (!kind || time === undefined) continue;
        (runs[kind].get(pod.name) ?? runs[kind].set(pod.name, []).get(pod.name)).push(time);
      }
    }
  }
  for (const workers of Object.values(runs)) for (const times of workers.values()) times.sort((a, b) => a - b);
  return runs;
}

// ---------------------------------------------------------------- main

function machineInfo() {
  const sh = (cmd, args) => {
    try {
      return execFileSync(cmd, args, { encoding: 'utf8' }).trim();
    } catch {
      return null;
    }
  };
  return {
    nproc: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model ?? null,
    memoryGiB: round(os.totalmem() / 1024 ** 3),
    kernel: os.release(),
    node: process.version,
    containerd: sh('containerd', ['--version']),
    runc: sh('runc', ['--version'])?.split('\n')[0] ?? null,
    loadAverageAtStart: os.loadavg().map((n) => round(n, 2)),
  };
}

loadRuntimeEnv();
const endpoint = env('KUBELET_TS_CRI_ENDPOINT');
const socket = endpoint.replace(/^unix:\/\//, '');
if (!fs.existsSync(KUBELET_MAIN)) {
  log('building the kubelet (apps/kubelet/dist/main.js is missing)');
  execFileSync('npm', ['run', 'build', '-w', '@kubelet-ts/kubelet'], { cwd: REPO_ROOT, stdio: 'inherit' });
}
const { createCriClient, ignoreNotFound } = await import('@kubelet-ts/cri-client');

const nodeName = `bench-${process.pid}`;
const cgroupRoot = `${env('KUBELET_TS_CGROUP_ROOT')}/${nodeName}`;
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'kubelet-ts-bench-probes-'));
let kubelet;
let cri;

async function stopKubelet() {
  const running = kubelet;
  kubelet = undefined;
  await running?.stop();
}

let cleanedUp = false;
async function cleanup() {
  if (cleanedUp) return;
  cleanedUp = true;
  try {
    await stopKubelet();
    if (lockHeld()) {
      cri ??= createCriClient({ endpoint });
      const removed = await removeSandboxes({ cri, ignoreNotFound }, (s) => (s.metadata?.name ?? '').endsWith(`-${nodeName}`));
      log(`removed ${removed} sandboxes of ${nodeName}`);
      removeCgroupTree(cgroupRoot);
    }
  } finally {
    cri?.close();
    if (KEEP_LOG) log(`kept ${base}`);
    else fs.rmSync(base, { recursive: true, force: true });
    releaseLock();
  }
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    log(`${signal}: cleaning up`);
    cleanup().finally(() => process.exit(130));
  });
}

try {
  const machine = machineInfo();
  await acquireLock(60 * 60_000);
  log(`holding ${LOCK_DIR}; node ${nodeName}, work dir ${base}`);
  cri = createCriClient({ endpoint });
  // -v=4: the prober logs every run, which is what is measured; no CRI call counter in the kubelet's process.
  kubelet = await startKubelet({ baseDir: base, nodeName, cpuProf: CPU_PROF, verbosity: 4, criCallCounter: false });
  const { dirs, logFile, readOnlyPort, command } = kubelet;
  const kubeletPid = kubelet.pid;
  log(`kubelet pid ${kubeletPid}`);

  const fetchJson = async (url) => {
    const response = await fetch(url);
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
    return response.json();
  };
  const deadlineFor = (what, ms) => {
    const end = Date.now() + ms;
    return () => {
      if (kubelet === undefined) throw new Error(`kubelet stopped while waiting for ${what}`);
      kubelet.assertRunning(`waiting for ${what}`);
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    };
  };
  // All manifests at once: write each beside the directory's watch, then rename in.
  const image = env('KUBELET_TS_HTTP_IMAGE');
  const pods = Array.from({ length: PODS }, (_, i) => podManifest(i, image)).map((p) => ({ ...p, fullName: `${p.name}-${nodeName}` }));
  for (const pod of pods) fs.writeFileSync(path.join(base, `${pod.name}.json`), JSON.stringify(pod.manifest));
  const podsWrittenAt = Date.now();
  for (const pod of pods) fs.renameSync(path.join(base, `${pod.name}.json`), path.join(dirs.manifests, `${pod.name}.json`));
  log(`${PODS} manifests written; waiting until all are Running and Ready`);

  let allRunningMs;
  let allReadyMs;
  let lastReport = 0;
  for (const check = deadlineFor('all pods Running and Ready', READY_TIMEOUT_S * 1000); ; await sleep(500)) {
    check();
    const items = (await fetchJson(`http://127.0.0.1:${readOnlyPort}/pods`).catch(() => ({ items: [] }))).items ?? [];
    const ours = items.filter((p) => p.metadata.name.endsWith(`-${nodeName}`));
    const running = ours.filter((p) => p.status?.phase === 'Running').length;
    const ready = ours.filter(
      (p) => p.status?.phase === 'Running' && p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
    ).length;
    if (allRunningMs === undefined && running === PODS) allRunningMs = Date.now() - podsWrittenAt;
    if (ready === PODS) {
      allReadyMs = Date.now() - podsWrittenAt;
      break;
    }
    if (Date.now() - lastReport > 10_000) {
      lastReport = Date.now();
      log(`  ${ours.length} known, ${running} running, ${ready} ready`);
    }
  }
  log(`all ${PODS} pods ready after ${(allReadyMs / 1000).toFixed(1)} s; measuring for ${SECONDS} s`);

  // A short settle so the window starts on the steady schedule, not on the last pods' first runs.
  await sleep(2_000);
  const containerdPid = Number(fs.readFileSync(env('KUBELET_TS_CONTAINERD_PID_FILE'), 'utf8').trim());
  const shims = shimPids(socket);
  const window = { start: Date.now(), end: 0 };
  const monoStartUs = Number(process.hrtime.bigint() / 1000n);
  const procs0 = processCpuSnapshot();
  const cpu0 = { kubelet: cpuMs(kubeletPid), containerd: cpuMs(containerdPid), shims: sumCpu(shims), machine: machineCpu() };
  const rssSamples = [];
  const windowEnd = window.start + SECONDS * 1000;
  while (Date.now() < windowEnd) {
    const rss = rssMiB(kubeletPid);
    if (rss !== undefined) rssSamples.push(rss);
    await sleep(Math.min(1000, Math.max(0, windowEnd - Date.now())));
  }
  window.end = Date.now();
  const monoEndUs = Number(process.hrtime.bigint() / 1000n);
  const cpu1 = { kubelet: cpuMs(kubeletPid), containerd: cpuMs(containerdPid), shims: sumCpu(shims), machine: machineCpu() };
  const windowMs = window.end - window.start;
  const machineTop = topProcesses(procs0, processCpuSnapshot(), windowMs, 10);
  const finalPods = ((await fetchJson(`http://127.0.0.1:${readOnlyPort}/pods`)).items ?? []).filter((p) =>
    p.metadata.name.endsWith(`-${nodeName}`),
  );
  const restarts = finalPods.reduce((a, p) => a + (p.status?.containerStatuses ?? []).reduce((b, c) => b + (c.restartCount ?? 0), 0), 0);
  const notReady = finalPods.filter((p) => !p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
  const rssEnd = rssMiB(kubeletPid);

  // Stop the kubelet (writes the CPU profile), then read its log and the pods' logs.
  await stopKubelet();
  const httpOf = new Map(pods.map((p) => [p.name, p.http]));
  const expected = Object.fromEntries(Object.keys(PERIOD_OF_KIND).map((kind) => [kind, 0]));
  for (const pod of pods) for (const type of ['Readiness', 'Liveness']) expected[kindOf(pod.http, type)]++;
  const fromKubelet = kubeletProbeRuns(logFile, httpOf, nodeName, window);
  const kubeletSide = Object.fromEntries(
    Object.entries(fromKubelet.runs).map(([kind, runs]) => [kind, intervalStats(runs, PERIOD_OF_KIND[kind], window, expected[kind])]),
  );
  const targetRuns = targetProbeArrivals(dirs.podLogs, pods);
  const targetSide = Object.fromEntries(
    Object.entries(targetRuns)
      .filter(([kind]) => !(NO_EXEC && kind === 'readiness-tcp'))
      .map(([kind, runs]) => [kind, intervalStats(runs, PERIOD_OF_KIND[kind], window, expected[kind])]),
  );
  const totalRuns = Object.values(kubeletSide).reduce((a, s) => a + s.runs, 0);
  const cpuPct = (a, b) => (a === undefined || b === undefined ? null : round(((b - a) / windowMs) * 100));
  let profile = null;
  if (CPU_PROF) {
    const file = fs.readdirSync(dirs.prof).find((f) => f.endsWith('.cpuprofile'));
    profile = file
      ? summarizeCpuProfile(path.join(dirs.prof, file), { startUs: monoStartUs, endUs: monoEndUs })
      : { error: 'no .cpuprofile written' };
  }

  const all = Object.values(kubeletSide);
  // A kind without one full interval in the window (exec at 10 s in a short window) cannot be judged.
  const unmeasured = Object.entries(kubeletSide)
    .filter(([, s]) => s.driftMs.p99 === null)
    .map(([kind]) => kind);
  const worstP99 = Math.max(...all.map((s) => s.driftMs.p99 ?? 0));
  const missed = all.reduce((a, s) => a + s.missedPeriods, 0);
  const result = {
    benchmark: 'probes-kubelet',
    date: new Date(window.start).toISOString(),
    command: `node bench/probes-kubelet/run.mjs ${argv.join(' ')}`.trim(),
    kubeletCommand: command,
    machine,
    pods: PODS,
    scenario: {
      even: 'readiness httpGet :8080/ready 1 s + liveness tcpSocket :8080 1 s',
      odd: `readiness tcpSocket :8080 1 s + liveness ${NO_EXEC ? 'tcpSocket :8080' : 'exec `cat /etc/hostname`'} 10 s`,
      timeoutSeconds: 1,
    },
    windowSeconds: round(windowMs / 1000, 2),
    allRunningSeconds: allRunningMs === undefined ? null : round(allRunningMs / 1000),
    allReadySeconds: round(allReadyMs / 1000),
    probesPerSecond: round(totalRuns / (windowMs / 1000)),
    probeOutcomes: {
      wholeRun: fromKubelet.outcomes,
      window: fromKubelet.outcomesInWindow,
      failureReasonsInWindow: fromKubelet.failureReasonsInWindow,
    },
    firstFailures: fromKubelet.failures,
    kubeletSide,
    targetSide,
    missedPeriods: missed,
    driftP99WorstMs: worstP99,
    targets: {
      noMissedPeriods: missed === 0,
      driftP99Under100ms: worstP99 < 100,
      unmeasured,
      met: missed === 0 && worstP99 < 100 && unmeasured.length === 0,
    },
    kubelet: {
      cpuPercentOfOneCore: cpuPct(cpu0.kubelet, cpu1.kubelet),
      rssMiB: {
        end: round(rssEnd),
        max: round(Math.max(...rssSamples, rssEnd ?? 0)),
        mean: round(rssSamples.reduce((a, b) => a + b, 0) / Math.max(1, rssSamples.length)),
      },
      restartsDuringRun: restarts,
      notReadyAtEnd: notReady,
    },
    runtime: {
      containerdCpuPercentOfOneCore: cpuPct(cpu0.containerd, cpu1.containerd),
      shims: shims.length,
      shimsCpuPercentOfOneCore: cpuPct(cpu0.shims, cpu1.shims),
      topProcessesOnMachine: machineTop,
      machineBusyPercentOfAllCores: round(
        ((cpu1.machine.busy - cpu0.machine.busy) / Math.max(1, cpu1.machine.total - cpu0.machine.total)) * 100,
      ),
      execSyncPerSecond: NO_EXEC ? 0 : kubeletSide['liveness-exec'].probesPerSecond,
    },
    cpuProfile: profile,
  };
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);

  const row = (kind, s) =>
    `| ${kind} | ${s.workers}/${s.expectedWorkers} | ${s.probesPerSecond} | ${s.driftMs.p50} / ${s.driftMs.p99} / ${s.driftMs.max} | ${s.missedPeriods} |`;
  process.stdout.write(
    [
      `kubelet side (window ${result.windowSeconds} s, ${result.probesPerSecond} probes/s):`,
      '| probe | workers | probes/s | drift p50 / p99 / max (ms) | missed periods |',
      '|---|---|---|---|---|',
      ...Object.entries(kubeletSide).map(([k, s]) => row(k, s)),
      '',
      'target side (http-echo arrivals in the CRI logs):',
      '| probe | workers | probes/s | drift p50 / p99 / max (ms) | missed periods |',
      '|---|---|---|---|---|',
      ...Object.entries(targetSide).map(([k, s]) => row(k, s)),
      '',
      `kubelet CPU ${result.kubelet.cpuPercentOfOneCore} % of one core, RSS ${result.kubelet.rssMiB.end} MiB (max ${result.kubelet.rssMiB.max}); containerd ${result.runtime.containerdCpuPercentOfOneCore} %, shims ${result.runtime.shimsCpuPercentOfOneCore} %, machine ${result.runtime.machineBusyPercentOfAllCores} % busy`,
      `busiest processes (% of one core): ${machineTop
        .slice(0, 5)
        .map((p) => `${p.name} ${p.cpuPercentOfOneCore}`)
        .join(', ')}`,
      `targets (no missed periods, drift p99 < 100 ms): ${result.targets.met ? 'met' : 'NOT met'}${unmeasured.length ? ` (no interval for ${unmeasured.join(', ')}: lengthen --seconds)` : ''}`,
      `results: ${path.relative(REPO_ROOT, OUT)}`,
      '',
    ].join('\n'),
  );
} finally {
  await cleanup();
}
process.exit(0);
