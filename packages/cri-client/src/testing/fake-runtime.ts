import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Clock } from '@kubelet-ts/common';
import type {
  AttachRequest,
  AttachResponse,
  CheckpointContainerRequest,
  CheckpointContainerResponse,
  Container,
  ContainerEventResponse,
  ContainerEventType,
  ContainerState,
  ContainerStats,
  ContainerStatsRequest,
  ContainerStatsResponse,
  ContainerStatus,
  ContainerStatusRequest,
  ContainerStatusResponse,
  CreateContainerRequest,
  CreateContainerResponse,
  ExecRequest,
  ExecResponse,
  ExecSyncRequest,
  ExecSyncResponse,
  GetEventsRequest,
  LinuxContainerResourcesOutput,
  ListContainerStatsRequest,
  ListContainerStatsResponse,
  ListContainersRequest,
  ListContainersResponse,
  ListMetricDescriptorsRequest,
  ListMetricDescriptorsResponse,
  ListPodSandboxMetricsRequest,
  ListPodSandboxMetricsResponse,
  ListPodSandboxRequest,
  ListPodSandboxResponse,
  ListPodSandboxStatsRequest,
  ListPodSandboxStatsResponse,
  PodSandbox,
  PodSandboxState,
  PodSandboxStats,
  PodSandboxStatsRequest,
  PodSandboxStatsResponse,
  PodSandboxStatus,
  PodSandboxStatusRequest,
  PodSandboxStatusResponse,
  PortForwardRequest,
  PortForwardResponse,
  RemoveContainerRequest,
  RemoveContainerResponse,
  RemovePodSandboxRequest,
  RemovePodSandboxResponse,
  ReopenContainerLogRequest,
  ReopenContainerLogResponse,
  RunPodSandboxRequest,
  RunPodSandboxResponse,
  RuntimeCondition,
  RuntimeConfigRequest,
  RuntimeConfigResponse,
  StartContainerRequest,
  StartContainerResponse,
  StatusRequest,
  StatusResponse,
  StopContainerRequest,
  StopContainerResponse,
  StopPodSandboxRequest,
  StopPodSandboxResponse,
  StreamContainerStatsRequest,
  StreamContainerStatsResponse,
  StreamContainersRequest,
  StreamContainersResponse,
  StreamPodSandboxMetricsRequest,
  StreamPodSandboxMetricsResponse,
  StreamPodSandboxStatsRequest,
  StreamPodSandboxStatsResponse,
  StreamPodSandboxesRequest,
  StreamPodSandboxesResponse,
  UpdateContainerResourcesRequest,
  UpdateContainerResourcesResponse,
  UpdatePodSandboxResourcesRequest,
  UpdatePodSandboxResourcesResponse,
  UpdateRuntimeConfigRequest,
  UpdateRuntimeConfigResponse,
  VersionRequest,
  VersionResponse,
} from '../gen/messages.js';
import type { CgroupDriver } from '../gen/messages.js';
import type { ContainerConfig__Output } from '../gen/runtime/v1/ContainerConfig.js';
import type { ContainerFilter__Output } from '../gen/runtime/v1/ContainerFilter.js';
import type { ContainerStatsFilter__Output } from '../gen/runtime/v1/ContainerStatsFilter.js';
import type { PodSandboxConfig__Output } from '../gen/runtime/v1/PodSandboxConfig.js';
import type { PodSandboxFilter__Output } from '../gen/runtime/v1/PodSandboxFilter.js';
import type { PodSandboxStatsFilter__Output } from '../gen/runtime/v1/PodSandboxStatsFilter.js';
import type { CallOptions, RemoveCallOptions, RuntimeService, RuntimeServiceMethod, StreamCallOptions } from '../services.js';
import { FakeServiceBase, nanos } from './fake-base.js';
import type { FakeImageService } from './fake-image.js';

/** What an ExecSync handler returns; stdout/stderr may be strings. */
export interface FakeExecResult {
  exitCode?: number;
  stdout?: string | Buffer;
  stderr?: string | Buffer;
}

/** Decides the outcome of ExecSync in a container; may be async (and then subject to the request's timeout). */
export type FakeExecHandler = (containerId: string, cmd: string[]) => FakeExecResult | Promise<FakeExecResult>;

/** The RPCs containerd 1.6 answers with UNIMPLEMENTED; pass as `unimplemented` to mimic it. */
export const CONTAINERD_1_6_UNIMPLEMENTED: readonly RuntimeServiceMethod[] = Object.freeze([
  'getContainerEvents',
  'runtimeConfig',
  'streamPodSandboxes',
  'streamContainers',
  'streamContainerStats',
  'streamPodSandboxStats',
  'streamPodSandboxMetrics',
  'updatePodSandboxResources',
  'checkpointContainer',
  'listMetricDescriptors',
  'listPodSandboxMetrics',
]);

export interface FakeRuntimeServiceOptions {
  /** Source of every timestamp (createdAt/startedAt/finishedAt in ns) and of delays. */
  clock?: Clock;
  /** When given, CreateContainer fails with NOT_FOUND for images it does not have, and image IDs are real. */
  imageService?: FakeImageService;
  /** RPCs answering UNIMPLEMENTED, e.g. CONTAINERD_1_6_UNIMPLEMENTED. */
  unimplemented?: readonly RuntimeServiceMethod[];
  runtimeName?: string;
  runtimeVersion?: string;
  /** Reported by RuntimeConfig; default CGROUPFS. */
  cgroupDriver?: CgroupDriver;
  /** First pod IP handed out; the last octet counts up. Default 10.88.0.2. */
  firstPodIp?: string;
}

