// Parsers of the /proc and cgroup files the node figures come from. Each returns undefined for
// content it does not understand, so that the caller decides whether that is fatal.

/** `key value` lines (memory.stat, cpu.stat) → map; lines that are not two fields are skipped. */
export function parseKeyValues(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const parts = line.trim().split(/\s+/);
    if (parts.length !== 2 || parts[0] === undefined || parts[1] === undefined) continue;
    const value = Number(parts[1]);
    if (Number.isFinite(value)) out.set(parts[0], value);
  }
  return out;
}

/** A single unsigned integer file (`cpuacct.usage`, `memory.usage_in_bytes`, `pid_max`). */
export function parseUint(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) return undefined;
  return Number(trimmed);
}

/** /proc/meminfo `MemTotal` in bytes (the file says kB, meaning KiB). */
export function parseMemTotalBytes(text: string): number | undefined {
  const match = /^MemTotal:\s+(\d+)\s*kB$/m.exec(text);
  return match?.[1] === undefined ? undefined : Number(match[1]) * 1024;
}

/**
 * The number of tasks (processes and threads) on the node: the denominator of /proc/loadavg's
 * fourth field (`1.36 3.49 4.53 2/3518 3715089` → 3518). Upstream prefers it to sysinfo(2)'s
 * procs, which is truncated above 65535.
 */
export function parseLoadavgTasks(text: string): number | undefined {
  const fields = text.trim().split(/\s+/);
  if (fields.length < 5) return undefined;
  const match = /^\d+\/(\d+)$/.exec(fields[3] ?? '');
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/** /proc/stat `btime`: boot time in seconds since the epoch. */
export function parseBootTimeSeconds(text: string): number | undefined {
  const match = /^btime\s+(\d+)$/m.exec(text);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/** USER_HZ: the unit of /proc/stat's CPU times on every Linux architecture the kubelet runs on. */
export const USER_HZ = 100;

/**
 * Busy CPU time of all CPUs from /proc/stat's aggregate `cpu` line, in ns: user + nice + system +
 * irq + softirq + steal (idle and iowait are not busy; guest time is already in user).
 */
export function parseProcStatCpuNs(text: string): number | undefined {
  const line = text.split('\n').find((l) => /^cpu\s/.test(l));
  if (line === undefined) return undefined;
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  if (v.length < 4 || v.some((n) => !Number.isFinite(n))) return undefined;
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = v;
  return (user + nice + system + irq + softirq + steal) * (1e9 / USER_HZ);
}

/** A CRI timestamp (ns since the epoch, as a decimal string) → ms. */
export function nanosToMs(value: string | number | undefined): number | undefined {
  if (value === undefined || value === '' || value === '0' || value === 0) return undefined;
  try {
    return Number(BigInt(value) / 1_000_000n);
  } catch {
    return undefined;
  }
}

/** Interfaces cadvisor leaves out of network stats (its isIgnoredDevice prefixes). */
const IGNORED_DEVICE_PREFIXES = ['lo', 'veth', 'docker', 'nerdctl'];

/** Per-interface counters of /proc/net/dev (receive bytes and errors, transmit bytes and errors), ignored devices left out. */
export function parseNetDev(text: string): Array<{ name: string; rxBytes: number; rxErrors: number; txBytes: number; txErrors: number }> {
  const out: Array<{ name: string; rxBytes: number; rxErrors: number; txBytes: number; txErrors: number }> = [];
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim();
    const fields = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/)
      .map(Number);
    if (name === '' || fields.length < 16 || fields.some((n) => !Number.isFinite(n))) continue;
    if (IGNORED_DEVICE_PREFIXES.some((p) => name.toLowerCase().startsWith(p))) continue;
    out.push({ name, rxBytes: fields[0] ?? 0, rxErrors: fields[2] ?? 0, txBytes: fields[8] ?? 0, txErrors: fields[10] ?? 0 });
  }
  return out;
}
