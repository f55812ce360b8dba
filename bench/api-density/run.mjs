// API-server mode, kubelet-ts against the upstream kubelet in the same run, on the real control plane
// of scripts/control-plane.sh and the shared containerd. For each kubelet in turn (one at a time: a
// kubelet kills the pods it does not own):
//   join        TLS bootstrap until the Node is Ready and has no taint left (the controller manager
//               removes node.kubernetes.io/not-ready; its CSR approval and that are in this time);
//   deployment  a Deployment of --pods replicas (http-echo, httpGet readiness probe every 10 s) bound to
//               the node by nodeSelector: time from the create until every pod is Running and Ready in
//               the API;
//   steady      --steady-seconds with the pods running: the kubelet's RSS and CPU, and its API requests
//               per minute by verb and resource (from the API server's audit log, user system:node:<name>);
//   delete      the Deployment deleted: time until no pod is left in the API;
//   direct      --pods pods created directly with spec.nodeName (no scheduler), 20 creates at a time:
//               time from the first create until all are Running and Ready; then deleted.
// Every "until" is seen by a watch of the namespace's pods (an informer), not a poll: the moment the
// last pod turns Ready (or goes) is the moment of that event. --rounds N runs the kubelets N times,
// interleaved and in alternating order (ts, up; up, ts; …), and reports each measure's median per
// kubelet with every round's value: one round moves by seconds on this machine.
// Ratios are kubelet-ts / upstream (of the medians). Needs `bash scripts/test-runtime.sh up` and
// `bash scripts/control-plane.sh up`; holds the integration lock throughout.
//
// Usage: node bench/api-density/run.mjs [--pods 110] [--steady-seconds 120] [--rounds 1] [--only kubelet-ts|upstream] [--kubelet-arg X]… [--cpu-prof] [--out <file.json>] [--keep]
import fs from 'node:fs';
import path from 'node:path';
import { noopLogger, systemClock } from '@kubelet-ts/common';
import { createInformer, createKubeClient, loadKubeconfig } from '@kubelet-ts/kube-client';
import { z } from 'zod';
import { connectCri, mapLimit, removeSandboxes } from '../lib/cri.mjs';
import { log, parseArgs, sleep } from '../lib/env.mjs';
import { isReady, startKubelet } from '../lib/kubelet.mjs';
import { acquireLock } from '../lib/lock.mjs';
import { machineInfo, machineLine } from '../lib/machine.mjs';
import { measureWindow } from '../lib/proc.mjs';
import { podManifest, podNames } from '../lib/pods.mjs';
import { summarizeCpuProfile } from '../lib/profile.mjs';
import { table, writeResults } from '../lib/report.mjs';
import { createBenchmarkRun } from '../lib/run.mjs';
import { ratio, round, summarize } from '../lib/stats.mjs';
import { readEnvFile, startUpstreamKubelet } from '../../scripts/lib/upstream-kubelet.mjs';

const args = parseArgs();
const PODS = args.number('pods', 110);
const STEADY_S = args.number('steady-seconds', 120);
const ONLY = args.option('only', undefined);
const TIMEOUT_MS = args.number('timeout', 600) * 1000;
// --kubelet-arg X (repeatable): an extra flag for kubelet-ts, for experiments (e.g. --kubelet-arg --max-parallel-starts=16).
const KUBELET_ARGS = args.all('kubelet-arg');
// --cpu-prof: kubelet-ts under `node --cpu-prof`, summarized per phase (the Deployment's start and delete, the direct creates).
const CPU_PROF = args.flag('cpu-prof');
const monoUs = () => Number(process.hrtime.bigint() / 1000n);
const ROUNDS = args.number('rounds', 1);
const POLL_MS = 1000;
const run = createBenchmarkRun('api-density', { keep: args.flag('keep') });
const seconds = (ms) => (ms === undefined ? null : round(ms / 1000, 2));

