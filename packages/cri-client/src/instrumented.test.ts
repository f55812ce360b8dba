import { FakeClock, RecordingMetrics } from '@kubelet-ts/common/testing';
import { criOperationType, instrumentImageService, instrumentRuntimeService, RUNTIME_OPERATIONS_DURATION_BUCKETS } from './instrumented.js';
import { FakeImageService, FakeRuntimeService } from './testing/index.js';

describe('instrumentRuntimeService / instrumentImageService', () => {
  it('names operations as upstream’s instrumented services do', () => {
    expect(
      ['version', 'runPodSandbox', 'podSandboxStatus', 'listPodSandbox', 'listPodSandboxStats', 'createContainer', 'execSync'].map(
        criOperationType,
      ),
    ).toEqual([
      'version',
      'run_podsandbox',
      'podsandbox_status',
      'list_podsandbox',
      'list_podsandbox_stats',
      'create_container',
      'exec_sync',
    ]);
    expect(['updateContainerResources', 'reopenContainerLog', 'imageFsInfo', 'pullImage'].map(criOperationType)).toEqual([
      'update_container',
      'reopen_container_log',
      'image_fs_info',
      'pull_image',
    ]);
    expect(RUNTIME_OPERATIONS_DURATION_BUCKETS).toHaveLength(14);
    expect(RUNTIME_OPERATIONS_DURATION_BUCKETS[0]).toBe(0.005);
    expect(RUNTIME_OPERATIONS_DURATION_BUCKETS[13]).toBeCloseTo(0.005 * 2.5 ** 13, 6);
  });

  it('counts and times every call, and counts failed ones as errors', async () => {
    const clock = new FakeClock();
    const metrics = new RecordingMetrics();
    const fake = new FakeRuntimeService({ clock });
    const runtime = instrumentRuntimeService(fake, { metrics, clock });
    fake.setDelay('version', 250);
    const version = runtime.version({});
    await clock.advance(250);
    await version;
    fake.injectError('listContainers', 'UNAVAILABLE');
    await expect(runtime.listContainers({})).rejects.toThrow('UNAVAILABLE');
    await runtime.listContainers({});
    expect(metrics.value('kubelet_runtime_operations_total', { operation_type: 'version' })).toBe(1);
    expect(metrics.value('kubelet_runtime_operations_total', { operation_type: 'list_containers' })).toBe(2);
    expect(metrics.value('kubelet_runtime_operations_errors_total', { operation_type: 'list_containers' })).toBe(1);
    expect(metrics.value('kubelet_runtime_operations_errors_total', { operation_type: 'version' })).toBeUndefined();
    expect(metrics.observations('kubelet_runtime_operations_duration_seconds', { operation_type: 'version' })).toEqual([0.25]);
    expect(metrics.buckets('kubelet_runtime_operations_duration_seconds')).toEqual(RUNTIME_OPERATIONS_DURATION_BUCKETS);
    // The wrapped fake is still the fake: its records and helpers are reachable through the decorator.
    expect(runtime.callsOf('listContainers')).toHaveLength(2);
    runtime.injectError('version', 'INTERNAL');
    await expect(runtime.version({})).rejects.toThrow('INTERNAL');
    expect(metrics.value('kubelet_runtime_operations_errors_total', { operation_type: 'version' })).toBe(1);
  });

  it('times RunPodSandbox by runtime handler too', async () => {
    const metrics = new RecordingMetrics();
    const fake = new FakeRuntimeService();
    const runtime = instrumentRuntimeService(fake, { metrics });
    fake.injectError('runPodSandbox', 'INTERNAL');
    await expect(
      runtime.runPodSandbox({ config: { metadata: { name: 'p', namespace: 'd', uid: 'u', attempt: 0 } }, runtimeHandler: 'runc' }),
    ).rejects.toThrow();
    expect(metrics.value('kubelet_run_podsandbox_errors_total', { runtime_handler: 'runc' })).toBe(1);
    expect(metrics.observations('kubelet_run_podsandbox_duration_seconds', { runtime_handler: 'runc' })).toHaveLength(1);
    expect(metrics.value('kubelet_runtime_operations_errors_total', { operation_type: 'run_podsandbox' })).toBe(1);
  });

  it('instruments the image service with the same metrics', async () => {
    const metrics = new RecordingMetrics();
    const image = instrumentImageService(new FakeImageService(), { metrics });
    await image.listImages({});
    await image.imageFsInfo({});
    expect(metrics.samples('kubelet_runtime_operations_total').map((s) => [s.labels, s.value])).toEqual([
      [{ operation_type: 'list_images' }, 1],
      [{ operation_type: 'image_fs_info' }, 1],
    ]);
  });
});
