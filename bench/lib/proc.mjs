// /proc readers: a process's CPU time and RSS, the machine's busy time, and a sampler that
// measures one process over a window (RSS every second, CPU as utime+stime delta).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, sleep } from './env.mjs';
import { round, summarize } from './stats.mjs';

const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** utime + stime of a process (+ cutime + cstime of its reaped children), in ms; undefined when it is gone. */
export function cpuMs(pid, withChildren = false) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields 14–17 of proc(5): utime, stime, cutime, cstime
    const ticks = Number(fields[11]) + Number(fields[12]) + (withChildren ? Number(fields[13]) + Number(fields[14]) : 0);
    return (ticks * 1000) / CLK_TCK;
  } catch {
    return undefined;
  }
}

/** VmRSS in MiB; undefined when the process is gone. */
export function rssMiB(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Busy and total jiffies of the whole machine (/proc/stat). */
export function machineCpu() {
  const [, ...values] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  const total = values.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

export const loadAverage = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);

/** PIDs of the containerd shims serving the socket `socket`. */
export function shimPids(socket) {
  const pids = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes('containerd-shim') && cmdline.includes(socket)) pids.push(Number(entry));
    } catch {
      // exited
    }
  }
  return pids;
}

/** Every process's CPU (own + reaped children, ms) and a short name, to say what else used the machine. */
export function processCpuSnapshot() {
  const snapshot = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const ms = cpuMs(entry, true);
    if (ms === undefined) continue;
    let name;
    try {
      const argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
      const exe = path.basename(argv[0] ?? '');
      // The kubelet runs as `node --require <counter> apps/kubelet/dist/main.js …`: its script is not the first non-option.
      const script =
        exe === 'node' || exe.startsWith('node')
          ? (argv.find((a) => a.endsWith('apps/kubelet/dist/main.js')) ?? argv.slice(1).find((a) => !a.startsWith('-')))
          : undefined;
      name = script ? `node ${script.replace(`${REPO_ROOT}/`, '')}` : exe || `[${entry}]`;
    } catch {
      continue;
    }
    snapshot.set(entry, { name, ms });
  }
  return snapshot;
}

/** CPU per process name between two snapshots (a process born in between counts from zero), % of one core. */
export function topProcesses(before, after, windowMs, n = 8) {
  const byName = new Map();
  for (const [pid, { name, ms }] of after) {
    const delta = ms - (before.get(pid)?.ms ?? 0);
    if (delta > 0) byName.set(name, (byName.get(name) ?? 0) + delta);
  }
  return [...byName.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, ms]) => ({ name, cpuPercentOfOneCore: round((ms / windowMs) * 100) }));
}

export const PODMAN_COMPONENT = 'podman (with netavark, runc start)';

/** Which part of a node a process belongs to, by its name in processCpuSnapshot. */
function componentOf(name) {
  if (name.startsWith('node ') && name.includes('apps/kubelet/dist/main.js')) return 'kubelet';
  if (name === 'kubelet') return 'kubelet'; // the upstream kubelet's binary
  if (name.startsWith('node bench/')) return 'bench runner';
  if (name === 'containerd') return 'containerd (with the CNI plugins it ran)';
  if (name.startsWith('containerd-shim')) return 'containerd shims (with runc)';
  if (name === 'podman') return PODMAN_COMPONENT;
  if (name === 'conmon') return 'conmon (with runc create)';
  if (name === 'pause' || name === 'http-echo') return 'pod processes (runc init, pause, http-echo)';
  if (/^\[\d+\]$/.test(name)) return 'kernel threads';
  return 'other';
}

/**
 * Waits until the machine is quiet: a 1-second window with at most `maxBusyPercent` of all cores busy,
 * for at most `maxWaitSeconds`. So that each start phase begins on a machine in the same state, whatever
 * ran before; the CPU itself is checked because the load average stays high (tasks in uninterruptible
 * sleep) for minutes after a 110-pod teardown. Returns the seconds waited and the busy % of each window.
 */
export async function waitForQuiet({ maxBusyPercent = 25, maxWaitSeconds = 15 } = {}) {
  const start = Date.now();
  const windows = [];
  for (;;) {
    const a = machineCpu();
    await sleep(1000);
    const b = machineCpu();
    const busy = round((100 * (b.busy - a.busy)) / Math.max(1, b.total - a.total));
    windows.push(busy);
    if (busy <= maxBusyPercent || Date.now() - start >= maxWaitSeconds * 1000) {
      return { waitedSeconds: round((Date.now() - start) / 1000), quiet: busy <= maxBusyPercent, busyPercentPerSecond: windows };
    }
  }
}

