import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Collector, MetricFamily } from '../types.js';

/** The names of upstream's process collector (client_golang collectors.NewProcessCollector) that we give. */
export const PROCESS_METRIC_NAMES = [
  'process_cpu_seconds_total',
  'process_open_fds',
  'process_max_fds',
  'process_virtual_memory_bytes',
  'process_resident_memory_bytes',
  'process_start_time_seconds',
] as const;

const tryRead = <T>(read: () => T): T | undefined => {
  try {
    return read();
  } catch {
    return undefined;
  }
};

/** vsize (field 23 of /proc/self/stat, after the parenthesised command, which may hold spaces). */
function virtualMemoryBytes(): number | undefined {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const vsize = Number(fields[20]);
  return Number.isFinite(vsize) ? vsize : undefined;
}

/** The soft limit of "Max open files" in /proc/self/limits. */
function maxFds(): number | undefined {
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Max open files'));
  const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
  if (soft === 'unlimited') return Infinity;
  const n = Number(soft);
  return soft !== undefined && Number.isFinite(n) ? n : undefined;
}

/**
 * Upstream's process metrics, read when scraped from this process (process.cpuUsage, memoryUsage)
 * and /proc/self. What cannot be read (another OS) is left out, as the Go collector does.
 */
export function processCollector(): Collector {
  const startTimeSeconds = performance.timeOrigin / 1000;
  return {
    collect() {
      const families: MetricFamily[] = [];
      const add = (
        name: (typeof PROCESS_METRIC_NAMES)[number],
        help: string,
        type: MetricFamily['type'],
        value: number | undefined,
      ): void => {
        if (value !== undefined) families.push({ name, help, type, samples: [{ value }] });
      };
      const cpu = process.cpuUsage();
      add('process_cpu_seconds_total', 'Total user and system CPU time spent in seconds.', 'counter', (cpu.user + cpu.system) / 1e6);
      add('process_max_fds', 'Maximum number of open file descriptors.', 'gauge', tryRead(maxFds));
      add(
        'process_open_fds',
        'Number of open file descriptors.',
        'gauge',
        tryRead(() => readdirSync('/proc/self/fd').length),
      );
      add('process_resident_memory_bytes', 'Resident memory size in bytes.', 'gauge', process.memoryUsage.rss());
      add('process_start_time_seconds', 'Start time of the process since unix epoch in seconds.', 'gauge', startTimeSeconds);
      add('process_virtual_memory_bytes', 'Virtual memory size in bytes.', 'gauge', tryRead(virtualMemoryBytes));
      return families;
    },
  };
}
