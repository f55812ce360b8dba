// The drift check: --cycles (5) start/stop cycles of --pods (110) static pods in a row, one kubelet-ts
// session. Each cycle writes every manifest at once, waits until every container runs (CRI), deletes
// them all and waits until every sandbox is gone. Before the first cycle and after each one, with the
// node idle again, it takes the node's levels: mounts, containerd shims, network namespaces, NAT rules,
// cgroups under the kubelet's cgroup root, the kubelet's open file descriptors and its live heap (a heap
// snapshot, which collects garbage first; its RSS is not a level: snapshots themselves grow it).
// Passes when the last cycle's start and stop are within --tolerance (10 %) of the first's, every
// runtime level is back where it started, and the kubelet's fds and heap after the last cycle are
// back at their level after the first (the first cycle warms caches up: compiled code, pools, maps).
// A leak that makes a long-lived node slower over days shows here.
//
// Usage: node bench/drift/run.mjs [--pods 110] [--cycles 5] [--tolerance 0.1] [--out <file.json>] [--keep]
// Needs `bash scripts/test-runtime.sh up`; holds the integration lock while it measures.
import fs from 'node:fs';
import path from 'node:path';
import { connectCri, removeCgroupTree, removeSandboxes } from '../lib/cri.mjs';
import { env, log, parseArgs, sleep } from '../lib/env.mjs';
import { startKubelet, writeManifests } from '../lib/kubelet.mjs';
import { acquireLock, releaseLock } from '../lib/lock.mjs';
import { machineInfo, machineLine } from '../lib/machine.mjs';
import { nodeLevels } from '../lib/levels.mjs';
import { waitForQuiet } from '../lib/proc.mjs';
import { summarizeHeapSnapshot } from '../lib/profile.mjs';
import { podManifest, podNames } from '../lib/pods.mjs';
import { table, writeResults } from '../lib/report.mjs';
import { createBenchmarkRun } from '../lib/run.mjs';
import { round } from '../lib/stats.mjs';

const args = parseArgs();
const PODS = args.number('pods', 110);
const CYCLES = args.number('cycles', 5);
const TOLERANCE = args.number('tolerance', 0.1);
// Times within this many seconds of the first cycle's pass whatever the ratio: housekeeping, which removes
// the sandboxes, runs every 2 s.
const SLACK_S = args.number('slack-seconds', 2);
const TIMEOUT_MS = args.number('timeout', 300) * 1000;
const POLL_MS = 500;
const run = createBenchmarkRun('drift', { keep: args.flag('keep') });

/** Polls CRI until `done(running, sandboxes)`; returns the ms it took from `t0`. */
async function waitRuntime(cri, isOurs, done, t0, what, check) {
  for (;;) {
    const [containers, sandboxes] = await Promise.all([
      cri.runtime.listContainers({ filter: { state: { state: 'CONTAINER_RUNNING' } } }),
      cri.runtime.listPodSandbox({}),
    ]);
    const running = containers.containers.filter((c) => isOurs(c.labels?.['io.kubernetes.pod.name'] ?? '')).length;
    const ours = sandboxes.items.filter((s) => isOurs(s.metadata?.name ?? '')).length;
    if (done(running, ours)) return performance.now() - t0;
    check();
    if (performance.now() - t0 > TIMEOUT_MS) throw new Error(`timed out ${what} (${running} running, ${ours} sandboxes)`);
    await sleep(POLL_MS);
  }
}

