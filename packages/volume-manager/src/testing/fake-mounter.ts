import type { MountPoint } from '@kubelet-ts/common';
import type { Mounter } from '../mounter.js';

export interface MountCall {
  op: 'mount' | 'unmount';
  source?: string;
  target: string;
  fsType?: string;
  options?: readonly string[];
}

/** A Mounter that only records: mount points live in memory. `errors` injects failures per op (consumed once). */
export class FakeMounter implements Mounter {
  readonly calls: MountCall[] = [];
  readonly mounts: MountPoint[] = [];
  readonly errors: { mount: Error[]; unmount: Error[] } = { mount: [], unmount: [] };
  #nextId = 1000;

  async mount(source: string, target: string, fsType: string, options: readonly string[]): Promise<void> {
    this.calls.push({ op: 'mount', source, target, fsType, options });
    const err = this.errors.mount.shift();
    if (err !== undefined) throw err;
    this.mounts.push({
      id: this.#nextId++,
      parentId: 1,
      root: '/',
      mountPoint: target,
      options: [...options],
      fsType: fsType === '' ? 'none' : fsType,
      source,
      superOptions: [],
    });
  }

  async unmount(target: string): Promise<void> {
    this.calls.push({ op: 'unmount', target });
    const err = this.errors.unmount.shift();
    if (err !== undefined) throw err;
    const index = this.mounts.map((m) => m.mountPoint).lastIndexOf(target);
    if (index < 0) throw new Error(`umount: ${target}: not mounted.`);
    this.mounts.splice(index, 1);
  }

  async list(): Promise<MountPoint[]> {
    return [...this.mounts];
  }
}

/** Wraps a real Mounter and records its calls (for "nothing was remounted" assertions). */
export function recordingMounter(inner: Mounter): Mounter & { calls: MountCall[] } {
  const calls: MountCall[] = [];
  return {
    calls,
    async mount(source, target, fsType, options) {
      calls.push({ op: 'mount', source, target, fsType, options });
      await inner.mount(source, target, fsType, options);
    },
    async unmount(target) {
      calls.push({ op: 'unmount', target });
      await inner.unmount(target);
    },
    list: () => inner.list(),
  };
}
