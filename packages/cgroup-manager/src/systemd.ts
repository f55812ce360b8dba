import { access } from 'node:fs/promises';
import type { CgroupName } from './cgroup-name.js';
import { toSystemd } from './cgroup-name.js';
import { CgroupError } from './errors.js';
import type { ResourceConfig } from './resources.js';
import { cpuSharesToWeight } from './resources.js';

/** A systemd unit property as sent to StartTransientUnit / SetUnitProperties. */
export interface SystemdProperty {
  name: string;
  value: string | number | boolean | bigint;
}

/** systemd's "infinity" for uint64 properties. */
export const SYSTEMD_INFINITY = 18_446_744_073_709_551_615n;

/**
 * Translates cgroup settings into systemd unit properties the way runc's systemd driver does:
 * CPUShares (v1) or CPUWeight (v2, converted with {@link cpuSharesToWeight}); CPUQuotaPerSecUSec
 * = quota × 1 s / period, rounded up to systemd's 10 ms granularity, infinity for no quota;
 * CPUQuotaPeriodUSec; MemoryLimit (v1) or MemoryMax (v2); TasksMax.
 */
export function systemdProperties(resources: ResourceConfig, mode: 'v1' | 'v2'): SystemdProperty[] {
  const props: SystemdProperty[] = [];
  if (resources.cpuShares !== undefined && resources.cpuShares > 0) {
    props.push(
      mode === 'v2'
        ? { name: 'CPUWeight', value: cpuSharesToWeight(resources.cpuShares) }
        : { name: 'CPUShares', value: resources.cpuShares },
    );
  }
  if (resources.cpuPeriodUs !== undefined && resources.cpuPeriodUs > 0)
    props.push({ name: 'CPUQuotaPeriodUSec', value: resources.cpuPeriodUs });
  if (resources.cpuQuotaUs !== undefined && resources.cpuQuotaUs !== 0) {
    if (resources.cpuQuotaUs < 0) props.push({ name: 'CPUQuotaPerSecUSec', value: SYSTEMD_INFINITY });
    else {
      const period = resources.cpuPeriodUs ?? 100_000;
      let perSec = Math.floor((resources.cpuQuotaUs * 1_000_000) / period);
      if (perSec % 10_000 !== 0) perSec = (Math.floor(perSec / 10_000) + 1) * 10_000;
      props.push({ name: 'CPUQuotaPerSecUSec', value: perSec });
    }
  }
  if (resources.memoryLimitBytes !== undefined && resources.memoryLimitBytes !== 0) {
    props.push({
      name: mode === 'v2' ? 'MemoryMax' : 'MemoryLimit',
      value: resources.memoryLimitBytes < 0 ? SYSTEMD_INFINITY : resources.memoryLimitBytes,
    });
  }
  if (resources.pidsLimit !== undefined && resources.pidsLimit !== 0) {
    props.push({ name: 'TasksMax', value: resources.pidsLimit < 0 ? SYSTEMD_INFINITY : resources.pidsLimit });
  }
  return props;
}

/** The unit of a cgroup name and its parent slice (`kubepods-burstable-pod1_2.slice` in `kubepods-burstable.slice`). */
export function systemdUnit(name: CgroupName): { unit: string; slice: string } {
  const parts = toSystemd(name)
    .split('/')
    .filter((p) => p !== '');
  return { unit: parts.at(-1) ?? '-.slice', slice: parts.at(-2) ?? '-.slice' };
}

/** What the systemd driver needs from systemd (over D-Bus); injectable for tests. */
export interface SystemdClient {
  startTransientUnit(unit: string, properties: SystemdProperty[]): Promise<void>;
  setUnitProperties(unit: string, properties: SystemdProperty[]): Promise<void>;
  stopUnit(unit: string): Promise<void>;
}

/** Where systemd listens: its private socket and the system bus. */
export const SYSTEMD_SOCKETS = ['/run/systemd/private', '/run/dbus/system_bus_socket'] as const;

/**
 * The default client: it checks whether systemd's D-Bus sockets exist and fails with a
 * `SYSTEMD_UNAVAILABLE` CgroupError that says what to do. This build carries no D-Bus
 * protocol implementation, so even with a socket present it refuses rather than pretend.
 */
export function createUnavailableSystemdClient(options: { fsRoot?: string; sockets?: readonly string[] } = {}): SystemdClient {
  const root = (options.fsRoot ?? '/').replace(/\/+$/, '');
  const sockets = options.sockets ?? SYSTEMD_SOCKETS;
  const fail = async (unit: string): Promise<never> => {
    const found: string[] = [];
    for (const s of sockets) {
      try {
        await access(`${root}${s}`);
        found.push(s);
      } catch {
        // absent
      }
    }
    const why =
      found.length === 0
        ? `systemd is not reachable over D-Bus (none of ${sockets.join(', ')} exists): this machine does not run systemd`
        : `D-Bus is present (${found.join(', ')}) but this kubelet-ts build has no D-Bus client`;
    throw new CgroupError(
      'SYSTEMD_UNAVAILABLE',
      `cgroupDriver "systemd" cannot manage unit ${unit}: ${why}; use cgroupDriver "cgroupfs" (and SystemdCgroup = false in the runtime)`,
    );
  };
  return {
    startTransientUnit: (unit) => fail(unit),
    setUnitProperties: (unit) => fail(unit),
    stopUnit: (unit) => fail(unit),
  };
}
