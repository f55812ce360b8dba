// The CRI v1 contract as TypeScript interfaces, composed from small role interfaces the way
// cri-api's services.go composes RuntimeService. One method per RPC, lowerCamelCase.
// Requests are taken in proto-loader's input form, responses are returned in output form
// (every field present): see README "Types".
import type {
  AttachRequest,
  AttachResponse,
  CheckpointContainerRequest,
  CheckpointContainerResponse,
  ContainerEventResponse,
  ContainerStatsRequest,
  ContainerStatsResponse,
  ContainerStatusRequest,
  ContainerStatusResponse,
  CreateContainerRequest,
  CreateContainerResponse,
  ExecRequest,
  ExecResponse,
  ExecSyncRequest,
  ExecSyncResponse,
  GetEventsRequest,
  ImageFsInfoRequest,
  ImageFsInfoResponse,
  ImageStatusRequest,
  ImageStatusResponse,
  ListContainerStatsRequest,
  ListContainerStatsResponse,
  ListContainersRequest,
  ListContainersResponse,
  ListImagesRequest,
  ListImagesResponse,
  ListMetricDescriptorsRequest,
  ListMetricDescriptorsResponse,
  ListPodSandboxMetricsRequest,
  ListPodSandboxMetricsResponse,
  ListPodSandboxRequest,
  ListPodSandboxResponse,
  ListPodSandboxStatsRequest,
  ListPodSandboxStatsResponse,
  PodSandboxStatsRequest,
  PodSandboxStatsResponse,
  PodSandboxStatusRequest,
  PodSandboxStatusResponse,
  PortForwardRequest,
  PortForwardResponse,
  PullImageRequest,
  PullImageResponse,
  RemoveContainerRequest,
  RemoveContainerResponse,
  RemoveImageRequest,
  RemoveImageResponse,
  RemovePodSandboxRequest,
  RemovePodSandboxResponse,
  ReopenContainerLogRequest,
  ReopenContainerLogResponse,
  RunPodSandboxRequest,
  RunPodSandboxResponse,
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
  StreamImagesRequest,
  StreamImagesResponse,
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
} from './gen/messages.js';

/** Per-call options. Every unary call has a deadline; see README "Timeouts" for the defaults. */
export interface CallOptions {
  /** Deadline of this call in milliseconds, overriding the client's default for the method. */
  timeoutMs?: number;
  /** Cancels the call; it then rejects with a CriError of code CANCELLED. */
  signal?: AbortSignal;
}

/**
 * Options of the stop/remove calls. `ignoreNotFound: true` turns a NOT_FOUND answer into success
 * (an empty response), as the kubelet does when tearing down what may already be gone.
 */
export interface RemoveCallOptions extends CallOptions {
  ignoreNotFound?: boolean;
}

/** Options of server-streaming calls: the stream ends (without error) when the signal aborts. */
export interface StreamCallOptions {
  signal?: AbortSignal;
  /** Deadline for the whole stream; none by default for GetContainerEvents. */
  timeoutMs?: number;
}

export interface RuntimeVersioner {
  version(request: VersionRequest, options?: CallOptions): Promise<VersionResponse>;
}

export interface ContainerManager {
  createContainer(request: CreateContainerRequest, options?: CallOptions): Promise<CreateContainerResponse>;
  startContainer(request: StartContainerRequest, options?: CallOptions): Promise<StartContainerResponse>;
  /** The deadline is extended by the request's grace period (`timeout` seconds), as upstream does. */
  stopContainer(request: StopContainerRequest, options?: RemoveCallOptions): Promise<StopContainerResponse>;
  removeContainer(request: RemoveContainerRequest, options?: RemoveCallOptions): Promise<RemoveContainerResponse>;
  listContainers(request: ListContainersRequest, options?: CallOptions): Promise<ListContainersResponse>;
  streamContainers(request: StreamContainersRequest, options?: StreamCallOptions): AsyncIterable<StreamContainersResponse>;
  containerStatus(request: ContainerStatusRequest, options?: CallOptions): Promise<ContainerStatusResponse>;
  updateContainerResources(request: UpdateContainerResourcesRequest, options?: CallOptions): Promise<UpdateContainerResourcesResponse>;
  reopenContainerLog(request: ReopenContainerLogRequest, options?: CallOptions): Promise<ReopenContainerLogResponse>;
  /** The deadline is extended by the request's `timeout` seconds, as upstream does. */
  execSync(request: ExecSyncRequest, options?: CallOptions): Promise<ExecSyncResponse>;
  exec(request: ExecRequest, options?: CallOptions): Promise<ExecResponse>;
  attach(request: AttachRequest, options?: CallOptions): Promise<AttachResponse>;
  checkpointContainer(request: CheckpointContainerRequest, options?: CallOptions): Promise<CheckpointContainerResponse>;
  /** Server stream of container events; UNIMPLEMENTED on containerd 1.6 (poll instead). */
  getContainerEvents(request: GetEventsRequest, options?: StreamCallOptions): AsyncIterable<ContainerEventResponse>;
}