interface SandboxRecord {
  id: string;
  config: PodSandboxConfig__Output;
  runtimeHandler: string;
  state: PodSandboxState;
  createdAt: string;
  ip: string;
  resources: LinuxContainerResourcesOutput | null;
}

interface ContainerRecord {
  id: string;
  sandboxId: string;
  config: ContainerConfig__Output;
  state: ContainerState;
  createdAt: string;
  startedAt: string;
  finishedAt: string;
  exitCode: number;
  reason: string;
  message: string;
  imageId: string;
  logPath: string;
  resources: LinuxContainerResourcesOutput | null;
  ignoresSigterm: boolean;
  stopExitCode: number;
  stats: Partial<Pick<ContainerStats, 'cpu' | 'memory' | 'writableLayer'>>;
}

interface EventSubscriber {
  push(event: ContainerEventResponse): void;
}

/**
 * An in-memory CRI RuntimeService that behaves like containerd 1.6 where it matters to a kubelet:
 * sandboxes go READY → NOTREADY on stop (their containers are killed), containers go
 * CREATED → RUNNING → EXITED with exit codes, reasons (Completed, Error, OOMKilled) and ns timestamps from
 * the injected clock, RemoveContainer force-stops a running container, Stop/RemovePodSandbox and
 * RemoveContainer of unknown IDs follow containerd (NOT_FOUND for StopPodSandbox, success for the removes).
 * Records every call; errors and delays can be injected per method.
 */