/** CPU ms of the children this process has reaped (cutime + cstime). */
function ownChildrenCpuMs() {
  const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLK_TCK;
}

/**
 * Starts accounting the whole machine's CPU; `finish()` returns CPU-seconds per node component
 * (a process counts with the children it reaped: the CNI plugins in containerd, runc in the shims
 * and conmon) and the machine's busy and idle CPU-seconds over the window. `childrenAs` names the
 * component that this runner's own child processes belong to (e.g. the podman commands it ran).
 */
export function startCpuAccount({ childrenAs } = {}) {
  const before = processCpuSnapshot();
  const machine0 = machineCpu();
  const children0 = ownChildrenCpuMs();
  return () => {
    const after = processCpuSnapshot();
    const machine1 = machineCpu();
    const components = {};
    if (childrenAs !== undefined) {
      const childrenMs = ownChildrenCpuMs() - children0;
      components[childrenAs] = childrenMs;
      components['bench runner'] = -childrenMs;
    }
    for (const [pid, { name, ms }] of after) {
      const delta = ms - (before.get(pid)?.ms ?? 0);
      if (delta <= 0) continue;
      const component = componentOf(name);
      components[component] = (components[component] ?? 0) + delta;
    }
    const seconds = (jiffies) => round(jiffies / CLK_TCK, 1);
    return {
      busyCpuSeconds: seconds(machine1.busy - machine0.busy),
      idleCpuSeconds: seconds(machine1.total - machine0.total - (machine1.busy - machine0.busy)),
      byComponent: Object.fromEntries(
        Object.entries(components)
          .map(([name, ms]) => [name, round(ms / 1000, 1)])
          .filter(([, s]) => s >= 0.1)
          .sort((a, b) => b[1] - a[1]),
      ),
    };
  };
}

/** One line from a startCpuAccount() result: busy and idle CPU-s, then each component's CPU-s. */
export const cpuAccountLine = (account) =>
  `${account.busyCpuSeconds} CPU-s busy, ${account.idleCpuSeconds} idle (${Object.entries(account.byComponent)
    .map(([name, s]) => `${name} ${s}`)
    .join(' · ')})`;

/**
 * Measures process `pid` for `seconds`: RSS every second, CPU % of one core over the window (and
 * per 10 s slice, to show whether it is steady), the machine's busy % and load, and the busiest
 * processes on the machine. `extra` is called at the start and end (e.g. CRI call counters) and
 * its two results are returned as-is.
 */
export async function measureWindow(pid, seconds, { extra, others = {} } = {}) {
  const procs0 = processCpuSnapshot();
  const machine0 = machineCpu();
  const extra0 = extra ? await extra() : undefined;
  const start = Date.now();
  const cpu0 = cpuMs(pid);
  const others0 = Object.fromEntries(
    Object.entries(others).map(([name, pids]) => [name, pids.reduce((a, p) => a + (cpuMs(p, true) ?? 0), 0)]),
  );
  const rss = [];
  const slices = [];
  let sliceStart = { t: start, cpu: cpu0 };
  const end = start + seconds * 1000;
  while (Date.now() < end) {
    const value = rssMiB(pid);
    if (value === undefined) throw new Error(`process ${pid} exited during the measurement`);
    rss.push(value);
    if (Date.now() - sliceStart.t >= 10_000) {
      const now = { t: Date.now(), cpu: cpuMs(pid) };
      slices.push(round(((now.cpu - sliceStart.cpu) / (now.t - sliceStart.t)) * 100));
      sliceStart = now;
    }
    await sleep(Math.min(1000, Math.max(0, end - Date.now())));
  }
  const cpu1 = cpuMs(pid);
  const windowMs = Date.now() - start;
  const extra1 = extra ? await extra() : undefined;
  const machine1 = machineCpu();
  const rssEnd = rssMiB(pid);
  return {
    seconds: round(windowMs / 1000, 1),
    cpuPercentOfOneCore: round(((cpu1 - cpu0) / windowMs) * 100, 2),
    cpuPercentPer10s: slices,
    rssMiB: { ...summarize(rss), end: round(rssEnd) },
    others: Object.fromEntries(
      Object.entries(others).map(([name, pids]) => [
        name,
        round(((pids.reduce((a, p) => a + (cpuMs(p, true) ?? 0), 0) - others0[name]) / windowMs) * 100),
      ]),
    ),
    machineBusyPercentOfAllCores: round(((machine1.busy - machine0.busy) / Math.max(1, machine1.total - machine0.total)) * 100),
    loadAverageAtEnd: loadAverage(),
    busiestProcesses: topProcesses(procs0, processCpuSnapshot(), windowMs),
    extra: extra ? { start: extra0, end: extra1 } : undefined,
  };
}
