import { noopLogger } from '@kubelet-ts/common';
import { FakeClock, flushMicrotasks } from '@kubelet-ts/common/testing';
import { runVolumeManager, staticPodObjectReferences, volumeNodeAllocatable } from './volumes.js';

describe('kubelet volume wiring', () => {
  it('sizes from the cgroup manager allocatable when known, else from the machine capacity', () => {
    expect(volumeNodeAllocatable({ cpuMilli: 1500, memoryBytes: 2 ** 30 }, 4, 2 ** 33)).toEqual({ cpuMillis: 1500, memoryBytes: 2 ** 30, ephemeralStorageBytes: 0 });
    expect(volumeNodeAllocatable(undefined, 4, 2 ** 33)).toEqual({ cpuMillis: 4000, memoryBytes: 2 ** 33, ephemeralStorageBytes: 0 });
  });

  it('restarts the reconciler after a failure and stops when the signal aborts', async () => {
    const clock = new FakeClock();
    const controller = new AbortController();
    let calls = 0;
    const volumes = {
      run: async (signal: AbortSignal): Promise<void> => {
        calls += 1;
        if (calls === 1) throw new Error('mountinfo unreadable');
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      },
    };
    const running = runVolumeManager(volumes, controller.signal, clock, noopLogger, 5_000);
    await flushMicrotasks();
    expect(calls).toBe(1);
    await clock.advance(5_000);
    await flushMicrotasks();
    expect(calls).toBe(2);
    controller.abort();
    await expect(running).resolves.toBeUndefined();
    expect(calls).toBe(2);
  });
});

describe('kubelet volume wiring: object references of static pods', () => {
  it('lets static pods use inline CSI volumes always, configMap/secret volumes only with --static-object-dir', () => {
    expect(staticPodObjectReferences(undefined)).toEqual(['csiVolumes']);
    expect(staticPodObjectReferences('')).toEqual(['csiVolumes']);
    expect(staticPodObjectReferences('/etc/kubelet-ts/objects')).toEqual(['configMapVolumes', 'secretVolumes', 'csiVolumes']);
  });
});
