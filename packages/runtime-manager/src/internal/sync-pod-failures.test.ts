import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Container, Pod } from '@kubelet-ts/api';
import type { FakeRuntimeService } from '@kubelet-ts/cri-client/testing';
import { app, side, makePod, sync, created, summary, setup } from './test-env.js';
import type { Env } from './test-env.js';

describe('syncPod: failures', () => {
  it('reports each container failure with its reason and still starts the others', async () => {
    const env = setup();
    const pod = makePod({
      containers: [
        { name: 'missing', image: 'nothere:1', imagePullPolicy: 'Never' },
        { name: 'invalid', image: 'NOT VALID' },
        { name: 'ok', image: 'busybox:1.36' },
      ],
    });
    const result = await sync(env, pod);
    expect(result.results.slice(2)).toEqual([
      {
        action: 'StartContainer',
        target: 'missing',
        reason: 'ErrImageNeverPull',
        message: 'Container image "nothere:1" is not present with pull policy of Never',
      },
      expect.objectContaining({ action: 'StartContainer', target: 'invalid', reason: 'InvalidImageName' }),
      { action: 'StartContainer', target: 'ok' },
    ]);
    expect(result.error).toMatchObject({ code: 'ERR_IMAGE_NEVER_PULL', reason: 'ErrImageNeverPull' });
    const status = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    expect(status.containers.map((c) => c.name)).toEqual(['ok']);
  });

  it('CreateContainerConfigError, CreateContainerError, RunContainerError and ErrImagePull', async () => {
    const env = setup();
    env.images.injectError('pullImage', new Error('registry down'));
    const pod = makePod({ containers: [{ name: 'pull', image: 'remote:1', imagePullPolicy: 'Always' }] });
    let result = await sync(env, pod);
    expect(result.results.at(-1)).toMatchObject({
      reason: 'ErrImagePull',
      message: expect.stringContaining('Failed to pull image "remote:1": '),
    });

    const env2 = setup();
    env2.helper.fail = new Error('configmap "cfg" not found');
    result = await sync(env2, makePod({ containers: [app] }));
    expect(result.results.at(-1)).toEqual({
      action: 'StartContainer',
      target: 'app',
      reason: 'CreateContainerConfigError',
      message: 'configmap "cfg" not found',
    });

    const env3 = setup();
    env3.runtime.injectError('createContainer', 'UNKNOWN');
    result = await sync(env3, makePod({ containers: [app] }));
    expect(result.results.at(-1)).toMatchObject({ target: 'app', reason: 'CreateContainerError' });

    const env4 = setup();
    env4.runtime.injectError('startContainer', 'UNKNOWN');
    result = await sync(env4, makePod({ containers: [app] }));
    expect(result.results.at(-1)).toMatchObject({ target: 'app', reason: 'RunContainerError' });
  });

  it('runAsNonRoot is verified against the image user (CreateContainerConfigError), and the image UID is passed on', async () => {
    const env = setup();
    env.images.addImage({ ref: 'numeric:1', uid: 1000 });
    env.images.addImage({ ref: 'named:1', username: 'nobody' });
    const nonRoot = { runAsNonRoot: true };
    const pod = makePod({
      containers: [
        { name: 'root-image', image: 'busybox:1.36', securityContext: nonRoot },
        { name: 'root-user', image: 'numeric:1', securityContext: { ...nonRoot, runAsUser: 0 } },
        { name: 'named', image: 'named:1', securityContext: nonRoot },
        { name: 'ok', image: 'numeric:1', securityContext: nonRoot },
      ],
    });
    const result = await sync(env, pod);
    expect(result.results.slice(2)).toEqual([
      {
        action: 'StartContainer',
        target: 'root-image',
        reason: 'CreateContainerConfigError',
        message: 'container has runAsNonRoot and image will run as root (pod: "web_prod(uid-1)", container: root-image)',
      },
      {
        action: 'StartContainer',
        target: 'root-user',
        reason: 'CreateContainerConfigError',
        message: `container's runAsUser breaks non-root policy (pod: "web_prod(uid-1)", container: root-user)`,
      },
      {
        action: 'StartContainer',
        target: 'named',
        reason: 'CreateContainerConfigError',
        message:
          'container has runAsNonRoot and image has non-numeric user (nobody), cannot verify user is non-root (pod: "web_prod(uid-1)", container: named)',
      },
      { action: 'StartContainer', target: 'ok' },
    ]);
    expect(created(env, 'ok')[0]?.linux?.securityContext?.runAsUser).toEqual({ value: 1000 });
  });

  it('a failing postStart hook kills the container and reports PostStartHookError with the upstream message', async () => {
    const env = setup();
    env.runtime.setExecHandler((_id, cmd) => (cmd.includes('fail') ? { exitCode: 1, stderr: 'boom' } : { exitCode: 0 }));
    const hooked: Container = {
      name: 'hooked',
      image: 'busybox:1.36',
      lifecycle: { postStart: { exec: { command: ['sh', '-c', 'fail'] } } },
    };
    const pod = makePod({ containers: [hooked] });
    const result = await sync(env, pod);
    expect(result.results.at(-1)).toEqual({
      action: 'StartContainer',
      target: 'hooked',
      reason: 'PostStartHookError',
      message:
        'Exec lifecycle hook ([sh -c fail]) for Container "hooked" in Pod "web_prod(uid-1)" failed - error: command \'sh -c fail\' exited with 1: boom, message: "boom"',
    });
    const status = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    expect(status.containers[0]?.state).toBe('exited');
    expect(env.runtime.callsOf('execSync')).toHaveLength(1);
  });

  it('a cancelled sync starts nothing more and reports the abort', async () => {
    const env = setup();
    const controller = new AbortController();
    controller.abort(new Error('pod worker cancelled'));
    const pod = makePod();
    const status = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    const result = await env.manager.syncPod(pod, status, env.backoff, controller.signal);
    expect(env.runtime.callsOf('createContainer')).toHaveLength(0);
    expect(result.error?.message).toBe('pod worker cancelled');
  });

  it('a sandbox that cannot be created is reported as CreatePodSandboxError and nothing else runs', async () => {
    const env = setup();
    env.runtime.injectError('runPodSandbox', 'UNKNOWN');
    const result = await sync(env, makePod());
    expect(summary(result.results)).toEqual(['KillPodSandbox:uid-1', 'CreatePodSandbox:web_prod:CreatePodSandboxError']);
    expect(result.results[1]?.message).toMatch(/^Failed to create sandbox for pod "web_prod\(uid-1\)": /);
    expect(env.runtime.callsOf('createContainer')).toHaveLength(0);
  });
});

