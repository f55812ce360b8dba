// Puts the latest results of the benchmarks together: one table with the targets (issue 21), the
// upstream kubelet's figures beside kubelet-ts's, the ratios to it, to the direct-CRI baseline and to
// podman, the machine and its load. Writes
// bench/results/latest.{md,json} and, with --update-docs, replaces the table between the
// `bench-summary` markers of docs/performance.md.
// Usage: node bench/summary.mjs [--update-docs]
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, parseArgs } from './lib/env.mjs';
import { machineLine } from './lib/machine.mjs';
import { RESULTS_DIR, readLatest, table } from './lib/report.mjs';
import { ratio } from './lib/stats.mjs';

const args = parseArgs();
const podman = readLatest('podman');
const mark = (ok) => (ok === null || ok === undefined ? '–' : ok ? 'met' : '**not met**');
const pair = (a, b, unit = '') => (a === null || a === undefined ? '–' : `${a} / ${b}${unit}`);
const runtimeOf = (r) => (r.runtime?.containerd ? `, containerd ${r.runtime.containerd}` : '');

const atMost = (value, limit) => (value === null || value === undefined ? null : value <= limit);
const both = (...oks) => (oks.some((ok) => ok === null) ? null : oks.every(Boolean));

/** The table rows and targets of one runtime's results. */
function summarizeRuntime({ start, density, drift }) {
  const rows = [];
  const targets = {};
  let podmanRatio = null;
  if (start) {
    const k = start.kubelet;
    const u = start.upstream;
    const b = start.baseline;
    const r = start.ratios;
    targets.startLatencyVsBaseline = both(atMost(r.runningP50, 1.1), atMost(r.runningP99, 1.1));
    targets.startLatencyVsUpstream = both(atMost(r.vsUpstream?.runningP50, 1.0), atMost(r.vsUpstream?.runningP99, 1.0));
    rows.push([
      `Start latency, ${start.pods} pods one after another: manifest → container running (CRI), p50 / p99`,
      pair(k.runningMs.p50, k.runningMs.p99, ' ms'),
      pair(u?.runningMs.p50, u?.runningMs.p99, ' ms'),
      pair(b.runningMs.p50, b.runningMs.p99, ' ms'),
      pair(r.vsUpstream?.runningP50, r.vsUpstream?.runningP99),
      pair(r.runningP50, r.runningP99),
      '≤ 1.0 × upstream, ≤ 1.1 × baseline',
      mark(both(targets.startLatencyVsUpstream, targets.startLatencyVsBaseline)),
    ]);
    rows.push([
      'Start latency: manifest → Ready in /pods, p50 / p99',
      pair(k.readyMs.p50, k.readyMs.p99, ' ms'),
      pair(u?.readyMs.p50, u?.readyMs.p99, ' ms'),
      '',
      pair(r.vsUpstream?.readyP50, r.vsUpstream?.readyP99),
      pair(r.readyP50, r.readyP99),
      '',
      '',
    ]);
  }
  if (density) {
    const d = density.density;
    const up = density.upstream;
    const vs = density.ratios.vsUpstream ?? {};
    podmanRatio = ratio(d.allRunningSeconds, podman?.start.allRunningSeconds, 3);
    targets.densityVsUpstream = atMost(vs.densityAllRunning, 1.0);
    targets.densityVsBaseline = atMost(density.ratios.densityAllRunning, 1.1);
    rows.push([
      `Density: ${density.pods} pods written at once → all running (CRI)`,
      `${d.allRunningSeconds} s`,
      up ? `${up.density.allRunningSeconds} s` : '–',
      `${density.baseline?.allRunningSeconds ?? '–'} s`,
      vs.densityAllRunning ?? '–',
      density.ratios.densityAllRunning ?? '–',
      `≤ 1.0 × upstream, ≤ 1.1 × baseline (podman kube play ${podman?.start.allRunningSeconds ?? '–'} s: ${podmanRatio ?? '–'} × podman)`,
      mark(both(targets.densityVsUpstream, targets.densityVsBaseline)),
    ]);
    rows.push([
      'Density: → all Ready in /pods (readiness probe every 10 s)',
      `${d.allReadySeconds} s`,
      up ? `${up.density.allReadySeconds} s` : '–',
      '',
      vs.densityAllReady ?? '–',
      '',
      '',
      '',
    ]);
    const idle = density.footprint.idle;
    const steady = density.footprint.steady;
    const upIdle = up?.footprint.idle;
    const upSteady = up?.footprint.steady;
    targets.rss = both(atMost(steady.rssMiB.max, 100), atMost(vs.steadyRss, 1.0));
    targets.cpu = atMost(vs.steadyCpu, 1.0);
    rows.push([
      `Footprint idle, no pods (${idle.seconds} s): CPU % of one core / RSS MiB max`,
      `${idle.cpuPercentOfOneCore} % / ${idle.rssMiB.max} MiB`,
      upIdle ? `${upIdle.cpuPercentOfOneCore} % / ${upIdle.rssMiB.max} MiB` : '–',
      '',
      pair(vs.idleCpu, vs.idleRss),
      '',
      '',
      '',
    ]);
    rows.push([
      `Footprint steady, ${density.pods} pods (${steady.seconds} s): RSS MiB max (p50)`,
      `${steady.rssMiB.max} MiB (${steady.rssMiB.p50})`,
      upSteady ? `${upSteady.rssMiB.max} MiB (${upSteady.rssMiB.p50})` : '–',
      '',
      vs.steadyRss ?? '–',
      '',
      '≤ upstream, ≤ 100 MiB',
      mark(targets.rss),
    ]);
    rows.push([
      `Footprint steady, ${density.pods} pods: CPU % of one core`,
      `${steady.cpuPercentOfOneCore} %`,
      upSteady ? `${upSteady.cpuPercentOfOneCore} %` : '–',
      '',
      vs.steadyCpu ?? '–',
      '',
      '≤ upstream',
      mark(targets.cpu),
    ]);
    targets.criCalls = atMost(vs.steadyCriCallsPerSecond, 1.0);
    rows.push([
      'CRI calls per second, counted by containerd: idle / steady',
      `${idle.criCalls.perSecond} / ${steady.criCalls.perSecond}`,
      upIdle ? `${upIdle.criCalls.perSecond} / ${upSteady.criCalls.perSecond}` : '–',
      '',
      vs.steadyCriCallsPerSecond ?? '–',
      '',
      '≤ upstream (steady)',
      mark(targets.criCalls),
    ]);
    const s = density.stop;
    const us = up?.stop;
    targets.stopVsUpstream = atMost(vs.stopSandboxesGone, 1.0);
    targets.stopVsBaseline = atMost(density.ratios.stopSandboxesGone, 1.1);
    rows.push([
      `Stop latency: delete ${density.pods} pods → every sandbox gone (containers stopped; sandboxes stopped)`,
      `${s.sandboxesGoneSeconds} s (${s.containersStoppedSeconds}; ${s.sandboxesStoppedSeconds})`,
      us ? `${us.sandboxesGoneSeconds} s (${us.containersStoppedSeconds}; ${us.sandboxesStoppedSeconds})` : '–',
      `${density.baseline?.stopAndRemoveSeconds ?? '–'} s`,
      vs.stopSandboxesGone ?? '–',
      density.ratios.stopSandboxesGone ?? '–',
      `≤ 1.0 × upstream, ≤ 1.1 × baseline${podman ? ` (podman kube down: ${podman.stop.kubeDownReturnedSeconds} s)` : ''}`,
      mark(both(targets.stopVsUpstream, targets.stopVsBaseline)),
    ]);
  }

  if (drift) {
    const first = drift.cycles[0];
    const last = drift.cycles.at(-1);
    targets.drift = drift.passed;
    rows.push([
      `Drift: ${drift.cycles.length} cycles of ${drift.pods} pods, first → last cycle: all running / all gone (s); mounts, shims, netns, NAT rules, cgroups, fds, heap back`,
      `${first.startSeconds} → ${last.startSeconds} / ${first.stopSeconds} → ${last.stopSeconds} s; heap ${first.levels.kubeletHeapMiB} → ${last.levels.kubeletHeapMiB} MiB`,
      '',
      '',
      '',
      '',
      'last within 10 % of first, every level back',
      mark(drift.passed),
    ]);
  }
  return { rows, targets, podmanRatio };
}

