import { readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** What the machine says about itself: the nodeInfo fields upstream takes from cadvisor and the OS. */
export interface HostInfo {
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
}

async function readTrimmed(file: string): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    return '';
  }
}

/** PRETTY_NAME of os-release, unquoted (upstream: cadvisor's OS version), else "Linux". */
export function osImageFrom(osRelease: string): string {
  for (const line of osRelease.split('\n')) {
    const m = /^PRETTY_NAME=(.*)$/.exec(line.trim());
    if (m?.[1] !== undefined) return m[1].replace(/^(["'])(.*)\1$/, '$2');
  }
  return 'Linux';
}

/**
 * cadvisor's GetSystemUUID: the DMI product UUID (root only), else the PowerPC device tree's
 * system-id or vm,uuid, else /etc/machine-id (its s390x path, which every machine without DMI
 * then reports); "" when none can be read.
 */
async function systemUUID(at: (p: string) => string): Promise<string> {
  for (const file of ['sys/class/dmi/id/product_uuid', 'proc/device-tree/system-id', 'proc/device-tree/vm,uuid', 'etc/machine-id']) {
    const text = await readFile(at(file), 'utf8').catch(() => undefined);
    if (text !== undefined) return text.replace(/\0+$/, '').trim();
  }
  return '';
}

/**
 * Reads /etc/machine-id (or the D-Bus copy), the system UUID (see systemUUID),
 * the boot ID, /etc/os-release and the kernel release. A file that cannot be read gives "".
 * `root` prefixes every path (tests).
 */
export async function readHostInfo(root = '/', kernelRelease: () => string = os.release): Promise<HostInfo> {
  const at = (p: string): string => path.join(root, p);
  const machineID = (await readTrimmed(at('etc/machine-id'))) || (await readTrimmed(at('var/lib/dbus/machine-id')));
  return {
    machineID,
    systemUUID: await systemUUID(at),
    bootID: await readTrimmed(at('proc/sys/kernel/random/boot_id')),
    kernelVersion: kernelRelease(),
    osImage: osImageFrom((await readTrimmed(at('etc/os-release'))) || (await readTrimmed(at('usr/lib/os-release')))),
  };
}

/** A page size in kB as its BinarySI quantity (what upstream names `hugepages-<size>` with): 2048 → `2Mi`. */
function binarySize(kB: number): string {
  const units = ['Ki', 'Mi', 'Gi', 'Ti', 'Pi'];
  let value = kB;
  let unit = 0;
  while (value % 1024 === 0 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value}${units[unit] ?? 'Ki'}`;
}

/**
 * The huge pages of the machine as node capacity (upstream cadvisor MachineInfo.HugePages):
 * `hugepages-<size>` → the bytes of the pages reserved (`nr_hugepages` × size), one entry per
 * size under `<root>/sys/kernel/mm/hugepages`, none when the directory cannot be read.
 */
export async function readHugePages(root = '/'): Promise<Record<string, string>> {
  const dir = path.join(root, 'sys/kernel/mm/hugepages');
  const entries = await readdir(dir).catch(() => [] as string[]);
  const out: Record<string, string> = {};
  for (const entry of entries.sort()) {
    const m = /^hugepages-(\d+)kB$/.exec(entry);
    if (m?.[1] === undefined) continue;
    const kB = Number(m[1]);
    const pages = Number(await readTrimmed(path.join(dir, entry, 'nr_hugepages')));
    out[`hugepages-${binarySize(kB)}`] = String((Number.isFinite(pages) ? pages : 0) * kB * 1024);
  }
  return out;
}
