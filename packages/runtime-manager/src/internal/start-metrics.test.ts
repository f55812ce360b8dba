// Upstream's kubelet_started_pods_total / _errors_total and kubelet_started_containers_total / _errors_total,
// as kuberuntime's SyncPod records them.
import { RecordingMetrics } from '@kubelet-ts/common/testing';
import { app, makePod, setup, side, sync } from './test-env.js';

describe('syncPod: started pods and containers metrics', () => {
  it('counts each sandbox and container started, by container type', async () => {
    const metrics = new RecordingMetrics();
    const env = setup({ metrics });
    const init = { name: 'init', image: 'busybox:1.36' };
    const sidecar = { name: 'sidecar', image: 'busybox:1.36', restartPolicy: 'Always' as const };
    const pod = makePod({ initContainers: [init, sidecar], containers: [app, side] });
    await sync(env, pod); // the sandbox, then init
    const [initId] = (await env.manager.getPodStatus('uid-1', 'web', 'prod')).containers.map((c) => c.id);
    env.runtime.exitContainer(initId ?? '', 0);
    await sync(env, pod); // sidecar
    await sync(env, pod); // app, side
    const debugged = { ...pod, spec: { ...pod.spec, ephemeralContainers: [{ name: 'dbg', image: 'busybox:1.36' }] } };
    await sync(env, debugged);

    expect(metrics.value('kubelet_started_pods_total')).toBe(1);
    expect(metrics.value('kubelet_started_pods_errors_total')).toBeUndefined();
    const started = (type: string): number | undefined => metrics.value('kubelet_started_containers_total', { container_type: type });
    expect([started('init_container'), started('container'), started('ephemeral_container')]).toEqual([2, 2, 1]);
    expect(metrics.samples('kubelet_started_containers_errors_total')).toEqual([]);
  });

  it('counts a failed sandbox and failed starts by their error code', async () => {
    const metrics = new RecordingMetrics();
    const env = setup({ metrics });
    env.runtime.injectError('runPodSandbox', 'UNKNOWN', { times: 1 });
    const pod = makePod({
      containers: [
        { name: 'missing', image: 'nothere:1', imagePullPolicy: 'Never' },
        { name: 'ok', image: 'busybox:1.36' },
      ],
    });
    await sync(env, pod);
    expect(metrics.value('kubelet_started_pods_total')).toBe(1);
    expect(metrics.value('kubelet_started_pods_errors_total')).toBe(1);
    expect(metrics.samples('kubelet_started_containers_total')).toEqual([]);

    await sync(env, pod);
    env.runtime.injectError('createContainer', 'UNKNOWN', { times: 1 });
    await sync(env, makePod({ containers: [{ name: 'ok2', image: 'busybox:1.36' }] }, 'uid-2'));
    expect(metrics.value('kubelet_started_pods_total')).toBe(3);
    expect(metrics.value('kubelet_started_pods_errors_total')).toBe(1);
    expect(metrics.value('kubelet_started_containers_total', { container_type: 'container' })).toBe(3);
    expect(metrics.samples('kubelet_started_containers_errors_total').map((s) => [s.labels, s.value])).toEqual([
      [{ container_type: 'container', code: 'ErrImageNeverPull' }, 1],
      [{ container_type: 'container', code: 'CreateContainerError' }, 1],
    ]);
  });

  it('does not count a container kept out by its CrashLoopBackOff', async () => {
    const metrics = new RecordingMetrics();
    const env = setup({ metrics });
    const pod = makePod({ containers: [app] });
    await sync(env, pod);
    const first = (await env.manager.getPodStatus('uid-1', 'web', 'prod')).containers[0];
    env.runtime.exitContainer(first?.id ?? '', 1);
    await sync(env, pod); // restarted at once (the back-off starts now)
    const second = (await env.manager.getPodStatus('uid-1', 'web', 'prod')).containers.find((c) => c.state === 'running');
    env.runtime.exitContainer(second?.id ?? '', 1);
    const result = await sync(env, pod);
    expect(result.results.map((r) => r.reason)).toEqual(['CrashLoopBackOff']);
    expect(metrics.value('kubelet_started_containers_total', { container_type: 'container' })).toBe(2);
    expect(metrics.samples('kubelet_started_containers_errors_total')).toEqual([]);
  });
});
