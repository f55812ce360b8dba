import { readFile } from 'node:fs/promises';
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
 * Reads /etc/machine-id (or the D-Bus copy), the DMI product UUID (root only; empty otherwise),
 * the boot ID, /etc/os-release and the kernel release. A file that cannot be read gives "".
 * `root` prefixes every path (tests).
 */
export async function readHostInfo(root = '/', kernelRelease: () => string = os.release): Promise<HostInfo> {
  const at = (p: string): string => path.join(root, p);
  const machineID = (await readTrimmed(at('etc/machine-id'))) || (await readTrimmed(at('var/lib/dbus/machine-id')));
  return {
    machineID,
    systemUUID: await readTrimmed(at('sys/class/dmi/id/product_uuid')),
    bootID: await readTrimmed(at('proc/sys/kernel/random/boot_id')),
    kernelVersion: kernelRelease(),
    osImage: osImageFrom((await readTrimmed(at('etc/os-release'))) || (await readTrimmed(at('usr/lib/os-release')))),
  };
}