const controlPlaneDir = process.env.KUBELET_TS_CONTROL_PLANE_DIR || '/run/kubelet-ts-control-plane';
const cpEnvFile = path.join(controlPlaneDir, 'env');
if (!fs.existsSync(cpEnvFile)) throw new Error(`no ${cpEnvFile}: start the control plane with: bash scripts/control-plane.sh up`);
const cp = readEnvFile(cpEnvFile);

/** The pod of every phase, as an API object for the node (bound by nodeSelector, or directly by nodeName). */
function apiPod(name, namespace, nodeName, { direct }) {
  const pod = podManifest(name, { readiness: true, label: 'bench-api' });
  return {
    ...pod,
    metadata: { ...pod.metadata, namespace },
    spec: {
      ...pod.spec,
      ...(direct ? { nodeName } : { nodeSelector: { 'kubernetes.io/hostname': nodeName } }),
      // The service-account token volume is not served by kubelet-ts yet (#17): both run without it.
      automountServiceAccountToken: false,
      terminationGracePeriodSeconds: 1,
    },
  };
}

/** Requests of `user` in the audit log after byte `from`, counted by "VERB resource[/subresource]". */
function auditCounts(file, from, user) {
  const fd = fs.openSync(file, 'r');
  const size = fs.fstatSync(fd).size;
  const buffer = Buffer.alloc(size - from);
  fs.readSync(fd, buffer, 0, buffer.length, from);
  fs.closeSync(fd);
  const counts = {};
  for (const line of buffer.toString('utf8').split('\n')) {
    if (!line.includes(user)) continue;
    let e;
    try {
      e = JSON.parse(line);
    } catch {
      continue;
    }
    // A watch logs ResponseStarted when it opens and ResponseComplete when it ends: count it once, at its start.
    const counted = e.verb === 'watch' ? e.stage === 'ResponseStarted' : e.stage === 'ResponseComplete';
    if (e.user?.username !== user || !counted) continue;
    const resource = `${e.objectRef?.resource ?? e.requestURI}${e.objectRef?.subresource ? `/${e.objectRef.subresource}` : ''}`;
    const key = `${e.verb} ${resource}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  const sorted = Object.fromEntries(Object.entries(counts).sort((a, b) => b[1] - a[1]));
  return { counts: sorted, total: Object.values(counts).reduce((a, b) => a + b, 0) };
}

/** The same, per minute of a window of `windowMs`. */
function auditRates(file, from, user, windowMs) {
  const { counts } = auditCounts(file, from, user);
  const perMinute = Object.fromEntries(Object.entries(counts).map(([k, n]) => [k, round((n / windowMs) * 60_000, 1)]));
  return {
    perMinute,
    total: round(
      Object.values(perMinute).reduce((a, b) => a + b, 0),
      1,
    ),
  };
}

/**
 * Where each pod's time went, from the pods' own timestamps (whole seconds, as the API stores them):
 * created → scheduled (the scheduler; direct creates have no such step), scheduled or created → its
 * container started (the kubelet and the runtime), started → Ready in the API (the readiness probe and
 * the status manager), and every step's end counted from `t0` (the phase's start). Seconds.
 */
function podTimeline(pods, t0) {
  const at = (s) => (s === undefined ? undefined : Date.parse(s));
  const condition = (p, type) => at(p.status?.conditions?.find((c) => c.type === type)?.lastTransitionTime);
  const rows = pods.map((p) => {
    const created = at(p.metadata?.creationTimestamp);
    const scheduled = p.spec?.nodeSelector ? condition(p, 'PodScheduled') : undefined;
    const started = at(p.status?.containerStatuses?.[0]?.state?.running?.startedAt);
    const ready = condition(p, 'Ready');
    return { created, scheduled, started, ready };
  });
  const span = (from, to) => summarize(rows.map((r) => (r[from] === undefined || r[to] === undefined ? NaN : (r[to] - r[from]) / 1000)));
  const since = (key) => summarize(rows.map((r) => (r[key] === undefined ? NaN : (r[key] - t0) / 1000)));
  return {
    createdToScheduled: span('created', 'scheduled'),
    toStarted: summarize(rows.map((r) => ((r.started ?? NaN) - (r.scheduled ?? r.created ?? NaN)) / 1000)),
    startedToReady: span('started', 'ready'),
    created: since('created'),
    started: since('started'),
    ready: since('ready'),
  };
}

async function waitFor(what, fn, timeoutMs = TIMEOUT_MS, check = () => undefined) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    check();
    const value = await fn().catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(POLL_MS);
  }
}

/**
 * The benchmark's pods in `ns`, watched: `until(what, predicate, check)` resolves with the Date.now() of
 * the event after which `predicate(pods)` first holds (checked on every event and every second, when
 * `check` also runs: it throws when the kubelet died).
 */
function watchPods(admin, ns, signal) {
  const informer = createInformer({
    client: admin,
    path: `/api/v1/namespaces/${ns}/pods`,
    labelSelector: 'benchmark=bench-api',
    // Unvalidated, as the kubelet's own pod informer keeps them: the bench reads a few fields only.
    schema: z.unknown(),
    logger: noopLogger,
    clock: systemClock,
  });
  informer.start(signal);
  return {
    list: () => informer.list(),
    until: (what, predicate, check) =>
      new Promise((resolve, reject) => {
        const deadline = Date.now() + TIMEOUT_MS;
        let settled = false;
        let unsubscribe;
        const finish = (settle) => {
          if (settled) return;
          settled = true;
          clearInterval(timer);
          unsubscribe?.();
          settle();
        };
        const test = () => {
          if (settled || !informer.hasSynced() || !predicate(informer.list())) return;
          const at = Date.now();
          finish(() => resolve(at));
        };
        const timer = setInterval(() => {
          try {
            check();
            if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
            test();
          } catch (err) {
            finish(() => reject(err));
          }
        }, POLL_MS);
        // It calls onAdd for what is stored already, so the predicate may hold before it returns.
        unsubscribe = informer.addEventHandler({ onAdd: test, onUpdate: test, onDelete: test });
        if (settled) unsubscribe();
      }),
  };
}

/** Runs every phase against one kubelet (started by `start`, which returns { nodeName, pid, stop, check }). */
async function measure(label, admin, start, round) {
  const ns = `bench-api-${label}-${round}-${process.pid}`;
  await admin.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  run.defer(`delete namespace ${ns}`, () => admin.delete(`/api/v1/namespaces/${ns}`).catch(() => undefined));
  // A run cut short leaves its pods running in containerd once the kubelet stopped: the next would inherit them.
  run.defer(`remove the sandboxes of ${ns}`, async () => {
    const c = await connectCri();
    try {
      await removeSandboxes(c, (s) => s.metadata?.namespace === ns);
    } finally {
      c.cri.close();
    }
  });
  const stopWatching = new AbortController();
  run.defer(`stop watching ${ns}`, () => stopWatching.abort());
  const watched = watchPods(admin, ns, stopWatching.signal);
  const pods = async () => watched.list();
  const allReady = (list) => list.length === PODS && list.every(isReady);
  const noneLeft = (list) => list.length === 0;

  const t0 = Date.now();
  const k = await start();
  // Cleanups run last-registered first: the node goes after its kubelet stopped (the pod GC then deletes what is left).
  run.defer(`delete node ${k.nodeName}`, () => admin.delete(`/api/v1/nodes/${k.nodeName}`).catch(() => undefined));
  run.defer(`stop ${label}`, () => k.stop());
  // Ready, and schedulable: the controller manager has removed the node.kubernetes.io/not-ready taint
  // (pods created before that wait in the scheduler's back-off, which is not the kubelet's time).
  await waitFor(
    `${label}: node ${k.nodeName} Ready and untainted`,
    async () => {
      const node = await admin.get(`/api/v1/nodes/${k.nodeName}`);
      const ready = node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      return ready && (node.spec?.taints ?? []).length === 0;
    },
    180_000,
    k.check,
  );
  const joinMs = Date.now() - t0;
  log(`${label}: node ${k.nodeName} Ready after ${seconds(joinMs)} s`);

  const template = apiPod('x', ns, k.nodeName, { direct: false });
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'bench', namespace: ns },
    spec: {
      replicas: PODS,
      selector: { matchLabels: { benchmark: 'bench-api' } },
      template: { metadata: { labels: { benchmark: 'bench-api' } }, spec: template.spec },
    },
  };
  const auditFile = path.join(cp.KUBELET_TS_CONTROL_PLANE_LOG_DIR, 'audit.log');
  const user = `system:node:${k.nodeName}`;
  const startFrom = fs.statSync(auditFile).size;
  const marks = { deploymentStartUs: monoUs() };
  const d0 = Date.now();
  await admin.create(`/apis/apps/v1/namespaces/${ns}/deployments`, deployment);
  const deploymentMs = (await watched.until(`${label}: ${PODS} deployment pods Ready`, allReady, k.check)) - d0;
  marks.deploymentEndUs = monoUs();
  // What the kubelet asked of the API server while the pods started (status patches, events, GETs).
  const startRequests = auditCounts(auditFile, startFrom, user);
  const deploymentTimeline = podTimeline(await pods(), d0);
  log(`${label}: ${PODS} pods of the Deployment Running and Ready after ${seconds(deploymentMs)} s; ${startRequests.total} API requests`);

  const auditFrom = fs.statSync(auditFile).size;
  const w0 = Date.now();
  const steady = await measureWindow(k.pid, STEADY_S);
  const requests = auditRates(auditFile, auditFrom, user, Date.now() - w0);
  log(`${label}: steady RSS ${steady.rssMiB.p50} MiB, CPU ${steady.cpuPercentOfOneCore} %, ${requests.total} API requests/min`);

  const deleteFrom = fs.statSync(auditFile).size;
  marks.deleteStartUs = monoUs();
  const x0 = Date.now();
  await admin.delete(`/apis/apps/v1/namespaces/${ns}/deployments/bench`, { body: { propagationPolicy: 'Background' } });
  const deleteMs = (await watched.until(`${label}: deployment pods gone`, noneLeft, k.check)) - x0;
  marks.deleteEndUs = monoUs();
  const deleteRequests = auditCounts(auditFile, deleteFrom, user);

  const names = podNames(PODS, 'api');
  marks.directStartUs = monoUs();
  const c0 = Date.now();
  await mapLimit(names, 20, (name) => admin.create(`/api/v1/namespaces/${ns}/pods`, apiPod(name, ns, k.nodeName, { direct: true })));
  const directMs = (await watched.until(`${label}: ${PODS} direct pods Ready`, allReady, k.check)) - c0;
  marks.directEndUs = monoUs();
  const directTimeline = podTimeline(await pods(), c0);
  log(`${label}: ${PODS} directly created pods Running and Ready after ${seconds(directMs)} s`);
  await mapLimit(names, 20, (name) => admin.delete(`/api/v1/namespaces/${ns}/pods/${name}`).catch(() => undefined));
  await watched.until(`${label}: direct pods gone`, noneLeft, k.check);
  stopWatching.abort();
  await k.stop();
  const cpuProfile = k.profileDir === undefined ? undefined : profilePhases(k.profileDir, marks);
  // A stopped kubelet's Node would go NotReady and keep the node lifecycle controller busy in later rounds.
  await admin.delete(`/api/v1/nodes/${k.nodeName}`).catch(() => undefined);
  return {
    nodeName: k.nodeName,
    joinSeconds: seconds(joinMs),
    deploymentReadySeconds: seconds(deploymentMs),
    deploymentDeleteSeconds: seconds(deleteMs),
    directReadySeconds: seconds(directMs),
    steady: { rssMiB: steady.rssMiB, cpuPercentOfOneCore: steady.cpuPercentOfOneCore, seconds: steady.seconds },
    apiRequestsPerMinute: requests,
    deploymentTimeline,
    directTimeline,
    deploymentStartRequests: startRequests,
    deploymentDeleteRequests: deleteRequests,
    ...(cpuProfile === undefined ? {} : { cpuProfile }),
  };
}

/** The CPU profile of one kubelet-ts run, summarized per phase (the profile's clock is the monotonic one of monoUs). */
function profilePhases(dir, marks) {
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (file === undefined) return { error: 'no .cpuprofile written' };
  const full = path.join(dir, file);
  return {
    deploymentStart: summarizeCpuProfile(full, { startUs: marks.deploymentStartUs, endUs: marks.deploymentEndUs, top: 30 }),
    deploymentDelete: summarizeCpuProfile(full, { startUs: marks.deleteStartUs, endUs: marks.deleteEndUs }),
    directStart: summarizeCpuProfile(full, { startUs: marks.directStartUs, endUs: marks.directEndUs, top: 30 }),
  };
}

function startOurs(round) {
  const nodeName = `bench-api-ts-${round}-${process.pid}`;
  return async () => {
    const baseDir = path.join(run.baseDir, `kubelet-ts-${round}`);
    fs.mkdirSync(baseDir, { recursive: true });
    const k = await startKubelet({
      baseDir,
      nodeName,
      criCallCounter: false,
      cpuProf: CPU_PROF,
      configLines: ['rotateCertificates: true'],
      kubeletArgs: [
        `--bootstrap-kubeconfig=${cp.KUBELET_TS_BOOTSTRAP_KUBECONFIG}`,
        `--kubeconfig=${path.join(baseDir, 'kubelet.kubeconfig')}`,
        `--cert-dir=${path.join(baseDir, 'pki')}`,
        `--node-ip=${cp.KUBELET_TS_NODE_IP}`,
        ...KUBELET_ARGS,
      ],
    });
    return {
      nodeName,
      pid: k.pid,
      stop: () => k.stop(),
      check: () => k.assertRunning('benchmarking'),
      ...(CPU_PROF ? { profileDir: k.dirs.prof } : {}),
    };
  };
}

function startUpstream(round) {
  return async () => {
    const dir = path.join(run.baseDir, `upstream-${round}`);
    const k = await startUpstreamKubelet({ env: { ...process.env, ...cp }, dir, log, nodeName: `bench-api-up-${round}-${process.pid}` });
    let stopped = false;
    return {
      nodeName: k.nodeName,
      pid: k.pid,
      stop: async () => {
        if (!stopped) await k.stop();
        stopped = true;
      },
      check: () => {
        try {
          process.kill(k.pid, 0);
        } catch {
          throw new Error(`the upstream kubelet exited; log ${k.logFile}`);
        }
      },
    };
  };
}

/** A table of where the pods' time went in one phase (p50 / max seconds, from the pods' timestamps). */
function timelineTable(title, field, a, b) {
  const cell = (r, key) => {
    const s = r?.[field]?.[key];
    return s === undefined || s.n === 0 ? '–' : `${s.p50} / ${s.max}`;
  };
  const rows = [
    ['created → scheduled (the scheduler)', 'createdToScheduled'],
    ['scheduled (or created) → container started (kubelet and runtime)', 'toStarted'],
    ['container started → Ready in the API (probe, status manager)', 'startedToReady'],
    ['phase start → pod created', 'created'],
    ['phase start → container started', 'started'],
    ['phase start → Ready in the API', 'ready'],
  ];
  return [
    `Per pod, ${title} (p50 / max s; the API keeps whole seconds):`,
    '',
    table(
      ['step', 'kubelet-ts', 'upstream kubelet'],
      rows.map(([name, key]) => [name, cell(a, key), cell(b, key)]),
    ),
  ];
}

/** A table of the kubelets' API requests in one phase, by verb and resource. */
function phaseRequests(title, field, a, b) {
  const keys = new Set([...Object.keys(a?.[field]?.counts ?? {}), ...Object.keys(b?.[field]?.counts ?? {})]);
  return [
    `API requests ${title}, by verb and resource:`,
    '',
    table(
      ['request', 'kubelet-ts', 'upstream kubelet'],
      [
        ...[...keys].sort().map((k) => [k, a?.[field]?.counts[k] ?? 0, b?.[field]?.counts[k] ?? 0]),
        ['total', a?.[field]?.total ?? null, b?.[field]?.total ?? null],
      ],
    ),
  ];
}

/**
 * One result of a kubelet's rounds: every time, RSS, CPU and request rate the median of the rounds; the
 * timelines and per-phase request tables those of its median round by the Deployment's time.
 */
function medianOfRounds(list) {
  const median = (f) => {
    const values = list
      .map(f)
      .filter((v) => typeof v === 'number')
      .sort((x, y) => x - y);
    if (values.length === 0) return undefined;
    const mid = Math.floor(values.length / 2);
    return values.length % 2 === 1 ? values[mid] : round((values[mid - 1] + values[mid]) / 2, 2);
  };
  const byDeployment = [...list].sort((x, y) => x.deploymentReadySeconds - y.deploymentReadySeconds);
  const typical = byDeployment[Math.floor((byDeployment.length - 1) / 2)];
  return {
    ...typical,
    medianRound: typical.round,
    joinSeconds: median((r) => r.joinSeconds),
    deploymentReadySeconds: median((r) => r.deploymentReadySeconds),
    deploymentDeleteSeconds: median((r) => r.deploymentDeleteSeconds),
    directReadySeconds: median((r) => r.directReadySeconds),
    steady: {
      ...typical.steady,
      rssMiB: { ...typical.steady.rssMiB, p50: median((r) => r.steady.rssMiB.p50) },
      cpuPercentOfOneCore: median((r) => r.steady.cpuPercentOfOneCore),
    },
    apiRequestsPerMinute: { ...typical.apiRequestsPerMinute, total: median((r) => r.apiRequestsPerMinute.total) },
  };
}

await run.main(async () => {
  const machine = machineInfo();
  await acquireLock();
  const connection = await loadKubeconfig(cp.KUBELET_TS_KUBECONFIG);
  const admin = createKubeClient({
    connection,
    name: 'bench',
    userAgent: 'kubelet-ts-bench',
    qps: -1,
    burst: 0,
    timeoutMs: 30_000,
    clock: systemClock,
    logger: noopLogger,
  });
  run.defer('close the admin client', () => admin.closeAllConnections());
  // Interleaved, in alternating order, so that a machine whose speed drifts weighs on both alike.
  const rounds = { kubeletTs: [], upstream: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    const order = [
      ...(ONLY !== 'upstream' ? [['kubeletTs', 'kubelet-ts', startOurs(round)]] : []),
      ...(ONLY !== 'kubelet-ts' ? [['upstream', 'upstream', startUpstream(round)]] : []),
    ];
    if (round % 2 === 0) order.reverse();
    for (const [key, label, start] of order) {
      log(`round ${round} of ${ROUNDS}: ${label}`);
      rounds[key].push({ round, ...(await measure(label, admin, start, round)) });
    }
  }
  const results = {};
  if (rounds.kubeletTs.length > 0) results.kubeletTs = medianOfRounds(rounds.kubeletTs);
  if (rounds.upstream.length > 0) results.upstream = medianOfRounds(rounds.upstream);
  const a = results.kubeletTs;
  const b = results.upstream;
  const ratios =
    a && b
      ? {
          deploymentReady: ratio(a.deploymentReadySeconds, b.deploymentReadySeconds),
          directReady: ratio(a.directReadySeconds, b.directReadySeconds),
          deploymentDelete: ratio(a.deploymentDeleteSeconds, b.deploymentDeleteSeconds),
          steadyRss: ratio(a.steady.rssMiB.p50, b.steady.rssMiB.p50),
          steadyCpu: ratio(a.steady.cpuPercentOfOneCore, b.steady.cpuPercentOfOneCore),
          apiRequestsPerMinute: ratio(a.apiRequestsPerMinute.total, b.apiRequestsPerMinute.total),
        }
      : undefined;
  const result = {
    benchmark: 'api-density',
    date: new Date().toISOString(),
    machine,
    pods: PODS,
    steadySeconds: STEADY_S,
    rounds: ROUNDS,
    kubernetes: cp.KUBELET_TS_K8S_VERSION,
    results,
    everyRound: rounds,
    ratios,
  };
  // With rounds: the median, then every round's value in the order run.
  const valueOf = (key, f) => {
    const median = f(results[key]);
    return ROUNDS > 1 && median !== undefined ? `${median} (${rounds[key].map(f).join(', ')})` : median;
  };
  const row = (name, f) => [name, valueOf('kubeletTs', f), valueOf('upstream', f), ratios ? ratios[name] : null];
  const keys = new Set([...Object.keys(a?.apiRequestsPerMinute.perMinute ?? {}), ...Object.keys(b?.apiRequestsPerMinute.perMinute ?? {})]);
  const md = [
    `# api-density — ${PODS} pods through the API server (${result.date})`,
    '',
    machineLine(machine),
    '',
    ...(ROUNDS > 1
      ? [
          `${ROUNDS} rounds, interleaved in alternating order; each value is the median of the rounds (every round's in brackets, in the order run); the per-pod and per-phase tables below are of each kubelet's median round (by the Deployment's time).`,
          '',
        ]
      : []),
    table(
      ['measure', 'kubelet-ts', 'upstream kubelet', 'ratio'],
      [
        [
          'join: start → Node Ready, untainted (s; includes the controller manager)',
          valueOf('kubeletTs', (r) => r?.joinSeconds),
          valueOf('upstream', (r) => r?.joinSeconds),
          null,
        ],
        row('deploymentReady', (r) => r?.deploymentReadySeconds),
        row('directReady', (r) => r?.directReadySeconds),
        row('deploymentDelete', (r) => r?.deploymentDeleteSeconds),
        row('steadyRss', (r) => r?.steady.rssMiB.p50),
        row('steadyCpu', (r) => r?.steady.cpuPercentOfOneCore),
        row('apiRequestsPerMinute', (r) => r?.apiRequestsPerMinute.total),
      ],
    ),
    '',
    `API requests per minute at steady state (${STEADY_S} s, ${PODS} pods), by verb and resource:`,
    '',
    table(
      ['request', 'kubelet-ts', 'upstream kubelet'],
      [...keys].sort().map((k) => [k, a?.apiRequestsPerMinute.perMinute[k] ?? 0, b?.apiRequestsPerMinute.perMinute[k] ?? 0]),
    ),
    '',
    ...timelineTable('the Deployment', 'deploymentTimeline', a, b),
    '',
    ...timelineTable('the direct creates', 'directTimeline', a, b),
    '',
    ...phaseRequests("while the Deployment's pods started (create → all Ready)", 'deploymentStartRequests', a, b),
    '',
    ...phaseRequests("while the Deployment's pods were deleted (delete → none left)", 'deploymentDeleteRequests', a, b),
  ].join('\n');
  const out = args.option('out', undefined);
  const files = writeResults('api-density', result, md, { out });
  log(`results: ${files.json}, ${files.md}`);
  process.stdout.write(`${md}\n`);
});