// Per runtime (bench/run-all.sh runs containerd 2, then 1.6): each benchmark's latest result on it; results
// from before per-runtime files count as the runtime they name.
const majorOf = (r) => (r?.runtime?.containerd ? String(r.runtime.containerd).split('.')[0] : undefined);
const runtimes = ['2', '1']
  .map((major) => {
    const pick = (benchmark) => {
      const own = readLatest(benchmark, `containerd${major}`);
      if (own) return own;
      const latest = readLatest(benchmark);
      return majorOf(latest) === major ? latest : null;
    };
    return { major, start: pick('start-latency'), density: pick('density'), drift: pick('drift') };
  })
  .filter((r) => r.start || r.density || r.drift);
const summaries = runtimes.map((r) => ({ ...r, ...summarizeRuntime(r) }));
const density = summaries[0]?.density ?? readLatest('density');
const targets = Object.fromEntries(summaries.map((s) => [`containerd${s.major}`, s.targets]));
const podmanRatio = summaries[0]?.podmanRatio ?? null;

// Where the machine's CPU went while the pods started (bench/lib/proc.mjs startCpuAccount): the
// kubelet's share, the runtime's, and what podman leaves idle.
const cpuRows = [];
const accounts = [
  density?.density.cpuAccount,
  density?.upstream?.density.cpuAccount,
  density?.baseline?.cpuAccount,
  podman?.start.cpuAccount,
];
if (accounts.some(Boolean)) {
  const sum = (account, re) =>
    account ? Math.round(Object.entries(account.byComponent).reduce((a, [name, s]) => (re.test(name) ? a + s : a), 0) * 10) / 10 : '–';
  const cell = (account, f) => (account ? f(account) : '–');
  cpuRows.push([
    'all containers running after (s)',
    density?.density.allRunningSeconds ?? '–',
    density?.upstream?.density.allRunningSeconds ?? '–',
    density?.baseline?.allRunningSeconds ?? '–',
    podman?.start.allRunningSeconds ?? '–',
  ]);
  cpuRows.push(['machine busy / idle (CPU-s)', ...accounts.map((a) => cell(a, (x) => `${x.busyCpuSeconds} / ${x.idleCpuSeconds}`))]);
  cpuRows.push(['the kubelet (CPU-s)', sum(accounts[0], /^kubelet$/), sum(accounts[1], /^kubelet$/), '–', '–']);
  cpuRows.push([
    'the runtime: containerd, CNI, shims, runc / podman, netavark, conmon, runc (CPU-s)',
    ...accounts.map((a) => sum(a, /containerd|podman|conmon/)),
  ]);
  cpuRows.push(["the pods' processes: runc init, pause, http-echo (CPU-s)", ...accounts.map((a) => sum(a, /^pod processes/))]);
  cpuRows.push([
    'machine busy per pod (CPU-s)',
    ...accounts.map((a) => cell(a, (x) => Math.round((x.busyCpuSeconds / (density?.pods ?? podman?.pods ?? 1)) * 100) / 100)),
  ]);
}