export class FakeRuntimeService extends FakeServiceBase<RuntimeServiceMethod> implements RuntimeService {
  readonly #sandboxes = new Map<string, SandboxRecord>();
  readonly #containers = new Map<string, ContainerRecord>();
  readonly #subscribers = new Set<EventSubscriber>();
  readonly #unimplemented: Set<string>;
  readonly #images: FakeImageService | undefined;
  readonly #runtimeName: string;
  readonly #runtimeVersion: string;
  readonly #cgroupDriver: CgroupDriver;
  readonly #ipBase: string;
  #ipNext: number;
  #idCounter = 0;
  #execHandler: FakeExecHandler = () => ({ exitCode: 0 });
  #conditions: RuntimeCondition[] = [
    { type: 'RuntimeReady', status: true, reason: '', message: '' },
    { type: 'NetworkReady', status: true, reason: '', message: '' },
  ];
  #podCidr = '';

  constructor(options: FakeRuntimeServiceOptions = {}) {
    super('RuntimeService', options.clock);
    this.#images = options.imageService;
    this.#unimplemented = new Set(options.unimplemented ?? []);
    this.#runtimeName = options.runtimeName ?? 'fake-runtime';
    this.#runtimeVersion = options.runtimeVersion ?? '1.6.20';
    this.#cgroupDriver = options.cgroupDriver ?? 'CGROUPFS';
    const firstIp = options.firstPodIp ?? '10.88.0.2';
    const lastDot = firstIp.lastIndexOf('.');
    this.#ipBase = firstIp.slice(0, lastDot + 1);
    this.#ipNext = Number(firstIp.slice(lastDot + 1));
  }

  // ---------------------------------------------------------------- test helpers

  /** The container ends by itself (its process exited). Reason: Completed for 0, Error otherwise, unless given. */
  exitContainer(id: string, exitCode: number, reason?: string, message = ''): void {
    const container = this.#mustContainer(id);
    if (container.state === 'CONTAINER_EXITED') return;
    if (container.startedAt === '0') container.startedAt = nanos(this.clock.now());
    this.#finish(container, exitCode, reason ?? (exitCode === 0 ? 'Completed' : 'Error'), message);
  }

  /** The cgroup OOM killer ends the container: exit code 137, reason OOMKilled. */
  oomKillContainer(id: string): void {
    this.exitContainer(id, 137, 'OOMKilled');
  }

  /** The container's PID 1 ignores SIGTERM: StopContainer waits the whole grace period (on the clock) and ends it with 137. */
  ignoreSigterm(id: string, ignores = true): void {
    this.#mustContainer(id).ignoresSigterm = ignores;
  }

  /** Exit code when the container honours SIGTERM on StopContainer; default 143 (128 + SIGTERM). */
  setStopExitCode(id: string, exitCode: number): void {
    this.#mustContainer(id).stopExitCode = exitCode;
  }

  /** Forces a container into a state (e.g. CONTAINER_UNKNOWN), without the usual side effects. */
  setContainerState(id: string, state: ContainerState): void {
    this.#mustContainer(id).state = state;
  }

  /** The sandbox dies by itself (e.g. the pause process was killed): NOTREADY, its containers keep their state. */
  setSandboxState(id: string, state: PodSandboxState): void {
    this.#mustSandbox(id).state = state;
  }

  /** Decides what ExecSync returns (default: exit 0, no output). */
  setExecHandler(handler: FakeExecHandler): void {
    this.#execHandler = handler;
  }

  /** Replaces a runtime condition reported by Status (RuntimeReady, NetworkReady, …). */
  setCondition(type: string, status: boolean, reason = '', message = ''): void {
    this.#conditions = [...this.#conditions.filter((c) => c.type !== type), { type, status, reason, message }];
  }

  /** Stats reported for a container by ContainerStats/ListContainerStats (output form, e.g. `{ memory: { workingSetBytes: { value: '1024' } } }`). */
  setContainerStats(id: string, stats: Partial<Pick<ContainerStats, 'cpu' | 'memory' | 'writableLayer'>>): void {
    this.#mustContainer(id).stats = stats;
  }

  /** The current status of a container, or undefined when it does not exist. */
  getContainer(id: string): ContainerStatus | undefined {
    const container = this.#containers.get(id);
    return container === undefined ? undefined : this.#containerStatus(container);
  }

  /** The current status of a sandbox, or undefined when it does not exist. */
  getSandbox(id: string): PodSandboxStatus | undefined {
    const sandbox = this.#sandboxes.get(id);
    return sandbox === undefined ? undefined : this.#sandboxStatus(sandbox);
  }

  /** IDs of every sandbox / container, in creation order. */
  get sandboxIds(): string[] {
    return [...this.#sandboxes.keys()];
  }

  get containerIds(): string[] {
    return [...this.#containers.keys()];
  }

  /** The pod CIDR last set through UpdateRuntimeConfig. */
  get podCidr(): string {
    return this.#podCidr;
  }

  // ---------------------------------------------------------------- RuntimeService: version, status, config

  version(request: VersionRequest, options?: CallOptions): Promise<VersionResponse> {
    return this.#unary('version', request, options, (req: { version: string }) => ({
      version: req.version === '' ? '0.1.0' : req.version,
      runtimeName: this.#runtimeName,
      runtimeVersion: this.#runtimeVersion,
      runtimeApiVersion: 'v1',
    }));
  }

  status(request: StatusRequest, options?: CallOptions): Promise<StatusResponse> {
    return this.#unary('status', request, options, (req: { verbose: boolean }) => {
      const info: Record<string, string> = req.verbose ? { config: JSON.stringify({ podCidr: this.#podCidr }) } : {};
      return {
        status: { conditions: this.#conditions.map((c) => ({ ...c })) },
        info,
        runtimeHandlers: [{ name: '', features: { recursiveReadOnlyMounts: false, userNamespaces: false } }],
        features: { supplementalGroupsPolicy: false, userNamespacesHostNetwork: false },
      };
    });
  }

  runtimeConfig(request: RuntimeConfigRequest, options?: CallOptions): Promise<RuntimeConfigResponse> {
    return this.#unary('runtimeConfig', request, options, () => ({ linux: { cgroupDriver: this.#cgroupDriver } }));
  }

  updateRuntimeConfig(request: UpdateRuntimeConfigRequest, options?: CallOptions): Promise<UpdateRuntimeConfigResponse> {
    return this.#unary(
      'updateRuntimeConfig',
      request,
      options,
      (req: { runtimeConfig: { networkConfig: { podCidr: string } | null } | null }) => {
        this.#podCidr = req.runtimeConfig?.networkConfig?.podCidr ?? '';
        return {};
      },
    );
  }

  // ---------------------------------------------------------------- sandboxes

  runPodSandbox(request: RunPodSandboxRequest, options?: CallOptions): Promise<RunPodSandboxResponse> {
    return this.#unary('runPodSandbox', request, options, (req: { config: PodSandboxConfig__Output | null; runtimeHandler: string }) => {
      const config = req.config;
      const metadata = config?.metadata;
      if (
        config === null ||
        metadata === null ||
        metadata === undefined ||
        metadata.name === '' ||
        metadata.uid === '' ||
        metadata.namespace === ''
      ) {
        throw this.error('runPodSandbox', 'INVALID_ARGUMENT', 'sandbox config must include metadata with name, uid and namespace');
      }
      const hostNetwork = config.linux?.securityContext?.namespaceOptions?.network === 'NODE';
      if (hostNetwork && config.hostname !== '') {
        // containerd rejects a hostname for host-network sandboxes.
        throw this.error('runPodSandbox', 'UNKNOWN', 'failed to setup sandbox: hostname must be empty for host network sandboxes');
      }
      const name = sandboxName(config);
      for (const other of this.#sandboxes.values()) {
        if (sandboxName(other.config) === name) {
          throw this.error(
            'runPodSandbox',
            'UNKNOWN',
            `failed to reserve sandbox name "${name}": name "${name}" is reserved for "${other.id}"`,
          );
        }
      }
      const id = this.#newId('sandbox');
      this.#sandboxes.set(id, {
        id,
        config,
        runtimeHandler: req.runtimeHandler,
        state: 'SANDBOX_READY',
        createdAt: nanos(this.clock.now()),
        ip: hostNetwork ? '' : `${this.#ipBase}${this.#ipNext++}`,
        resources: config.linux?.resources ?? null,
      });
      return { podSandboxId: id };
    });
  }

  stopPodSandbox(request: StopPodSandboxRequest, options?: RemoveCallOptions): Promise<StopPodSandboxResponse> {
    return this.#unary('stopPodSandbox', request, options, (req: { podSandboxId: string }) => {
      const sandbox = this.#findSandbox('stopPodSandbox', req.podSandboxId);
      for (const container of this.#containers.values()) {
        if (container.sandboxId === sandbox.id && container.state === 'CONTAINER_RUNNING') this.#finish(container, 137, 'Error', '');
      }
      sandbox.state = 'SANDBOX_NOTREADY';
      return {};
    });
  }

  removePodSandbox(request: RemovePodSandboxRequest, options?: RemoveCallOptions): Promise<RemovePodSandboxResponse> {
    return this.#unary('removePodSandbox', request, options, (req: { podSandboxId: string }) => {
      const sandbox = this.#lookupSandbox(req.podSandboxId);
      if (sandbox === undefined) return {}; // idempotent
      for (const container of [...this.#containers.values()]) {
        if (container.sandboxId !== sandbox.id) continue;
        if (container.state === 'CONTAINER_RUNNING') this.#finish(container, 137, 'Error', '');
        this.#containers.delete(container.id);
        this.#emit(container, 'CONTAINER_DELETED_EVENT');
      }
      sandbox.state = 'SANDBOX_NOTREADY';
      this.#sandboxes.delete(sandbox.id);
      return {};
    });
  }

  podSandboxStatus(request: PodSandboxStatusRequest, options?: CallOptions): Promise<PodSandboxStatusResponse> {
    return this.#unary('podSandboxStatus', request, options, (req: { podSandboxId: string; verbose: boolean }) => {
      const sandbox = this.#findSandbox('podSandboxStatus', req.podSandboxId);
      const info: Record<string, string> = req.verbose ? { info: JSON.stringify({ pid: 1, runtimeHandler: sandbox.runtimeHandler }) } : {};
      return { status: this.#sandboxStatus(sandbox), info, containersStatuses: [], timestamp: nanos(this.clock.now()) };
    });
  }

  listPodSandbox(request: ListPodSandboxRequest, options?: CallOptions): Promise<ListPodSandboxResponse> {
    return this.#unary('listPodSandbox', request, options, (req: { filter: PodSandboxFilter__Output | null }) => ({
      items: this.#listSandboxes(req.filter),
    }));
  }

  streamPodSandboxes(request: StreamPodSandboxesRequest, options?: StreamCallOptions): AsyncIterable<StreamPodSandboxesResponse> {
    return this.#stream('streamPodSandboxes', request, options, (req: { filter: PodSandboxFilter__Output | null }) => [
      { podSandboxes: this.#listSandboxes(req.filter) },
    ]);
  }

  portForward(request: PortForwardRequest, options?: CallOptions): Promise<PortForwardResponse> {
    return this.#unary('portForward', request, options, (req: { podSandboxId: string }) => {
      const sandbox = this.#findSandbox('portForward', req.podSandboxId);
      return { url: `http://127.0.0.1:10010/portforward/${sandbox.id.slice(0, 8)}` };
    });
  }

  updatePodSandboxResources(request: UpdatePodSandboxResourcesRequest, options?: CallOptions): Promise<UpdatePodSandboxResourcesResponse> {
    return this.#unary(
      'updatePodSandboxResources',
      request,
      options,
      (req: { podSandboxId: string; resources: LinuxContainerResourcesOutput | null }) => {
        const sandbox = this.#findSandbox('updatePodSandboxResources', req.podSandboxId);
        sandbox.resources = req.resources;
        return {};
      },
    );
  }

  // ---------------------------------------------------------------- containers

  createContainer(request: CreateContainerRequest, options?: CallOptions): Promise<CreateContainerResponse> {
    return this.#unary('createContainer', request, options, (req: { podSandboxId: string; config: ContainerConfig__Output | null }) => {
      const sandbox = this.#findSandbox('createContainer', req.podSandboxId);
      const config = req.config;
      const metadata = config?.metadata;
      if (config === null || metadata === null || metadata === undefined || metadata.name === '') {
        throw this.error('createContainer', 'INVALID_ARGUMENT', 'container config must include metadata with a name');
      }
      if (sandbox.state !== 'SANDBOX_READY') {
        throw this.error('createContainer', 'UNKNOWN', `failed to create containerd container: sandbox "${sandbox.id}" is not ready`);
      }
      const name = `${metadata.name}_${sandboxName(sandbox.config)}_${metadata.attempt}`;
      for (const other of this.#containers.values()) {
        const otherName = `${other.config.metadata?.name ?? ''}_${sandboxName(this.#sandboxes.get(other.sandboxId)?.config ?? sandbox.config)}_${other.config.metadata?.attempt ?? 0}`;
        if (other.sandboxId === sandbox.id && otherName === name) {
          throw this.error(
            'createContainer',
            'UNKNOWN',
            `failed to reserve container name "${name}": name "${name}" is reserved for "${other.id}"`,
          );
        }
      }
      const imageRef = config.image?.image ?? '';
      let imageId = imageRef;
      if (this.#images !== undefined) {
        const image = this.#images.getImage(imageRef);
        if (image === undefined) {
          throw this.error(
            'createContainer',
            'NOT_FOUND',
            `failed to create containerd container: failed to get image "${imageRef}": not found`,
          );
        }
        imageId = image.id;
      }
      const id = this.#newId('container');
      const container: ContainerRecord = {
        id,
        sandboxId: sandbox.id,
        config,
        state: 'CONTAINER_CREATED',
        createdAt: nanos(this.clock.now()),
        startedAt: '0',
        finishedAt: '0',
        exitCode: 0,
        reason: '',
        message: '',
        imageId,
        logPath: config.logPath === '' || sandbox.config.logDirectory === '' ? '' : path.join(sandbox.config.logDirectory, config.logPath),
        resources: config.linux?.resources ?? null,
        ignoresSigterm: false,
        stopExitCode: 143,
        stats: {},
      };
      this.#containers.set(id, container);
      this.#emit(container, 'CONTAINER_CREATED_EVENT');
      return { containerId: id };
    });
  }

  startContainer(request: StartContainerRequest, options?: CallOptions): Promise<StartContainerResponse> {
    return this.#unary('startContainer', request, options, (req: { containerId: string }) => {
      const container = this.#findContainer('startContainer', req.containerId);
      if (container.state !== 'CONTAINER_CREATED') {
        throw this.error('startContainer', 'UNKNOWN', `container "${container.id}" is in ${container.state} state`);
      }
      const sandbox = this.#sandboxes.get(container.sandboxId);
      if (sandbox === undefined || sandbox.state !== 'SANDBOX_READY') {
        throw this.error('startContainer', 'UNKNOWN', `sandbox container "${container.sandboxId}" is not running`);
      }
      container.state = 'CONTAINER_RUNNING';
      container.startedAt = nanos(this.clock.now());
      this.#emit(container, 'CONTAINER_STARTED_EVENT');
      return {};
    });
  }

  stopContainer(request: StopContainerRequest, options?: RemoveCallOptions): Promise<StopContainerResponse> {
    return this.#unary('stopContainer', request, options, async (req: { containerId: string; timeout: string }) => {
      const container = this.#findContainer('stopContainer', req.containerId);
      if (container.state !== 'CONTAINER_RUNNING') return {}; // idempotent
      if (container.ignoresSigterm) {
        const graceMs = Number(req.timeout) * 1000;
        if (graceMs > 0) await this.clock.sleep(graceMs);
        if (container.state === 'CONTAINER_RUNNING') this.#finish(container, 137, 'Error', '');
      } else {
        this.#finish(container, container.stopExitCode, container.stopExitCode === 0 ? 'Completed' : 'Error', '');
      }
      return {};
    });
  }

  removeContainer(request: RemoveContainerRequest, options?: RemoveCallOptions): Promise<RemoveContainerResponse> {
    return this.#unary('removeContainer', request, options, (req: { containerId: string }) => {
      const container = this.#lookupContainer(req.containerId);
      if (container === undefined) return {}; // idempotent
      // containerd force-stops a running (or unknown) container before removing it.
      if (container.state === 'CONTAINER_RUNNING' || container.state === 'CONTAINER_UNKNOWN') this.#finish(container, 137, 'Error', '');
      this.#containers.delete(container.id);
      this.#emit(container, 'CONTAINER_DELETED_EVENT');
      return {};
    });
  }

  listContainers(request: ListContainersRequest, options?: CallOptions): Promise<ListContainersResponse> {
    return this.#unary('listContainers', request, options, (req: { filter: ContainerFilter__Output | null }) => ({
      containers: this.#listContainers(req.filter),
    }));
  }

  streamContainers(request: StreamContainersRequest, options?: StreamCallOptions): AsyncIterable<StreamContainersResponse> {
    return this.#stream('streamContainers', request, options, (req: { filter: ContainerFilter__Output | null }) => [
      { containers: this.#listContainers(req.filter) },
    ]);
  }

  containerStatus(request: ContainerStatusRequest, options?: CallOptions): Promise<ContainerStatusResponse> {
    return this.#unary('containerStatus', request, options, (req: { containerId: string; verbose: boolean }) => {
      const container = this.#findContainer('containerStatus', req.containerId);
      const info: Record<string, string> = req.verbose
        ? { info: JSON.stringify({ sandboxID: container.sandboxId, pid: container.state === 'CONTAINER_RUNNING' ? 100 : 0 }) }
        : {};
      return { status: this.#containerStatus(container), info };
    });
  }

  updateContainerResources(request: UpdateContainerResourcesRequest, options?: CallOptions): Promise<UpdateContainerResourcesResponse> {
    return this.#unary(
      'updateContainerResources',
      request,
      options,
      (req: { containerId: string; linux: LinuxContainerResourcesOutput | null }) => {
        const container = this.#findContainer('updateContainerResources', req.containerId);
        if (container.state === 'CONTAINER_EXITED') {
          throw this.error(
            'updateContainerResources',
            'UNKNOWN',
            `failed to update resources: container "${container.id}" is in ${container.state} state`,
          );
        }
        if (req.linux !== null) container.resources = req.linux;
        return {};
      },
    );
  }

  reopenContainerLog(request: ReopenContainerLogRequest, options?: CallOptions): Promise<ReopenContainerLogResponse> {
    return this.#unary('reopenContainerLog', request, options, (req: { containerId: string }) => {
      const container = this.#findContainer('reopenContainerLog', req.containerId);
      if (container.state !== 'CONTAINER_RUNNING') throw this.error('reopenContainerLog', 'UNKNOWN', 'container is not running');
      return {};
    });
  }

  execSync(request: ExecSyncRequest, options?: CallOptions): Promise<ExecSyncResponse> {
    return this.#unary('execSync', request, options, async (req: { containerId: string; cmd: string[]; timeout: string }) => {
      const container = this.#findContainer('execSync', req.containerId);
      if (container.state !== 'CONTAINER_RUNNING') {
        throw this.error('execSync', 'UNKNOWN', `failed to exec in container: container is in ${container.state} state`);
      }
      const timeoutMs = Number(req.timeout) * 1000;
      const outcome = Promise.resolve(this.#execHandler(container.id, [...req.cmd]));
      let result: FakeExecResult;
      if (timeoutMs > 0) {
        const controller = new AbortController();
        const timedOut = this.clock.sleep(timeoutMs, controller.signal).then(
          () => 'timeout' as const,
          () => 'cancelled' as const,
        );
        const raced = await Promise.race([outcome, timedOut]);
        controller.abort();
        if (raced === 'timeout') {
          throw this.error(
            'execSync',
            'DEADLINE_EXCEEDED',
            `failed to exec in container: timeout ${req.timeout}s exceeded: context deadline exceeded`,
          );
        }
        result = raced as FakeExecResult;
      } else {
        result = await outcome;
      }
      return { stdout: toBuffer(result.stdout), stderr: toBuffer(result.stderr), exitCode: result.exitCode ?? 0 };
    });
  }

  exec(request: ExecRequest, options?: CallOptions): Promise<ExecResponse> {
    return this.#unary('exec', request, options, (req: { containerId: string }) => {
      const container = this.#findContainer('exec', req.containerId);
      return { url: `http://127.0.0.1:10010/exec/${container.id.slice(0, 8)}` };
    });
  }

  attach(request: AttachRequest, options?: CallOptions): Promise<AttachResponse> {
    return this.#unary('attach', request, options, (req: { containerId: string }) => {
      const container = this.#findContainer('attach', req.containerId);
      return { url: `http://127.0.0.1:10010/attach/${container.id.slice(0, 8)}` };
    });
  }

  checkpointContainer(request: CheckpointContainerRequest, options?: CallOptions): Promise<CheckpointContainerResponse> {
    return this.#unary('checkpointContainer', request, options, (req: { containerId: string }) => {
      this.#findContainer('checkpointContainer', req.containerId);
      return {};
    });
  }

  getContainerEvents(request: GetEventsRequest, options?: StreamCallOptions): AsyncIterable<ContainerEventResponse> {
    return this.#stream('getContainerEvents', request, options, (_req: unknown, signal: AbortSignal | undefined) => this.#events(signal));
  }

  // ---------------------------------------------------------------- stats and metrics

  containerStats(request: ContainerStatsRequest, options?: CallOptions): Promise<ContainerStatsResponse> {
    return this.#unary('containerStats', request, options, (req: { containerId: string }) => ({
      stats: this.#containerStats(this.#findContainer('containerStats', req.containerId)),
    }));
  }

  listContainerStats(request: ListContainerStatsRequest, options?: CallOptions): Promise<ListContainerStatsResponse> {
    return this.#unary('listContainerStats', request, options, (req: { filter: ContainerStatsFilter__Output | null }) => ({
      stats: this.#listContainerStats(req.filter),
    }));
  }

  streamContainerStats(request: StreamContainerStatsRequest, options?: StreamCallOptions): AsyncIterable<StreamContainerStatsResponse> {
    return this.#stream('streamContainerStats', request, options, (req: { filter: ContainerStatsFilter__Output | null }) => [
      { containerStats: this.#listContainerStats(req.filter) },
    ]);
  }

  podSandboxStats(request: PodSandboxStatsRequest, options?: CallOptions): Promise<PodSandboxStatsResponse> {
    return this.#unary('podSandboxStats', request, options, (req: { podSandboxId: string }) => ({
      stats: this.#sandboxStats(this.#findSandbox('podSandboxStats', req.podSandboxId)),
    }));
  }

  listPodSandboxStats(request: ListPodSandboxStatsRequest, options?: CallOptions): Promise<ListPodSandboxStatsResponse> {
    return this.#unary('listPodSandboxStats', request, options, (req: { filter: PodSandboxStatsFilter__Output | null }) => ({
      stats: this.#listSandboxStats(req.filter),
    }));
  }

  streamPodSandboxStats(request: StreamPodSandboxStatsRequest, options?: StreamCallOptions): AsyncIterable<StreamPodSandboxStatsResponse> {
    return this.#stream('streamPodSandboxStats', request, options, (req: { filter: PodSandboxStatsFilter__Output | null }) => [
      { podSandboxStats: this.#listSandboxStats(req.filter) },
    ]);
  }

  listMetricDescriptors(request: ListMetricDescriptorsRequest, options?: CallOptions): Promise<ListMetricDescriptorsResponse> {
    return this.#unary('listMetricDescriptors', request, options, () => ({ descriptors: [] }));
  }

  listPodSandboxMetrics(request: ListPodSandboxMetricsRequest, options?: CallOptions): Promise<ListPodSandboxMetricsResponse> {
    return this.#unary('listPodSandboxMetrics', request, options, () => ({ podMetrics: [] }));
  }

  streamPodSandboxMetrics(
    request: StreamPodSandboxMetricsRequest,
    options?: StreamCallOptions,
  ): AsyncIterable<StreamPodSandboxMetricsResponse> {
    return this.#stream('streamPodSandboxMetrics', request, options, () => [{ podSandboxMetrics: [] }]);
  }

  // ---------------------------------------------------------------- internals

  #unary<Req, Res>(
    method: RuntimeServiceMethod,
    request: unknown,
    options: RemoveCallOptions | undefined,
    handle: (request: Req) => NoInfer<Res> | Promise<NoInfer<Res>>,
  ): Promise<Res> {
    return this.unary<Req, Res>(method, request, options, (req) => {
      if (this.#unimplemented.has(method))
        throw this.error(
          method,
          'UNIMPLEMENTED',
          `unknown method ${this.rpc(method).split('/')[1] ?? method} for service runtime.v1.RuntimeService`,
        );
      return handle(req);
    });
  }

  #stream<Req, Res>(
    method: RuntimeServiceMethod,
    request: unknown,
    options: StreamCallOptions | undefined,
    produce: (request: Req, signal: AbortSignal | undefined) => AsyncIterable<NoInfer<Res>> | Iterable<NoInfer<Res>>,
  ): AsyncIterable<Res> {
    const unimplemented = this.#unimplemented.has(method);
    return this.stream<Req, Res>(method, request, options, (req, signal) => {
      if (unimplemented)
        throw this.error(
          method,
          'UNIMPLEMENTED',
          `unknown method ${this.rpc(method).split('/')[1] ?? method} for service runtime.v1.RuntimeService`,
        );
      return produce(req, signal);
    });
  }

  #newId(kind: string): string {
    this.#idCounter += 1;
    return createHash('sha256').update(`${kind}:${this.#idCounter}`).digest('hex');
  }

  /** Exact ID or a unique prefix, as containerd's truncindex allows. */
  #lookupSandbox(id: string): SandboxRecord | undefined {
    return lookup(this.#sandboxes, id);
  }

  #lookupContainer(id: string): ContainerRecord | undefined {
    return lookup(this.#containers, id);
  }

  #findSandbox(method: RuntimeServiceMethod, id: string): SandboxRecord {
    const sandbox = this.#lookupSandbox(id);
    if (sandbox === undefined) throw this.error(method, 'NOT_FOUND', `an error occurred when try to find sandbox "${id}": not found`);
    return sandbox;
  }

  #findContainer(method: RuntimeServiceMethod, id: string): ContainerRecord {
    const container = this.#lookupContainer(id);
    if (container === undefined) throw this.error(method, 'NOT_FOUND', `an error occurred when try to find container "${id}": not found`);
    return container;
  }

  #mustSandbox(id: string): SandboxRecord {
    const sandbox = this.#lookupSandbox(id);
    if (sandbox === undefined) throw new Error(`FakeRuntimeService: no sandbox ${id}`);
    return sandbox;
  }

  #mustContainer(id: string): ContainerRecord {
    const container = this.#lookupContainer(id);
    if (container === undefined) throw new Error(`FakeRuntimeService: no container ${id}`);
    return container;
  }

  #finish(container: ContainerRecord, exitCode: number, reason: string, message: string): void {
    container.state = 'CONTAINER_EXITED';
    container.exitCode = exitCode;
    container.reason = reason;
    container.message = message;
    container.finishedAt = nanos(this.clock.now());
    this.#emit(container, 'CONTAINER_STOPPED_EVENT');
  }

  #sandboxStatus(sandbox: SandboxRecord): PodSandboxStatus {
    const namespaceOptions = sandbox.config.linux?.securityContext?.namespaceOptions ?? null;
    return {
      id: sandbox.id,
      metadata: sandbox.config.metadata,
      state: sandbox.state,
      createdAt: sandbox.createdAt,
      network: { ip: sandbox.ip, additionalIps: [] },
      linux: { namespaces: { options: namespaceOptions } },
      labels: { ...sandbox.config.labels },
      annotations: { ...sandbox.config.annotations },
      runtimeHandler: sandbox.runtimeHandler,
    };
  }

  #toPodSandbox(sandbox: SandboxRecord): PodSandbox {
    return {
      id: sandbox.id,
      metadata: sandbox.config.metadata,
      state: sandbox.state,
      createdAt: sandbox.createdAt,
      labels: { ...sandbox.config.labels },
      annotations: { ...sandbox.config.annotations },
      runtimeHandler: sandbox.runtimeHandler,
    };
  }

  #containerStatus(container: ContainerRecord): ContainerStatus {
    return {
      id: container.id,
      metadata: container.config.metadata,
      state: container.state,
      createdAt: container.createdAt,
      startedAt: container.startedAt,
      finishedAt: container.finishedAt,
      exitCode: container.exitCode,
      image: container.config.image,
      imageRef: container.imageId,
      reason: container.reason,
      message: container.message,
      labels: { ...container.config.labels },
      annotations: { ...container.config.annotations },
      mounts: container.config.mounts,
      logPath: container.logPath,
      // containerd always reports the Linux resources, zero-filled when none were set.
      resources: { linux: container.resources ?? ZERO_RESOURCES, windows: null },
      imageId: container.imageId,
      user: null,
      stopSignal: container.config.stopSignal,
    };
  }

  #toContainer(container: ContainerRecord): Container {
    return {
      id: container.id,
      podSandboxId: container.sandboxId,
      metadata: container.config.metadata,
      image: container.config.image,
      imageRef: container.imageId,
      state: container.state,
      createdAt: container.createdAt,
      labels: { ...container.config.labels },
      annotations: { ...container.config.annotations },
      imageId: container.imageId,
    };
  }

  #listSandboxes(filter: PodSandboxFilter__Output | null): PodSandbox[] {
    const matchingId = filter?.id ? this.#lookupSandbox(filter.id)?.id : undefined;
    return [...this.#sandboxes.values()]
      .filter((s) => !filter?.id || s.id === matchingId)
      .filter((s) => filter?.state == null || s.state === filter.state.state)
      .filter((s) => matchesLabels(s.config.labels, filter?.labelSelector))
      .map((s) => this.#toPodSandbox(s));
  }

  #listContainers(filter: ContainerFilter__Output | null): Container[] {
    const matchingId = filter?.id ? this.#lookupContainer(filter.id)?.id : undefined;
    const matchingSandbox = filter?.podSandboxId ? this.#lookupSandbox(filter.podSandboxId)?.id : undefined;
    return [...this.#containers.values()]
      .filter((c) => !filter?.id || c.id === matchingId)
      .filter((c) => !filter?.podSandboxId || c.sandboxId === matchingSandbox)
      .filter((c) => filter?.state == null || c.state === filter.state.state)
      .filter((c) => matchesLabels(c.config.labels, filter?.labelSelector))
      .map((c) => this.#toContainer(c));
  }

  #containerStats(container: ContainerRecord): ContainerStats {
    const timestamp = nanos(this.clock.now());
    return {
      attributes: {
        id: container.id,
        metadata: container.config.metadata,
        labels: { ...container.config.labels },
        annotations: { ...container.config.annotations },
      },
      cpu: container.stats.cpu ?? { timestamp, usageCoreNanoSeconds: { value: '0' }, usageNanoCores: { value: '0' }, psi: null },
      memory: container.stats.memory ?? {
        timestamp,
        workingSetBytes: { value: '0' },
        availableBytes: null,
        usageBytes: { value: '0' },
        rssBytes: { value: '0' },
        pageFaults: { value: '0' },
        majorPageFaults: { value: '0' },
        psi: null,
      },
      writableLayer: container.stats.writableLayer ?? {
        timestamp,
        fsId: { mountpoint: '/var/lib/containerd' },
        usedBytes: { value: '0' },
        inodesUsed: { value: '0' },
      },
      swap: null,
      io: null,
    };
  }

  #listContainerStats(filter: ContainerStatsFilter__Output | null): ContainerStats[] {
    return [...this.#containers.values()]
      .filter((c) => c.state === 'CONTAINER_RUNNING')
      .filter((c) => !filter?.id || c.id === this.#lookupContainer(filter.id)?.id)
      .filter((c) => !filter?.podSandboxId || c.sandboxId === this.#lookupSandbox(filter.podSandboxId)?.id)
      .filter((c) => matchesLabels(c.config.labels, filter?.labelSelector))
      .map((c) => this.#containerStats(c));
  }

  #sandboxStats(sandbox: SandboxRecord): PodSandboxStats {
    const containers = [...this.#containers.values()]
      .filter((c) => c.sandboxId === sandbox.id && c.state === 'CONTAINER_RUNNING')
      .map((c) => this.#containerStats(c));
    const timestamp = nanos(this.clock.now());
    return {
      attributes: {
        id: sandbox.id,
        metadata: sandbox.config.metadata,
        labels: { ...sandbox.config.labels },
        annotations: { ...sandbox.config.annotations },
      },
      linux: {
        cpu: { timestamp, usageCoreNanoSeconds: { value: '0' }, usageNanoCores: { value: '0' }, psi: null },
        memory: null,
        network: null,
        process: { timestamp, processCount: { value: String(containers.length + 1) } },
        containers,
        io: null,
      },
      windows: null,
    };
  }

  #listSandboxStats(filter: PodSandboxStatsFilter__Output | null): PodSandboxStats[] {
    return [...this.#sandboxes.values()]
      .filter((s) => s.state === 'SANDBOX_READY')
      .filter((s) => !filter?.id || s.id === this.#lookupSandbox(filter.id)?.id)
      .filter((s) => matchesLabels(s.config.labels, filter?.labelSelector))
      .map((s) => this.#sandboxStats(s));
  }

  #emit(container: ContainerRecord, type: ContainerEventType): void {
    if (this.#subscribers.size === 0) return;
    const sandbox = this.#sandboxes.get(container.sandboxId);
    const event: ContainerEventResponse = {
      containerId: container.id,
      containerEventType: type,
      createdAt: nanos(this.clock.now()),
      podSandboxStatus: sandbox === undefined ? null : this.#sandboxStatus(sandbox),
      containersStatuses: type === 'CONTAINER_DELETED_EVENT' ? [] : [this.#containerStatus(container)],
    };
    for (const subscriber of this.#subscribers) subscriber.push(event);
  }

  async *#events(signal: AbortSignal | undefined): AsyncGenerator<ContainerEventResponse> {
    const queue: ContainerEventResponse[] = [];
    let wake: (() => void) | undefined;
    const subscriber: EventSubscriber = {
      push(event) {
        queue.push(event);
        wake?.();
      },
    };
    const onAbort = (): void => wake?.();
    this.#subscribers.add(subscriber);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      while (signal?.aborted !== true) {
        const next = queue.shift();
        if (next !== undefined) {
          yield next;
          continue;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    } finally {
      this.#subscribers.delete(subscriber);
      signal?.removeEventListener('abort', onAbort);
    }
  }
}

const ZERO_RESOURCES: LinuxContainerResourcesOutput = {
  cpuPeriod: '0',
  cpuQuota: '0',
  cpuShares: '0',
  memoryLimitInBytes: '0',
  oomScoreAdj: '0',
  cpusetCpus: '',
  cpusetMems: '',
  hugepageLimits: [],
  unified: {},
  memorySwapLimitInBytes: '0',
};

function lookup<T>(records: Map<string, T>, id: string): T | undefined {
  if (id === '') return undefined;
  const exact = records.get(id);
  if (exact !== undefined) return exact;
  const matches = [...records.entries()].filter(([key]) => key.startsWith(id));
  return matches.length === 1 ? matches[0]?.[1] : undefined;
}

function matchesLabels(labels: Record<string, string>, selector: Record<string, string> | undefined): boolean {
  if (selector === undefined) return true;
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}

/** containerd's sandbox name: name_namespace_uid_attempt. */
function sandboxName(config: PodSandboxConfig__Output): string {
  const m = config.metadata;
  return `${m?.name ?? ''}_${m?.namespace ?? ''}_${m?.uid ?? ''}_${m?.attempt ?? 0}`;
}

function toBuffer(value: string | Buffer | undefined): Buffer {
  if (value === undefined) return Buffer.alloc(0);
  return typeof value === 'string' ? Buffer.from(value) : value;
}
