import { staticPodObjectReferences } from './volumes.js';

describe('kubelet volume wiring: object references of static pods', () => {
  it('lets static pods use inline CSI volumes always, configMap/secret volumes only with --static-object-dir', () => {
    expect(staticPodObjectReferences(undefined)).toEqual(['csiVolumes']);
    expect(staticPodObjectReferences('')).toEqual(['csiVolumes']);
    expect(staticPodObjectReferences('/etc/kubelet-ts/objects')).toEqual(['configMapVolumes', 'secretVolumes', 'csiVolumes']);
  });
});
