import type { Pod } from '@kubelet-ts/api';
import {
  KUBERNETES_CONTAINER_NAME_LABEL,
  KUBERNETES_POD_NAME_LABEL,
  KUBERNETES_POD_NAMESPACE_LABEL,
  KUBERNETES_POD_UID_LABEL,
} from '@kubelet-ts/container-runtime';
import { ContainerState, CriError } from '@kubelet-ts/cri-client';
import type { RuntimeService } from '@kubelet-ts/cri-client';
import type { StreamingSource } from '@kubelet-ts/server';

type StreamingRuntime = Pick<RuntimeService, 'listContainers' | 'listPodSandbox' | 'exec' | 'attach' | 'portForward' | 'execSync'>;

/** Upstream kubecontainer.GetPodFullName: `<name>_<namespace>`. */
const podFullName = (pod: Pod): string => `${pod.metadata.name}_${pod.metadata.namespace}`;

interface ContainerSpecLike {
  name: string;
  tty?: boolean;
}

function containerSpec(pod: Pod, name: string): ContainerSpecLike | undefined {
  const ephemeral = ((pod.spec as Record<string, unknown>)['ephemeralContainers'] as ContainerSpecLike[] | undefined) ?? [];
  return [...pod.spec.containers, ...(pod.spec.initContainers ?? []), ...ephemeral].find((c) => c.name === name);
}

/** The runtime's errors as upstream's streaming.WriteError sorts them: NotFound 404, ResourceExhausted 429. */
function withStatus(err: unknown): unknown {
  if (CriError.is(err, 'NOT_FOUND')) return Object.assign(err, { status: 404 });
  if (CriError.is(err, 'RESOURCE_EXHAUSTED')) return Object.assign(err, { status: 429 });
  return err;
}

async function runtimeCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw withStatus(err);
  }
}

/**
 * The streaming routes' source (upstream Kubelet.GetExec, GetAttach, GetPortForward and
 * RunInContainer): the pod by name from the kubelet's pods, the container among the runtime's running
 * ones by its CRI labels (upstream findContainer, which looks the pod up by full name), the URL from
 * the runtime's streaming server.
 */
export function streamingSource(options: { getPods: () => readonly Pod[]; runtime: StreamingRuntime }): StreamingSource {
  const { runtime } = options;

  const runningContainer = async (pod: Pod, name: string): Promise<string | undefined> => {
    const { containers } = await runtimeCall(() =>
      runtime.listContainers({
        filter: {
          state: { state: ContainerState.CONTAINER_RUNNING },
          labelSelector: {
            [KUBERNETES_POD_NAME_LABEL]: pod.metadata.name,
            [KUBERNETES_POD_NAMESPACE_LABEL]: pod.metadata.namespace,
            [KUBERNETES_CONTAINER_NAME_LABEL]: name,
          },
        },
      }),
    );
    const newest = [...containers].sort((a, b) => Number(BigInt(b.createdAt) - BigInt(a.createdAt)))[0];
    return newest?.id;
  };

  return {
    getPodByName: (namespace, name) => options.getPods().find((p) => p.metadata.namespace === namespace && p.metadata.name === name),

    async getExec({ pod, container, command, streams }) {
      const containerId = await runningContainer(pod, container);
      if (containerId === undefined) throw new Error(`container not found (${JSON.stringify(container)})`);
      const { url } = await runtimeCall(() => runtime.exec({ containerId, cmd: command, ...streams }));
      return url;
    },

    async getAttach({ pod, podUid, container, streams }) {
      const containerId = await runningContainer(pod, container);
      const notFound = `container ${container} not found in pod ${podFullName(pod)}`;
      if (containerId === undefined) throw new Error(notFound);
      if (podUid !== '' && podUid !== pod.metadata.uid) throw new Error(`pod ${podFullName(pod)} not found`);
      // The tty of an attach is the container's own: a running process cannot change it.
      const spec = containerSpec(pod, container);
      if (spec === undefined) throw new Error(notFound);
      const { url } = await runtimeCall(() =>
        runtime.attach({ containerId, stdin: streams.stdin, stdout: streams.stdout, stderr: streams.stderr, tty: spec.tty === true }),
      );
      return url;
    },

    async getPortForward({ pod, ports }) {
      const { items } = await runtimeCall(() =>
        runtime.listPodSandbox({ filter: { labelSelector: { [KUBERNETES_POD_UID_LABEL]: pod.metadata.uid } } }),
      );
      const newest = [...items].sort((a, b) => Number(BigInt(b.createdAt) - BigInt(a.createdAt)))[0];
      const desc = `${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`;
      if (newest === undefined) throw new Error(`failed to find sandboxID for pod ${desc}`);
      const { url } = await runtimeCall(() => runtime.portForward({ podSandboxId: newest.id, port: ports }));
      return url;
    },

    async runInContainer({ pod, container, command }) {
      const containerId = await runningContainer(pod, container);
      if (containerId === undefined) throw new Error(`container not found (${JSON.stringify(container)})`);
      const result = await runtimeCall(() => runtime.execSync({ containerId, cmd: command, timeout: 0 }));
      if (result.exitCode !== 0) {
        throw new Error(`command '${command.join(' ')}' exited with ${result.exitCode}: ${Buffer.from(result.stderr).toString()}`);
      }
      return Buffer.concat([result.stdout, result.stderr]);
    },
  };
}