const sources = [...summaries.flatMap((s) => [s.start, s.density, s.drift]), podman].filter(Boolean);
const versionOf = (s) => [s.start, s.density, s.drift].find((r) => r?.runtime?.containerd)?.runtime.containerd ?? s.major;
const md = [
  ...summaries.flatMap((s) => [
    `**containerd ${versionOf(s)}**`,
    '',
    table(
      [
        'benchmark',
        'kubelet-ts',
        'upstream kubelet',
        'direct CRI baseline',
        'kubelet-ts ÷ upstream',
        'kubelet-ts ÷ baseline',
        'target',
        '',
      ],
      s.rows,
    ),
    '',
  ]),
  ...(cpuRows.length > 0
    ? [
        table(
          [
            `CPU while the ${density?.pods ?? podman?.pods} pods start (whole machine${density?.runtime?.containerd ? `, containerd ${density.runtime.containerd}` : ''})`,
            'kubelet-ts',
            'upstream kubelet',
            'direct CRI baseline',
            'podman kube play',
          ],
          cpuRows,
        ),
        '',
      ]
    : []),
  ...sources.map((r) => `- \`${r.benchmark}\` (${r.date}, \`${r.command}\`${runtimeOf(r)}): ${machineLine(r.machine)}.`),
].join('\n');
const json = {
  date: new Date().toISOString(),
  targets,
  podmanRatio,
  results: Object.fromEntries(sources.map((r) => [r.benchmark, path.join('bench/results', r.benchmark, 'latest.json')])),
};
fs.writeFileSync(path.join(RESULTS_DIR, 'latest.md'), `${md}\n`);
fs.writeFileSync(path.join(RESULTS_DIR, 'latest.json'), `${JSON.stringify(json, null, 2)}\n`);

if (args.flag('update-docs')) {
  const doc = path.join(REPO_ROOT, 'docs/performance.md');
  const text = fs.readFileSync(doc, 'utf8');
  const begin = '<!-- bench-summary:start (written by node bench/summary.mjs --update-docs) -->';
  const end = '<!-- bench-summary:end -->';
  const i = text.indexOf(begin);
  const j = text.indexOf(end);
  if (i < 0 || j < i) throw new Error(`${doc} has no ${begin} … ${end} block`);
  fs.writeFileSync(doc, `${text.slice(0, i + begin.length)}\n${md}\n${text.slice(j)}`);
}
process.stdout.write(`${md}\n`);