export interface PodSandboxManager {
  runPodSandbox(request: RunPodSandboxRequest, options?: CallOptions): Promise<RunPodSandboxResponse>;
  stopPodSandbox(request: StopPodSandboxRequest, options?: RemoveCallOptions): Promise<StopPodSandboxResponse>;
  removePodSandbox(request: RemovePodSandboxRequest, options?: RemoveCallOptions): Promise<RemovePodSandboxResponse>;
  podSandboxStatus(request: PodSandboxStatusRequest, options?: CallOptions): Promise<PodSandboxStatusResponse>;
  listPodSandbox(request: ListPodSandboxRequest, options?: CallOptions): Promise<ListPodSandboxResponse>;
  streamPodSandboxes(request: StreamPodSandboxesRequest, options?: StreamCallOptions): AsyncIterable<StreamPodSandboxesResponse>;
  portForward(request: PortForwardRequest, options?: CallOptions): Promise<PortForwardResponse>;
  updatePodSandboxResources(request: UpdatePodSandboxResourcesRequest, options?: CallOptions): Promise<UpdatePodSandboxResourcesResponse>;
}

export interface ContainerStatsManager {
  containerStats(request: ContainerStatsRequest, options?: CallOptions): Promise<ContainerStatsResponse>;
  listContainerStats(request: ListContainerStatsRequest, options?: CallOptions): Promise<ListContainerStatsResponse>;
  streamContainerStats(request: StreamContainerStatsRequest, options?: StreamCallOptions): AsyncIterable<StreamContainerStatsResponse>;
  podSandboxStats(request: PodSandboxStatsRequest, options?: CallOptions): Promise<PodSandboxStatsResponse>;
  listPodSandboxStats(request: ListPodSandboxStatsRequest, options?: CallOptions): Promise<ListPodSandboxStatsResponse>;
  streamPodSandboxStats(request: StreamPodSandboxStatsRequest, options?: StreamCallOptions): AsyncIterable<StreamPodSandboxStatsResponse>;
  listMetricDescriptors(request: ListMetricDescriptorsRequest, options?: CallOptions): Promise<ListMetricDescriptorsResponse>;
  listPodSandboxMetrics(request: ListPodSandboxMetricsRequest, options?: CallOptions): Promise<ListPodSandboxMetricsResponse>;
  streamPodSandboxMetrics(
    request: StreamPodSandboxMetricsRequest,
    options?: StreamCallOptions,
  ): AsyncIterable<StreamPodSandboxMetricsResponse>;
}

/** The CRI RuntimeService. */
export interface RuntimeService extends RuntimeVersioner, ContainerManager, PodSandboxManager, ContainerStatsManager {
  updateRuntimeConfig(request: UpdateRuntimeConfigRequest, options?: CallOptions): Promise<UpdateRuntimeConfigResponse>;
  status(request: StatusRequest, options?: CallOptions): Promise<StatusResponse>;
  runtimeConfig(request: RuntimeConfigRequest, options?: CallOptions): Promise<RuntimeConfigResponse>;
}

/** The CRI ImageService. */
export interface ImageManagerService {
  listImages(request: ListImagesRequest, options?: CallOptions): Promise<ListImagesResponse>;
  streamImages(request: StreamImagesRequest, options?: StreamCallOptions): AsyncIterable<StreamImagesResponse>;
  /** A missing image is not an error: `image` is null. */
  imageStatus(request: ImageStatusRequest, options?: CallOptions): Promise<ImageStatusResponse>;
  pullImage(request: PullImageRequest, options?: CallOptions): Promise<PullImageResponse>;
  removeImage(request: RemoveImageRequest, options?: RemoveCallOptions): Promise<RemoveImageResponse>;
  imageFsInfo(request: ImageFsInfoRequest, options?: CallOptions): Promise<ImageFsInfoResponse>;
}

export type ImageService = ImageManagerService;

/** RuntimeService method names, one per RPC (the order of the proto). */
export const RUNTIME_SERVICE_METHODS = [
  'version',
  'runPodSandbox',
  'stopPodSandbox',
  'removePodSandbox',
  'podSandboxStatus',
  'listPodSandbox',
  'streamPodSandboxes',
  'createContainer',
  'startContainer',
  'stopContainer',
  'removeContainer',
  'listContainers',
  'streamContainers',
  'containerStatus',
  'updateContainerResources',
  'reopenContainerLog',
  'execSync',
  'exec',
  'attach',
  'portForward',
  'containerStats',
  'listContainerStats',
  'streamContainerStats',
  'podSandboxStats',
  'listPodSandboxStats',
  'streamPodSandboxStats',
  'updateRuntimeConfig',
  'status',
  'checkpointContainer',
  'getContainerEvents',
  'listMetricDescriptors',
  'listPodSandboxMetrics',
  'streamPodSandboxMetrics',
  'runtimeConfig',
  'updatePodSandboxResources',
] as const satisfies readonly (keyof RuntimeService)[];

/** ImageService method names, one per RPC. */
export const IMAGE_SERVICE_METHODS = [
  'listImages',
  'streamImages',
  'imageStatus',
  'pullImage',
  'removeImage',
  'imageFsInfo',
] as const satisfies readonly (keyof ImageService)[];

export type RuntimeServiceMethod = (typeof RUNTIME_SERVICE_METHODS)[number];
export type ImageServiceMethod = (typeof IMAGE_SERVICE_METHODS)[number];

/** Server-streaming methods: they return AsyncIterable instead of a Promise. */
export const STREAMING_METHODS = [
  'streamPodSandboxes',
  'streamContainers',
  'streamContainerStats',
  'streamPodSandboxStats',
  'getContainerEvents',
  'streamPodSandboxMetrics',
  'streamImages',
] as const;
