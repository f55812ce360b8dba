import type { Container, Pod } from '@kubelet-ts/api';
import { RecordingEventRecorder } from '@kubelet-ts/common/testing';
import { CriError } from '@kubelet-ts/cri-client';
import type { RuntimeManagerOptions } from '../runtime-manager.js';
import { containerRef, recordContainerEvent } from './events.js';
import { makePod, setup, side, sync } from './test-env.js';

const podRef = { kind: 'Pod', apiVersion: 'v1', name: 'web', namespace: 'prod', uid: 'uid-1' };
const at = (fieldPath: string) => ({ ...podRef, fieldPath });

function withRecorder(extra: Partial<RuntimeManagerOptions> = {}) {
  const recorder = new RecordingEventRecorder();
  return { recorder, env: setup({ recorder, ...extra }) };
}

/** A CRI error as the client builds it from a gRPC status: the runtime's text is in `details`. */
function criError(method: string, details: string): CriError {
  return new CriError('UNKNOWN', `${method}: UNKNOWN: ${details}`, { method, details });
}

describe('runtime manager events: container starts', () => {
  it('Pulled, Created and Started for each container, about the container (kind, uid, fieldPath)', async () => {
    const { env, recorder } = withRecorder();
    const pod = makePod();
    pod.metadata.resourceVersion = '42';
    expect((await sync(env, pod)).error).toBeUndefined();
    const about = (name: string) => ({ ...podRef, resourceVersion: '42', fieldPath: `spec.containers{${name}}` });
    expect(recorder.events).toEqual([
      { object: about('app'), type: 'Normal', reason: 'Pulled', message: 'Container image "busybox:1.36" already present on machine' },
      { object: about('app'), type: 'Normal', reason: 'Created', message: 'Created container: app' },
      { object: about('app'), type: 'Normal', reason: 'Started', message: 'Started container app' },
      { object: about('side'), type: 'Normal', reason: 'Pulled', message: 'Container image "web:1" already present on machine' },
      { object: about('side'), type: 'Normal', reason: 'Created', message: 'Created container: side' },
      { object: about('side'), type: 'Normal', reason: 'Started', message: 'Started container side' },
    ]);
    // A new pod's first sandbox is no SandboxChanged.
    expect(recorder.find('SandboxChanged')).toEqual([]);
  });

  it('an init container is referred to as spec.initContainers{name}', async () => {
    const { env, recorder } = withRecorder();
    await sync(env, makePod({ initContainers: [{ name: 'setup', image: 'busybox:1.36' }], containers: [side] }));
    expect(recorder.events.map((e) => [e.object.fieldPath, e.reason])).toEqual([
      ['spec.initContainers{setup}', 'Pulled'],
      ['spec.initContainers{setup}', 'Created'],
      ['spec.initContainers{setup}', 'Started'],
    ]);
  });

  it('a failed pull: Failed with the pull error, then "Error: ErrImagePull"; next sync BackOff and "Error: ImagePullBackOff"', async () => {
    const { env, recorder } = withRecorder();
    env.images.injectError('pullImage', criError('PullImage', 'failed to resolve reference "remote:1": not found'));
    const pod = makePod({ containers: [{ name: 'pull', image: 'remote:1', imagePullPolicy: 'Always' }] });
    await sync(env, pod);
    await sync(env, pod);
    expect(recorder.events.map((e) => `${e.object.fieldPath} ${e.type} ${e.reason} ${e.message}`)).toEqual([
      'spec.containers{pull} Normal Pulling Pulling image "remote:1"',
      'spec.containers{pull} Warning Failed Failed to pull image "remote:1": failed to resolve reference "remote:1": not found',
      'spec.containers{pull} Warning Failed Error: ErrImagePull',
      'spec.containers{pull} Normal BackOff Back-off pulling image "remote:1"',
      'spec.containers{pull} Warning Failed Error: ImagePullBackOff',
    ]);
  });

  it('an image the policy forbids pulling: ErrImageNeverPull, then "Error: ErrImageNeverPull"', async () => {
    const { env, recorder } = withRecorder();
    await sync(env, makePod({ containers: [{ name: 'never', image: 'nothere:1', imagePullPolicy: 'Never' }] }));
    expect(recorder.lines()).toEqual([
      'Warning ErrImageNeverPull Container image "nothere:1" is not present with pull policy of Never',
      'Warning Failed Error: ErrImageNeverPull',
    ]);
  });

  it('a config error, a failed CreateContainer and a failed StartContainer: Warning Failed "Error: <message>"', async () => {
    const pod = makePod({ containers: [side] });
    const config = withRecorder();
    config.env.helper.fail = new Error('configmap "cfg" not found');
    await sync(config.env, pod);
    expect(config.recorder.lines().slice(1)).toEqual(['Warning Failed Error: configmap "cfg" not found']);

    const create = withRecorder();
    create.env.runtime.injectError('createContainer', criError('CreateContainer', 'failed to reserve container name'));
    await sync(create.env, pod);
    expect(create.recorder.lines().slice(1)).toEqual(['Warning Failed Error: failed to reserve container name']);

    const start = withRecorder();
    start.env.runtime.injectError('startContainer', criError('StartContainer', 'OCI runtime start failed: exec: "nope": not found'));
    await sync(start.env, pod);
    expect(start.recorder.lines().slice(1)).toEqual([
      'Normal Created Created container: side',
      'Warning Failed Error: OCI runtime start failed: exec: "nope": not found',
    ]);
    expect(start.recorder.events.every((e) => e.object.fieldPath === 'spec.containers{side}')).toBe(true);
  });

  it('a failed postStart hook: FailedPostStartHook without the hook output, then Killing "FailedPostStartHook"', async () => {
    const { env, recorder } = withRecorder();
    env.runtime.setExecHandler(() => ({ exitCode: 1, stderr: 'password=hunter2' }));
    const hooked: Container = { name: 'hooked', image: 'busybox:1.36', lifecycle: { postStart: { exec: { command: ['fail'] } } } };
    await sync(env, makePod({ containers: [hooked] }));
    expect(recorder.lines().slice(1)).toEqual([
      'Normal Created Created container: hooked',
      'Normal Started Started container hooked',
      'Warning FailedPostStartHook PostStartHook failed',
      'Normal Killing FailedPostStartHook',
    ]);
    expect(recorder.find('FailedPostStartHook')[0]?.object).toEqual(at('spec.containers{hooked}'));
  });

  it('a crash-looping container inside its back-off: Warning BackOff "Back-off restarting failed container"', async () => {
    const { env, recorder } = withRecorder();
    const pod = makePod({ containers: [side] });
    await sync(env, pod);
    const exit = async () => {
      const status = await env.manager.getPodStatus('uid-1', 'web', 'prod');
      env.runtime.exitContainer(status.containers[0]?.id ?? '', 1);
    };
    await exit();
    await sync(env, pod); // restarted at once: the back-off starts
    await exit();
    await env.clock.advance(5_000);
    recorder.events.length = 0;
    await sync(env, pod);
    expect(recorder.events).toEqual([
      {
        object: at('spec.containers{side}'),
        type: 'Warning',
        reason: 'BackOff',
        message: 'Back-off restarting failed container side in pod web_prod(uid-1)',
      },
    ]);
  });
});