await run.main(async () => {
  const machine = machineInfo();
  const c = await connectCri();
  run.defer('close the CRI client', () => c.cri.close());
  const socket = env('KUBELET_TS_CRI_ENDPOINT').replace(/^unix:\/\//, '');
  const names = podNames(PODS, 'drift');
  const nodeName = `bench-drift-${process.pid}`;
  const isOurs = (name) => name.endsWith(`-${nodeName}`);

  await acquireLock();
  log(`holding the integration lock; work dir ${run.baseDir}`);
  const kubeletDir = path.join(run.baseDir, 'kubelet-ts');
  fs.mkdirSync(kubeletDir);
  const kubelet = await startKubelet({ baseDir: kubeletDir, nodeName, heapSnapshots: true });
  run.defer('remove the kubelet cgroup root', () => removeCgroupTree(kubelet.cgroupRoot));
  run.defer('remove the kubelet pods', () => removeSandboxes(c, (s) => isOurs(s.metadata.name)));
  run.defer('stop the kubelet', () => kubelet.stop());
  const check = () => kubelet.assertRunning('the drift check ran');
  // The heap is compared between the first cycle and the last: only there a snapshot (seconds each).
  const levels = async ({ heap }) => {
    // Idle again: the teardown's last CNI DEL and cgroup removals are done once the machine is quiet.
    await waitForQuiet();
    const heapMiB = heap ? round(summarizeHeapSnapshot(await kubelet.takeHeapSnapshot()).totalMiB, 1) : null;
    return { ...nodeLevels(kubelet, socket), kubeletHeapMiB: heapMiB };
  };
  await sleep(2000);
  const before = await levels({ heap: true });
  log(`levels before: ${JSON.stringify(before)}`);
  const cycles = [];
  for (let i = 1; i <= CYCLES; i += 1) {
    const pods = names.map((name) => ({ name, manifest: podManifest(name, { readiness: true, label: 'drift' }) }));
    const t0 = writeManifests(kubelet, pods, kubeletDir);
    const startMs = await waitRuntime(c.cri, isOurs, (running) => running >= PODS, t0, `starting cycle ${i}`, check);
    const s0 = performance.now();
    for (const name of names) fs.unlinkSync(path.join(kubelet.dirs.manifests, `${name}.json`));
    const stopMs = await waitRuntime(
      c.cri,
      isOurs,
      (running, sandboxes) => running === 0 && sandboxes === 0,
      s0,
      `stopping cycle ${i}`,
      check,
    );
    const after = await levels({ heap: i === 1 || i === CYCLES });
    cycles.push({ cycle: i, startSeconds: round(startMs / 1000, 2), stopSeconds: round(stopMs / 1000, 2), levels: after });
    log(`cycle ${i}: all running ${round(startMs / 1000, 2)} s, all gone ${round(stopMs / 1000, 2)} s; ${JSON.stringify(after)}`);
  }
  await kubelet.stop();
  releaseLock();

  const first = cycles[0];
  const last = cycles.at(-1);
  const within = (a, b) => b <= a * (1 + TOLERANCE) || b - a <= SLACK_S;
  const RUNTIME_LEVELS = ['mounts', 'shims', 'networkNamespaces', 'natRules', 'cgroups'];
  const checks = {
    startWithinTolerance: within(first.startSeconds, last.startSeconds),
    stopWithinTolerance: within(first.stopSeconds, last.stopSeconds),
    ...Object.fromEntries(RUNTIME_LEVELS.map((k) => [`${k}BackToStart`, last.levels[k] === before[k]])),
    // A few fds come and go with timers and watches; a leak grows them with every cycle.
    kubeletFdsBackToFirstCycle: last.levels.kubeletFds <= first.levels.kubeletFds + 2,
    kubeletHeapBackToFirstCycle: last.levels.kubeletHeapMiB <= first.levels.kubeletHeapMiB * (1 + TOLERANCE),
  };
  const passed = Object.values(checks).every(Boolean);
  const result = {
    benchmark: 'drift',
    date: new Date().toISOString(),
    command: `node bench/drift/run.mjs ${args.argv.join(' ')}`.trim(),
    kubeletCommand: kubelet.command,
    machine,
    runtime: { containerd: process.env.KUBELET_TS_CONTAINERD_VERSION },
    pods: PODS,
    tolerance: TOLERANCE,
    before,
    cycles,
    checks,
    passed,
  };
  const levelNames = Object.keys(before);
  const md = [
    `# Drift check — ${result.date}`,
    '',
    `\`${result.command}\` — ${CYCLES} cycles of ${PODS} pods written at once → all running → all deleted → every sandbox gone, one kubelet-ts session; containerd ${result.runtime.containerd ?? '?'}.`,
    '',
    `Machine: ${machineLine(machine)}.`,
    '',
    table(
      ['', 'all running (s)', 'all gone (s)', ...levelNames],
      [
        ['before', null, null, ...levelNames.map((k) => before[k])],
        ...cycles.map((cy) => [`after cycle ${cy.cycle}`, cy.startSeconds, cy.stopSeconds, ...levelNames.map((k) => cy.levels[k])]),
      ],
    ),
    '',
    `Checks: ${Object.entries(checks)
      .map(([k, ok]) => `${k} ${ok ? 'ok' : '**FAILED**'}`)
      .join(', ')}.`,
    '',
    `Drift check: ${passed ? 'passed' : '**failed**'}.`,
  ].join('\n');
  const files = writeResults('drift', result, md, { out: args.option('out') });
  process.stdout.write(`${md}\n\nresults: ${files.json}, ${files.md}\n`);
  if (!passed) throw new Error('the drift check failed');
});
