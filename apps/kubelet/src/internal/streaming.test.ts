import { newPod } from '@kubelet-ts/api/testing';
import { FakeClock } from '@kubelet-ts/common/testing';
import { CriError } from '@kubelet-ts/cri-client';
import { FakeRuntimeService } from '@kubelet-ts/cri-client/testing';
import { streamingSource } from './streaming.js';

const pod = newPod({ name: 'web', namespace: 'prod', uid: 'uid-1', containers: [{ name: 'app' }, { name: 'sidecar' }] });
(pod.spec.containers[0] as { tty?: boolean }).tty = true;

async function setUp() {
  const clock = new FakeClock();
  const runtime = new FakeRuntimeService({ clock });
  const podLabels = { 'io.kubernetes.pod.name': 'web', 'io.kubernetes.pod.namespace': 'prod', 'io.kubernetes.pod.uid': 'uid-1' };
  const { podSandboxId } = await runtime.runPodSandbox({
    config: { metadata: { name: 'web', uid: 'uid-1', namespace: 'prod' }, labels: podLabels },
  });
  const container = async (name: string, running: boolean, attempt = 0): Promise<string> => {
    await clock.advance(1000);
    const { containerId } = await runtime.createContainer({
      podSandboxId,
      config: { metadata: { name, attempt }, image: { image: 'busybox' }, labels: { ...podLabels, 'io.kubernetes.container.name': name } },
    });
    await runtime.startContainer({ containerId });
    if (!running) runtime.exitContainer(containerId, 1);
    return containerId;
  };
  const exited = await container('app', false);
  const running = await container('app', true, 1);
  await container('sidecar', false);
  const source = streamingSource({ getPods: () => [pod], runtime });
  return { runtime, source, podSandboxId, running, exited };
}

describe('streamingSource', () => {
  it('finds the pod by namespace and name', async () => {
    const { source } = await setUp();
    expect(source.getPodByName('prod', 'web')).toBe(pod);
    expect(source.getPodByName('default', 'web')).toBeUndefined();
  });

  it('execs in the running container of that name with the streams asked for', async () => {
    const { runtime, source, running } = await setUp();
    const exec = jest.spyOn(runtime, 'exec');
    const url = await source.getExec({
      pod,
      podUid: '',
      container: 'app',
      command: ['sh'],
      streams: { stdin: true, stdout: true, stderr: false, tty: true },
    });
    expect(url).toBe(`http://127.0.0.1:10010/exec/${running.slice(0, 8)}`);
    expect(exec).toHaveBeenCalledWith({ containerId: running, cmd: ['sh'], stdin: true, stdout: true, stderr: false, tty: true });
  });

  it('attaches with the tty of the container spec, whatever the request says', async () => {
    const { runtime, source, running } = await setUp();
    const attach = jest.spyOn(runtime, 'attach');
    await source.getAttach({ pod, podUid: 'uid-1', container: 'app', streams: { stdin: true, stdout: true, stderr: true, tty: false } });
    expect(attach).toHaveBeenCalledWith({ containerId: running, stdin: true, stdout: true, stderr: true, tty: true });
    await expect(
      source.getAttach({ pod, podUid: 'uid-2', container: 'app', streams: { stdin: false, stdout: true, stderr: false, tty: false } }),
    ).rejects.toThrow('pod web_prod not found');
  });

  it('refuses containers that are not running with the upstream texts', async () => {
    const { source } = await setUp();
    const streams = { stdin: false, stdout: true, stderr: false, tty: false };
    await expect(source.getExec({ pod, podUid: '', container: 'sidecar', command: ['ls'], streams })).rejects.toThrow(
      'container not found ("sidecar")',
    );
    await expect(source.getAttach({ pod, podUid: '', container: 'db', streams })).rejects.toThrow('container db not found in pod web_prod');
    await expect(source.runInContainer({ pod, podUid: '', container: 'db', command: ['ls'] })).rejects.toThrow(
      'container not found ("db")',
    );
  });

  it("port-forwards into the pod's sandbox, found by its uid", async () => {
    const { runtime, source, podSandboxId } = await setUp();
    const portForward = jest.spyOn(runtime, 'portForward');
    await source.getPortForward({ pod, ports: [8080] });
    expect(portForward).toHaveBeenCalledWith({ podSandboxId, port: [8080] });
    const other = newPod({ name: 'db', namespace: 'prod', uid: 'uid-9' });
    await expect(source.getPortForward({ pod: other, ports: [] })).rejects.toThrow('failed to find sandboxID for pod db_prod(uid-9)');
  });

  it('runs a command and gives stdout then stderr, or the upstream error for a non-zero exit', async () => {
    const { runtime, source } = await setUp();
    runtime.setExecHandler((_id, cmd) =>
      cmd[0] === 'false' ? { exitCode: 2, stderr: 'no\n' } : { exitCode: 0, stdout: 'out\n', stderr: 'err\n' },
    );
    const output = await source.runInContainer({ pod, podUid: '', container: 'app', command: ['cat', '/x'] });
    expect(Buffer.from(output).toString()).toBe('out\nerr\n');
    await expect(source.runInContainer({ pod, podUid: '', container: 'app', command: ['false', '-v'] })).rejects.toThrow(
      "command 'false -v' exited with 2: no\n",
    );
  });

  it("tags the runtime's NotFound and ResourceExhausted answers with 404 and 429", async () => {
    const { runtime, source } = await setUp();
    const streams = { stdin: false, stdout: true, stderr: false, tty: false };
    jest
      .spyOn(runtime, 'exec')
      .mockRejectedValueOnce(new CriError('NOT_FOUND', 'no such container'))
      .mockRejectedValueOnce(new CriError('RESOURCE_EXHAUSTED', 'too many'))
      .mockRejectedValueOnce(new CriError('UNKNOWN', 'broken'));
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      const err = await source.getExec({ pod, podUid: '', container: 'app', command: ['ls'], streams }).catch((e: unknown) => e);
      statuses.push((err as { status?: number }).status);
    }
    expect(statuses).toEqual([404, 429, undefined]);
  });
});