describe('runtime manager events: kills', () => {
  it('a failed liveness probe: Killing with the reason computePodActions gives', async () => {
    let failing = false;
    const { env, recorder } = withRecorder({ probeResults: { livenessFailed: () => failing, startupFailed: () => false } });
    const pod = makePod({ containers: [side] });
    await sync(env, pod);
    failing = true;
    recorder.events.length = 0;
    await sync(env, pod);
    expect(recorder.events[0]).toEqual({
      object: at('spec.containers{side}'),
      type: 'Normal',
      reason: 'Killing',
      message: 'Container side failed liveness probe, will be restarted',
    });
  });

  it('killPod: Killing "Stopping container <name>" for each container; a failed preStop hook is FailedPreStopHook', async () => {
    const { env, recorder } = withRecorder();
    env.runtime.setExecHandler(() => ({ exitCode: 1, stderr: 'token=secret' }));
    const pod = makePod({ containers: [{ ...side, name: 'hooked', lifecycle: { preStop: { exec: { command: ['drain'] } } } }, side] });
    await sync(env, pod);
    const running = (await env.manager.getPods(false))[0];
    if (running === undefined) throw new Error('pod not running');
    recorder.events.length = 0;
    await env.manager.killPod(pod, running);
    expect(recorder.events).toHaveLength(3);
    expect(recorder.events).toEqual(
      expect.arrayContaining([
        { object: at('spec.containers{hooked}'), type: 'Normal', reason: 'Killing', message: 'Stopping container hooked' },
        { object: at('spec.containers{side}'), type: 'Normal', reason: 'Killing', message: 'Stopping container side' },
        { object: at('spec.containers{hooked}'), type: 'Warning', reason: 'FailedPreStopHook', message: 'PreStopHook failed' },
      ]),
    );
  });

  it('killPod without the pod spec: the pod restored from the labels, the container "implicitly required"', async () => {
    const { env, recorder } = withRecorder();
    await sync(env, makePod({ containers: [side] }));
    const running = (await env.manager.getPods(false))[0];
    if (running === undefined) throw new Error('pod not running');
    recorder.events.length = 0;
    await env.manager.killPod(undefined, running);
    expect(recorder.events).toEqual([
      { object: at('implicitly required container side'), type: 'Normal', reason: 'Killing', message: 'Stopping container side' },
    ]);
  });
});

