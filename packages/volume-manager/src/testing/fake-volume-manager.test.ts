import { newPod } from '@kubelet-ts/api/testing';
import { VolumeError } from '../errors.js';
import { FakeVolumeManager } from './fake-volume-manager.js';

describe('FakeVolumeManager', () => {
  it('records calls, returns mounts per volumeMount and injects errors once', async () => {
    const fake = new FakeVolumeManager('/var/lib/kubelet');
    const pod = newPod({
      uid: 'u1',
      containers: [{ name: 'app', volumeMounts: [{ name: 'data', mountPath: '/data', subPath: 'x', readOnly: true }] }],
    });
    fake.errors.waitForAttachAndMount = [new VolumeError('SETUP_FAILED', 'MountVolume.SetUp failed for volume "data" : boom')];
    await expect(fake.waitForAttachAndMount(pod)).rejects.toThrow('boom');
    await fake.waitForAttachAndMount(pod);
    expect(await fake.getMountsForContainer(pod, pod.spec.containers[0]!)).toEqual([
      { containerPath: '/data', hostPath: '/var/lib/kubelet/pods/u1/volumes/data/x', readOnly: true },
    ]);
    await fake.teardownPod('u1');
    expect(fake.calls).toEqual([
      { method: 'waitForAttachAndMount', podUID: 'u1' },
      { method: 'waitForAttachAndMount', podUID: 'u1' },
      { method: 'getMountsForContainer', podUID: 'u1', containerName: 'app' },
      { method: 'teardownPod', podUID: 'u1' },
    ]);
    expect(fake.mounted.size).toBe(0);
  });
});
