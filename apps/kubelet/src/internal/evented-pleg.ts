/**
 * The CRI side of the evented PLEG (feature gate EventedPLEG): CRI GetContainerEvents as pod-lifecycle's
 * ContainerEventSource, each event's PodSandboxStatus and ContainersStatuses converted to the runtime
 * contract's pod status as runtime-manager's GetPodStatus converts them (upstream kuberuntime
 * GeneratePodStatus). runtime-manager keeps its converters internal, so the conversion is repeated here.
 */
import { open } from 'node:fs/promises';
import type { Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import type { RuntimeContainerState, RuntimeContainerStatus, RuntimePodStatus, RuntimeSandboxStatus } from '@kubelet-ts/container-runtime';
import type { ContainerEventResponse, ContainerStatus, PodSandboxStatus, RuntimeService } from '@kubelet-ts/cri-client';
import { parseCriLogLine } from '@kubelet-ts/cri-client';
import type { ContainerEventSource, ContainerEventType, RuntimeContainerEvent } from '@kubelet-ts/pod-lifecycle';
import { decodeContainerAnnotations, decodeContainerLabels } from '@kubelet-ts/runtime-manager';

/** Upstream kubecontainer.MaxContainerTerminationMessageLength, …LogLength and …LogLines. */
const MAX_TERMINATION_MESSAGE_BYTES = 4096;
const MAX_TERMINATION_MESSAGE_LOG_BYTES = 2048;
const MAX_TERMINATION_MESSAGE_LOG_LINES = 80;

const EVENT_TYPES: readonly ContainerEventType[] = [
  'CONTAINER_CREATED_EVENT',
  'CONTAINER_STARTED_EVENT',
  'CONTAINER_STOPPED_EVENT',
  'CONTAINER_DELETED_EVENT',
];

/** CRI nanosecond timestamps to milliseconds; missing or malformed ones are 0. */
function nsToMs(ns: unknown): number {
  if (typeof ns !== 'string' && typeof ns !== 'number') return 0;
  try {
    return Number(BigInt(ns) / 1_000_000n);
  } catch {
    return 0;
  }
}

function containerStateOf(state: unknown): RuntimeContainerState {
  switch (state) {
    case 'CONTAINER_CREATED':
      return 'created';
    case 'CONTAINER_RUNNING':
      return 'running';
    case 'CONTAINER_EXITED':
      return 'exited';
    default:
      return 'unknown';
  }
}

async function readFileHead(path: string, maxBytes: number): Promise<string> {
  let handle;
  try {
    handle = await open(path, 'r');
    const buf = Buffer.alloc(maxBytes);
    const { bytesRead } = await handle.read(buf, 0, maxBytes, 0);
    return buf.subarray(0, bytesRead).toString('utf8');
  } catch {
    return '';
  } finally {
    await handle?.close();
  }
}

/** Upstream readLastStringFromContainerLogs: the last 80 lines of the log, at most their last 2 KiB. */
async function readLastLogLines(path: string): Promise<string> {
  const window = 64 * 1024;
  let text: string;
  try {
    const handle = await open(path, 'r');
    try {
      const { size } = await handle.stat();
      const length = Math.min(size, window);
      const buf = Buffer.alloc(length);
      await handle.read(buf, 0, length, size - length);
      text = buf.toString('utf8');
      // A first line cut by the tail read is dropped.
      if (length === window) text = text.slice(text.indexOf('\n') + 1);
    } finally {
      await handle.close();
    }
  } catch {
    return '';
  }
  const lines: string[] = [];
  let partial = '';
  for (const raw of text.split('\n')) {
    if (raw === '') continue;
    let record;
    try {
      record = parseCriLogLine(raw);
    } catch {
      continue;
    }
    partial += record.content.toString('utf8');
    if (record.partial) continue;
    lines.push(`${partial}\n`);
    partial = '';
  }
  if (partial !== '') lines.push(partial);
  const joined = lines.slice(-MAX_TERMINATION_MESSAGE_LOG_LINES).join('');
  const bytes = Buffer.from(joined, 'utf8');
  return bytes.length <= MAX_TERMINATION_MESSAGE_LOG_BYTES
    ? joined
    : bytes.subarray(bytes.length - MAX_TERMINATION_MESSAGE_LOG_BYTES).toString('utf8');
}

function toSandboxStatus(status: PodSandboxStatus): RuntimeSandboxStatus {
  const ip = status.network?.ip ?? '';
  return {
    id: status.id,
    state: status.state === 'SANDBOX_READY' ? 'ready' : 'notready',
    createdAt: nsToMs(status.createdAt),
    attempt: status.metadata?.attempt ?? 0,
    ...(ip === '' ? {} : { ip }),
    additionalIps: (status.network?.additionalIps ?? []).map((p) => p.ip).filter((p) => p !== ''),
    hostNetwork: status.linux?.namespaces?.options?.network === 'NODE',
  };
}

/** As runtime-manager's GetPodStatus: labels and annotations decoded, the termination message read for an exited container. */
async function toContainerStatus(status: ContainerStatus): Promise<RuntimeContainerStatus | undefined> {
  const labels = decodeContainerLabels(status.labels);
  if (labels.containerName === '') return undefined;
  const annotations = decodeContainerAnnotations(status.annotations);
  const state = containerStateOf(status.state);
  const out: RuntimeContainerStatus = {
    id: status.id,
    name: labels.containerName,
    state,
    createdAt: nsToMs(status.createdAt),
    image: status.image?.userSpecifiedImage || status.image?.image || '',
    imageRef: status.imageRef,
    hash: annotations.hash,
    restartCount: annotations.restartCount,
  };
  const startedAt = nsToMs(status.startedAt);
  if (startedAt > 0) out.startedAt = startedAt;
  const finishedAt = nsToMs(status.finishedAt);
  if (finishedAt > 0) out.finishedAt = finishedAt;
  if (state === 'exited') out.exitCode = status.exitCode;
  if (status.reason !== '') out.reason = status.reason;
  let message = status.message;
  if (state === 'exited') {
    const fallbackToLogs =
      annotations.terminationMessagePolicy === 'FallbackToLogsOnError' && status.exitCode !== 0 && status.reason !== 'ContainerCannotRun';
    const mount = status.mounts.find(
      (m) => annotations.terminationMessagePath !== '' && m.containerPath === annotations.terminationMessagePath,
    );
    let termination = mount !== undefined ? await readFileHead(mount.hostPath, MAX_TERMINATION_MESSAGE_BYTES) : '';
    if (termination === '' && fallbackToLogs && status.logPath !== '') termination = await readLastLogLines(status.logPath);
    if (termination !== '') message = message === '' ? termination : `${message}: ${termination}`;
  }
  if (message !== '') out.message = message;
  return out;
}

/**
 * Upstream GeneratePodStatus: the pod as one event shows it (its sandbox, every container of it, newest
 * first). Undefined when the runtime sent no sandbox status or no metadata in it.
 */
export async function podStatusFromEvent(event: ContainerEventResponse, createdAt: number): Promise<RuntimePodStatus | undefined> {
  const sandbox = event.podSandboxStatus;
  const metadata = sandbox?.metadata;
  if (sandbox === null || metadata === null || metadata === undefined) return undefined;
  const sandboxStatus = toSandboxStatus(sandbox);
  const converted = await Promise.all(event.containersStatuses.map((c) => toContainerStatus(c)));
  const containers = converted.filter((c): c is RuntimeContainerStatus => c !== undefined).sort((a, b) => b.createdAt - a.createdAt);
  const ips = sandboxStatus.ip !== undefined ? [sandboxStatus.ip, ...sandboxStatus.additionalIps] : [];
  return {
    uid: metadata.uid,
    name: metadata.name,
    namespace: metadata.namespace,
    ips,
    sandboxes: [sandboxStatus],
    containers,
    timestamp: createdAt,
  };
}

/** One CRI event as the evented PLEG takes it; an unknown event type is passed on as sent, for the PLEG to refuse. */
export async function toRuntimeContainerEvent(event: ContainerEventResponse): Promise<RuntimeContainerEvent> {
  const createdAt = nsToMs(event.createdAt);
  const type = EVENT_TYPES.find((t) => t === event.containerEventType) ?? (String(event.containerEventType) as ContainerEventType);
  return { containerId: event.containerId, type, createdAt, podStatus: await podStatusFromEvent(event, createdAt) };
}

/**
 * CRI GetContainerEvents as the evented PLEG's source: no deadline; the stream ends when the signal aborts.
 * An event that cannot be converted is logged and skipped, never a failed stream.
 */
export function criContainerEventSource(runtime: Pick<RuntimeService, 'getContainerEvents'>, logger: Logger): ContainerEventSource {
  return {
    async *getContainerEvents(signal: AbortSignal) {
      for await (const event of runtime.getContainerEvents({}, { signal })) {
        let converted: RuntimeContainerEvent;
        try {
          converted = await toRuntimeContainerEvent(event);
        } catch (err) {
          logger.error('Evented PLEG: ignoring a container event', { reason: errorMessage(err) });
          continue;
        }
        yield converted;
      }
    },
  };
}