describe('runtime manager events: sandboxes', () => {
  it('a sandbox that is no longer ready: SandboxChanged about the pod, then the kills', async () => {
    const { env, recorder } = withRecorder();
    const pod = makePod({ containers: [side] });
    await sync(env, pod);
    const status = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    env.runtime.setSandboxState(status.sandboxes[0]?.id ?? '', 'SANDBOX_NOTREADY');
    recorder.events.length = 0;
    await sync(env, pod);
    expect(recorder.events.slice(0, 2)).toEqual([
      { object: podRef, type: 'Normal', reason: 'SandboxChanged', message: 'Pod sandbox changed, it will be killed and re-created.' },
      { object: at('spec.containers{side}'), type: 'Normal', reason: 'Killing', message: 'Stopping container side' },
    ]);
  });

  it('RunPodSandbox failing: Warning FailedCreatePodSandBox about the pod, with the runtime message', async () => {
    const { env, recorder } = withRecorder();
    env.runtime.injectError('runPodSandbox', criError('RunPodSandbox', 'failed to setup network for sandbox: plugin type="bridge" failed'));
    await sync(env, makePod());
    expect(recorder.events).toEqual([
      {
        object: podRef,
        type: 'Warning',
        reason: 'FailedCreatePodSandBox',
        message: 'Failed to create pod sandbox: failed to setup network for sandbox: plugin type="bridge" failed',
      },
    ]);
  });

  it('PodSandboxStatus failing right after the sandbox was created: Warning FailedPodSandBoxStatus', async () => {
    const { env, recorder } = withRecorder();
    const pod = makePod();
    const status = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    env.runtime.injectError('podSandboxStatus', criError('PodSandboxStatus', 'sandbox is being torn down'));
    const result = await env.manager.syncPod(pod, status, env.backoff);
    expect(result.error).toBeDefined();
    expect(recorder.lines()).toEqual(['Warning FailedPodSandBoxStatus Unable to get pod sandbox status: sandbox is being torn down']);
  });
});

describe('containerRef and recordContainerEvent', () => {
  const pod: Pod = {
    metadata: { name: 'web', namespace: 'prod', uid: 'uid-1' },
    spec: {
      containers: [side],
      initContainers: [{ name: 'setup', image: 'x' }],
      ephemeralContainers: [{ name: 'debug', image: 'busybox' }],
    },
  };

  it('names the list the container is declared in, else upstream\'s "implicitly required container"', () => {
    expect(containerRef(pod, 'side').fieldPath).toBe('spec.containers{side}');
    expect(containerRef(pod, 'setup').fieldPath).toBe('spec.initContainers{setup}');
    expect(containerRef(pod, 'debug').fieldPath).toBe('spec.ephemeralContainers{debug}');
    expect(containerRef(pod, 'gone')).toEqual(at('implicitly required container gone'));
  });

  it('replaces the container ID in the message with the name, so repeated events aggregate', () => {
    const recorder = new RecordingEventRecorder();
    recordContainerEvent(recorder, {
      pod,
      name: 'side',
      containerId: 'abc123',
      type: 'Warning',
      reason: 'Failed',
      message: 'Error: container abc123 failed: task abc123 not found',
    });
    expect(recorder.lines()).toEqual(['Warning Failed Error: container side failed: task side not found']);
  });
});
