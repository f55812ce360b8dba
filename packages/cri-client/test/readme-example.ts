import type { CriClient, PodSandboxConfig } from '../src/index.js';

/** Pulls busybox, runs it in a new pod, execs a command in it, and removes the pod again. */
export async function helloPod(cri: CriClient): Promise<{ state: string; output: string }> {
  const sandboxConfig: PodSandboxConfig = {
    metadata: { name: 'hello', uid: '6b1e9c2a-0001', namespace: 'default', attempt: 0 },
    hostname: 'hello',
    logDirectory: '/var/log/pods/default_hello_6b1e9c2a-0001',
    labels: { 'io.kubernetes.pod.name': 'hello' },
  };
  const { imageRef } = await cri.image.pullImage({ image: { image: 'docker.io/library/busybox:1.36' } });
  const { podSandboxId } = await cri.runtime.runPodSandbox({ config: sandboxConfig });
  try {
    const { containerId } = await cri.runtime.createContainer({
      podSandboxId,
      sandboxConfig,
      config: {
        metadata: { name: 'main', attempt: 0 },
        image: { image: imageRef },
        command: ['sleep', '3600'],
        envs: [{ key: 'GREETING', value: 'hello' }],
        logPath: 'main/0.log',
      },
    });
    await cri.runtime.startContainer({ containerId });
    const { status } = await cri.runtime.containerStatus({ containerId });
    // status.state is an enum name ('CONTAINER_RUNNING'); status.startedAt is int64 nanoseconds as a string.
    const result = await cri.runtime.execSync({ containerId, cmd: ['sh', '-c', 'echo $GREETING'], timeout: 5 });
    return { state: status?.state ?? 'unknown', output: result.stdout.toString('utf8') };
  } finally {
    // Already gone counts as done: NOT_FOUND is treated as success here.
    await cri.runtime.stopPodSandbox({ podSandboxId }, { ignoreNotFound: true });
    await cri.runtime.removePodSandbox({ podSandboxId });
  }
}
