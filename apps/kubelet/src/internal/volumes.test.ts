import { staticPodObjectReferences, volumeNodeAllocatable } from './volumes.js';

describe('kubelet volume wiring', () => {
  it('sizes from the cgroup manager allocatable when known, else from the machine capacity', () => {
    expect(volumeNodeAllocatable({ cpuMilli: 1500, memoryBytes: 2 ** 30 }, 4, 2 ** 33)).toEqual({ cpuMillis: 1500, memoryBytes: 2 ** 30, ephemeralStorageBytes: 0 });
    expect(volumeNodeAllocatable(undefined, 4, 2 ** 33)).toEqual({ cpuMillis: 4000, memoryBytes: 2 ** 33, ephemeralStorageBytes: 0 });
  });
});

describe('kubelet volume wiring: object references of static pods', () => {
  it('lets static pods use inline CSI volumes always, configMap/secret volumes only with --static-object-dir', () => {
    expect(staticPodObjectReferences(undefined)).toEqual(['csiVolumes']);
    expect(staticPodObjectReferences('')).toEqual(['csiVolumes']);
    expect(staticPodObjectReferences('/etc/kubelet-ts/objects')).toEqual(['configMapVolumes', 'secretVolumes', 'csiVolumes']);
  });
});