describe('maxParallelStarts (kubelet-ts)', () => {
  /**
   * Waits (real time, up to 10 s: the syncs in flight also touch the file system) until they have made
   * `count` calls of `method`.
   */
  async function untilCalls(env: Env, method: Parameters<FakeRuntimeService['callsOf']>[0], count: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (env.runtime.callsOf(method).length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 1));
    expect(env.runtime.callsOf(method)).toHaveLength(count);
  }
  const onePod = (uid: string): Pod => makePod({ containers: [side] }, uid);

  it('bounds RunPodSandbox and CreateContainer+StartContainer together, container starts first', async () => {
    const env = setup({ maxParallelStarts: 1 });
    env.runtime.setDelay('runPodSandbox', 1000);
    const syncs = ['a', 'b', 'c'].map((uid) => sync(env, onePod(uid)));
    await untilCalls(env, 'runPodSandbox', 1);
    // One slot: b and c wait while a's sandbox is being created.
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(env.runtime.callsOf('runPodSandbox')).toHaveLength(1);
    await env.clock.advance(1000);
    await untilCalls(env, 'runPodSandbox', 2);
    // a prepares its container (its log directory is the last file-system step) and queues for the slot
    // behind b's sandbox; it must then go before c's sandbox.
    const aLogDir = path.join(env.logsDir, 'prod_web_a', 'side');
    for (const deadline = Date.now() + 10_000; !existsSync(aLogDir) && Date.now() < deadline;)
      await new Promise((resolve) => setTimeout(resolve, 1));
    await new Promise((resolve) => setTimeout(resolve, 5));
    await env.clock.advance(1000);
    await untilCalls(env, 'createContainer', 1);
    await untilCalls(env, 'runPodSandbox', 3);
    const order = env.runtime.methodsCalled.filter((m) => m === 'runPodSandbox' || m === 'createContainer' || m === 'startContainer');
    expect(order.slice(0, 5)).toEqual(['runPodSandbox', 'runPodSandbox', 'createContainer', 'startContainer', 'runPodSandbox']);
    await env.clock.advance(1000);
    const results = await Promise.all(syncs);
    expect(results.map((r) => r.error)).toEqual([undefined, undefined, undefined]);
    expect(env.runtime.callsOf('startContainer')).toHaveLength(3);
  });

  it('is unlimited by default, as upstream', async () => {
    const env = setup();
    env.runtime.setDelay('runPodSandbox', 1000);
    const syncs = ['a', 'b', 'c'].map((uid) => sync(env, onePod(uid)));
    await untilCalls(env, 'runPodSandbox', 3);
    await env.clock.advance(1000);
    await Promise.all(syncs);
    expect(env.runtime.callsOf('startContainer')).toHaveLength(3);
  });

  it('a sync with nothing to start calls nothing but reads: no sandbox config, no runtime change', async () => {
    const env = setup();
    const pod = onePod('a');
    expect((await sync(env, pod)).error).toBeUndefined();
    const dnsAfterStart = env.helper.dnsCalls;
    const callsAfterStart = env.runtime.calls.length;
    const again = await sync(env, pod);
    expect(again).toEqual({ results: [] });
    expect(env.helper.dnsCalls).toBe(dnsAfterStart);
    // Only the status reads of sync(): ListPodSandbox, PodSandboxStatus, ListContainers, ContainerStatus.
    expect(env.runtime.methodsCalled.slice(callsAfterStart).every((m) => /^(list|podSandboxStatus|containerStatus)/.test(m))).toBe(true);
  });

  it('releases the slot when a start fails', async () => {
    const env = setup({ maxParallelStarts: 1 });
    env.runtime.injectError('createContainer', 'INTERNAL');
    const first = await sync(env, onePod('a'));
    expect(first.results.find((r) => r.action === 'StartContainer')?.reason).toBe('CreateContainerError');
    const second = await sync(env, onePod('b'));
    expect(second.error).toBeUndefined();
  });
});
