import {
  nanosToMs,
  parseBootTimeSeconds,
  parseKeyValues,
  parseLoadavgTasks,
  parseMemTotalBytes,
  parseProcStatCpuNs,
  parseUint,
} from './parse.js';
import { CpuRateTracker } from './cpu-rate.js';

describe('parsers', () => {
  it('reads key/value cgroup files, skipping lines that are not two fields', () => {
    expect(parseKeyValues('total_rss 10\nbad line here\nx notanumber\ninactive_file 5\n')).toEqual(
      new Map([
        ['total_rss', 10],
        ['inactive_file', 5],
      ]),
    );
  });

  it('reads single integers and refuses anything else', () => {
    expect(parseUint('11232357154129\n')).toBe(11232357154129);
    expect(parseUint('max\n')).toBeUndefined();
  });

  it('reads MemTotal in KiB as bytes', () => {
    expect(parseMemTotalBytes('MemTotal:       24683620 kB\nMemFree: 1 kB\n')).toBe(24683620 * 1024);
    expect(parseMemTotalBytes('MemFree: 1 kB\n')).toBeUndefined();
  });

  it('reads the task count of /proc/loadavg (the denominator of the fourth field)', () => {
    expect(parseLoadavgTasks('1.36 3.49 4.53 2/3518 3715089\n')).toBe(3518);
    expect(parseLoadavgTasks('1.36 3.49\n')).toBeUndefined();
  });

  it('reads btime and the busy CPU time of /proc/stat (user+nice+system+irq+softirq+steal at USER_HZ 100)', () => {
    const stat = 'cpu  10 20 30 1000 40 50 60 70 0 0\ncpu0 1 1 1 1\nbtime 1795977767\n';
    expect(parseBootTimeSeconds(stat)).toBe(1795977767);
    expect(parseProcStatCpuNs(stat)).toBe((10 + 20 + 30 + 50 + 60 + 70) * 10_000_000);
    expect(parseProcStatCpuNs('intr 1\n')).toBeUndefined();
  });

  it('turns CRI ns timestamps into ms, treating 0 and empty as unknown', () => {
    expect(nanosToMs('1767225600123456789')).toBe(1767225600123);
    expect(nanosToMs('0')).toBeUndefined();
    expect(nanosToMs('')).toBeUndefined();
  });
});

describe('CpuRateTracker', () => {
  it('gives nothing for a first sample or a counter that went backwards, and forgets swept keys', () => {
    const t = new CpuRateTracker();
    expect(t.update('a', 100, 1_000_000_000)).toBeUndefined();
    expect(t.update('a', 1_100, 2_000_000_000)).toBe(1_000);
    expect(t.update('a', 1_100, 2_000_000_000)).toBe(1_000); // the same sample again keeps the last rate
    expect(t.update('a', 50, 3_000_000_000)).toBeUndefined(); // restarted
    t.sweep();
    t.update('b', 1, 1);
    t.sweep();
    expect(t.size).toBe(1);
  });

  it('a sweep with grace rounds keeps keys not updated for that many rounds', () => {
    const t = new CpuRateTracker();
    t.update('a', 100, 1_000_000_000);
    t.sweep(2); // round 0: seen
    t.sweep(2); // round 1
    t.sweep(2); // round 2
    expect(t.size).toBe(1);
    t.sweep(2); // round 3: three rounds unseen
    expect(t.size).toBe(0);
  });
});
