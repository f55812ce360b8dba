import type { Container, Pod } from '@kubelet-ts/api';
import type { ContainerMount } from '@kubelet-ts/container-runtime';
import type { MountedVolume, VolumeManager, VolumeUsage } from '../types.js';

export type FakeVolumeManagerCall =
  | { method: 'waitForAttachAndMount'; podUID: string }
  | { method: 'getMountsForContainer'; podUID: string; containerName: string }
  | { method: 'teardownPod'; podUID: string };

/**
 * A VolumeManager for other packages' unit tests: records calls, mounts nothing. Mounts are
 * `<rootDir>/pods/<uid>/volumes/<volume>` unless `mountsFor` says otherwise; `errors` injects
 * failures (consumed once) per method.
 */
export class FakeVolumeManager implements VolumeManager {
  readonly calls: FakeVolumeManagerCall[] = [];
  readonly errors: Partial<Record<'waitForAttachAndMount' | 'getMountsForContainer' | 'teardownPod', Error[]>> = {};
  readonly mounted = new Set<string>();
  usage: VolumeUsage[] = [];
  mountsFor: ((pod: Pod, container: Container) => ContainerMount[]) | undefined;

  constructor(readonly rootDir = '/var/lib/kubelet') {}

  #fail(method: 'waitForAttachAndMount' | 'getMountsForContainer' | 'teardownPod'): void {
    const err = this.errors[method]?.shift();
    if (err !== undefined) throw err;
  }

  async waitForAttachAndMount(pod: Pod): Promise<void> {
    this.calls.push({ method: 'waitForAttachAndMount', podUID: pod.metadata.uid });
    this.#fail('waitForAttachAndMount');
    this.mounted.add(pod.metadata.uid);
  }

  async getMountsForContainer(pod: Pod, container: Container): Promise<ContainerMount[]> {
    this.calls.push({ method: 'getMountsForContainer', podUID: pod.metadata.uid, containerName: container.name });
    this.#fail('getMountsForContainer');
    if (this.mountsFor !== undefined) return this.mountsFor(pod, container);
    return (container.volumeMounts ?? []).map((vm) => ({
      containerPath: vm.mountPath,
      hostPath: `${this.rootDir}/pods/${pod.metadata.uid}/volumes/${vm.name}${vm.subPath !== undefined && vm.subPath !== '' ? `/${vm.subPath}` : ''}`,
      readOnly: vm.readOnly === true,
    }));
  }

  async teardownPod(uid: string): Promise<void> {
    this.calls.push({ method: 'teardownPod', podUID: uid });
    this.#fail('teardownPod');
    this.mounted.delete(uid);
  }

  async getVolumeUsage(uid: string): Promise<VolumeUsage[]> {
    return this.mounted.has(uid) ? this.usage : [];
  }

  getMountedVolumes(uid?: string): MountedVolume[] {
    return [...this.mounted]
      .filter((u) => uid === undefined || u === uid)
      .map((u) => ({ podUID: u, volumeName: '', pluginName: '', path: `${this.rootDir}/pods/${u}/volumes`, reconstructed: false }));
  }

  getReconstructedPodUIDs(): string[] {
    return [];
  }

  async reconstruct(): Promise<void> {}

  async run(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  }
}
