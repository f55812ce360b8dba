import type { Pod } from '@kubelet-ts/api';
import { RecordingMetrics, flushMicrotasks } from '@kubelet-ts/common/testing';
import { app, side, makePod, sync, summary, setup } from './test-env.js';
import type { Env } from './test-env.js';

describe('killPod', () => {
  async function running(env: Env, pod: Pod) {
    await sync(env, pod);
    const pods = await env.manager.getPods(false);
    const found = pods.find((p) => p.uid === pod.metadata.uid);
    if (found === undefined) throw new Error('pod not running');
    return found;
  }
  function stopTimeouts(env: Env): Record<string, string> {
    const out: Record<string, string> = {};
    for (const call of env.runtime.callsOf('stopContainer')) {
      const req = call.request as { containerId: string; timeout: number };
      out[req.containerId] = String(req.timeout);
    }
    return out;
  }

  it('runs the preStop hook, then stops every container with the pod grace period and stops the sandbox', async () => {
    const env = setup();
    const execs: string[][] = [];
    env.runtime.setExecHandler((_id, cmd) => {
      execs.push(cmd);
      return { exitCode: 0 };
    });
    const pod = makePod({ containers: [{ ...app, lifecycle: { preStop: { exec: { command: ['echo', 'bye'] } } } }, side] });
    const r = await running(env, pod);
    const result = await env.manager.killPod(pod, r);
    expect(result.error).toBeUndefined();
    expect(summary(result.results)).toEqual(['KillContainer:app', 'KillContainer:side', 'KillPodSandbox:uid-1']);
    expect(execs).toEqual([['echo', 'bye']]);
    expect(Object.values(stopTimeouts(env))).toEqual(['30', '30']);
    const methods = env.runtime.methodsCalled;
    expect(methods.lastIndexOf('execSync')).toBeLessThan(methods.indexOf('stopContainer'));
    expect(env.runtime.callsOf('stopPodSandbox')).toHaveLength(1);
    expect(await env.manager.getPods(false)).toEqual([]);
  });

  it('stops regular containers first, then sidecars in reverse order within what is left of the grace period', async () => {
    const env = setup();
    const pod = makePod({
      terminationGracePeriodSeconds: 10,
      initContainers: [
        { name: 's1', image: 'web:1', restartPolicy: 'Always' },
        { name: 's2', image: 'web:1', restartPolicy: 'Always' },
      ],
      containers: [side],
    });
    await sync(env, pod);
    await sync(env, pod);
    await sync(env, pod);
    const r = await running(env, pod);
    expect(r.containers.map((c) => c.name).sort()).toEqual(['s1', 's2', 'side']);
    const byId = new Map(r.containers.map((c) => [c.id, c.name]));
    env.runtime.ignoreSigterm(r.containers.find((c) => c.name === 'side')?.id ?? '');
    const killing = env.manager.killPod(pod, r);
    await flushMicrotasks();
    await env.clock.advance(10_000); // the regular container uses the whole grace period
    const result = await killing;
    expect(result.error).toBeUndefined();
    const stops = env.runtime.callsOf('stopContainer').map((c) => {
      const req = c.request as { containerId: string; timeout: number };
      return [byId.get(req.containerId), req.timeout];
    });
    expect(stops).toEqual([
      ['side', 10],
      ['s2', 2],
      ['s1', 2],
    ]);
  });

  it('grace period: deletionGracePeriodSeconds wins over the spec; the override wins over both; never below 2 s', async () => {
    const env = setup();
    const pod = makePod({ containers: [side] });
    pod.metadata.deletionGracePeriodSeconds = 5;
    const r = await running(env, pod);
    await env.manager.killPod(pod, r);
    expect(Object.values(stopTimeouts(env))).toEqual(['5']);

    const env2 = setup();
    const pod2 = makePod({ containers: [side] });
    await env2.manager.killPod(pod2, await running(env2, pod2), 0);
    expect(Object.values(stopTimeouts(env2))).toEqual(['2']);

    const env3 = setup();
    const pod3 = makePod({ containers: [side], terminationGracePeriodSeconds: 1 });
    await env3.manager.killPod(pod3, await running(env3, pod3));
    expect(Object.values(stopTimeouts(env3))).toEqual(['2']);
  });

  it('a preStop hook that outlasts the grace period is abandoned; StopContainer gets the minimum', async () => {
    const env = setup();
    env.runtime.setExecHandler(async () => {
      await env.clock.sleep(60_000);
      return { exitCode: 0 };
    });
    const pod = makePod({
      terminationGracePeriodSeconds: 3,
      containers: [{ ...side, lifecycle: { preStop: { exec: { command: ['sleep', '60'] } } } }],
    });
    const r = await running(env, pod);
    const killing = env.manager.killPod(pod, r);
    await flushMicrotasks();
    expect(env.runtime.callsOf('stopContainer')).toHaveLength(0);
    await env.clock.advance(3000);
    await killing;
    expect(Object.values(stopTimeouts(env))).toEqual(['2']);
  });

  it('a sleep preStop hook cut short by the grace period counts in kubelet_sleep_action_terminated_early_total', async () => {
    const metrics = new RecordingMetrics();
    const env = setup({ metrics });
    const pod = makePod({
      terminationGracePeriodSeconds: 3,
      containers: [{ ...side, lifecycle: { preStop: { sleep: { seconds: 60 } } } }],
    });
    const r = await running(env, pod);
    const killing = env.manager.killPod(pod, r);
    await flushMicrotasks();
    await env.clock.advance(3000);
    await killing;
    expect(metrics.value('kubelet_sleep_action_terminated_early_total')).toBe(1);
  });

  it('without the pod spec, the grace period and preStop hook come from the container annotations', async () => {
    const env = setup();
    const execs: string[][] = [];
    env.runtime.setExecHandler((_id, cmd) => {
      execs.push(cmd);
      return {};
    });
    const pod = makePod({
      terminationGracePeriodSeconds: 45,
      containers: [{ ...side, lifecycle: { preStop: { exec: { command: ['cleanup'] } } } }],
    });
    const r = await running(env, pod);
    const result = await env.manager.killPod(undefined, r);
    expect(result.error).toBeUndefined();
    expect(execs).toEqual([['cleanup']]);
    expect(Object.values(stopTimeouts(env))).toEqual(['45']);
  });

  it('stops a container without its pod spec even when its preStop annotation is junk (found by fuzzing)', async () => {
    const env = setup();
    const pod = makePod({ containers: [side] });
    const r = await running(env, pod);
    const status = env.runtime.containerStatus.bind(env.runtime);
    env.runtime.containerStatus = async (request, options) => {
      const reply = await status(request, options);
      if (reply.status !== null) reply.status.annotations['io.kubernetes.container.preStopHandler'] = '{"exec":null}';
      return reply;
    };
    const result = await env.manager.killPod(undefined, r);
    expect(result.error).toBeUndefined();
    expect(Object.keys(stopTimeouts(env))).toHaveLength(1);
  });

  it('containers and sandboxes already gone (NOT_FOUND) count as stopped', async () => {
    const env = setup();
    const pod = makePod({ containers: [side] });
    const r = await running(env, pod);
    env.runtime.injectError('stopContainer', 'NOT_FOUND');
    env.runtime.injectError('stopPodSandbox', 'NOT_FOUND');
    const result = await env.manager.killPod(pod, r);
    expect(result.error).toBeUndefined();
    expect(result.results.every((x) => x.reason === undefined)).toBe(true);
  });

  it('a failing StopContainer is reported as KillContainerError', async () => {
    const env = setup();
    const pod = makePod({ containers: [side] });
    const r = await running(env, pod);
    env.runtime.injectError('stopContainer', 'DEADLINE_EXCEEDED');
    const result = await env.manager.killPod(pod, r);
    expect(result.results[0]).toMatchObject({ action: 'KillContainer', target: 'side', reason: 'KillContainerError' });
    expect(result.error).toMatchObject({ code: 'KILL_CONTAINER_ERROR', reason: 'KillContainerError' });
  });
});
