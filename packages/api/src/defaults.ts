import {
  DEFAULT_NAMESPACE,
  DEFAULT_SCHEDULER_NAME,
  DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS,
  DEFAULT_TERMINATION_MESSAGE_PATH,
  DEFAULT_VOLUME_MODE,
} from './constants.js';
import { isUntaggedImage, parseImageReference } from './image.js';
import type { Container, HTTPGetAction, LifecycleHandler, Pod, Probe, Volume } from './schemas.js';
import { VOLUME_SOURCE_KEYS } from './schemas.js';

/**
 * Upstream SetDefaults_* for a Pod (pkg/apis/core/v1/defaults.go) plus the namespace default the
 * kubelet's config sources apply. Returns a new object; the input is not modified.
 */
export function applyPodDefaults(input: Pod): Pod {
  const pod = applyPodObjectDefaults(input);
  if (pod.metadata.namespace === '') pod.metadata.namespace = DEFAULT_NAMESPACE;
  return pod;
}

/**
 * Exactly what the API decoder's defaulting does to a v1 Pod (SetObjectDefaults_Pod, with the
 * feature gates at their 1.34 defaults), and nothing else: static pod UIDs hash this form.
 * Not done: pod-level resources defaulting (spec.resources, beta), which sums container requests.
 * Returns a new object; the input is not modified.
 */
export function applyPodObjectDefaults(input: Pod): Pod {
  const pod = structuredClone(input);
  const spec = pod.spec;
  spec.dnsPolicy ||= 'ClusterFirst';
  spec.restartPolicy ||= 'Always';
  spec.securityContext ??= {};
  spec.terminationGracePeriodSeconds ??= DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS;
  spec.schedulerName ||= DEFAULT_SCHEDULER_NAME;
  spec.enableServiceLinks ??= true;

  // SetDefaults_EphemeralContainer is SetDefaults_Container on the common part.
  for (const container of [...(spec.initContainers ?? []), ...spec.containers]) {
    defaultRequestsFromLimits(container);
    defaultContainer(container, spec.hostNetwork === true);
  }
  // SetDefaults_EphemeralContainer is SetDefaults_Container on the common part; ephemeral
  // containers take no requests from limits and no host network ports.
  for (const container of spec.ephemeralContainers ?? []) defaultContainer(container, false);
  for (const volume of spec.volumes ?? []) defaultVolume(volume);
  return pod;
}

/** Pull policy upstream picks for an image: Always for ":latest" or no tag (and no digest), else IfNotPresent. */
export function defaultImagePullPolicy(image: string): 'Always' | 'IfNotPresent' {
  const ref = parseImageReference(image);
  return ref.tag === 'latest' || isUntaggedImage(ref) ? 'Always' : 'IfNotPresent';
}

function defaultContainer(container: Container, hostNetwork: boolean): void {
  container.imagePullPolicy ||= defaultImagePullPolicy(container.image);
  container.terminationMessagePath ||= DEFAULT_TERMINATION_MESSAGE_PATH;
  container.terminationMessagePolicy ||= 'File';
  for (const port of container.ports ?? []) {
    port.protocol ||= 'TCP';
    // SetDefaults_Pod: with host networking the host port is the container port.
    if (hostNetwork && (port.hostPort === undefined || port.hostPort === 0)) port.hostPort = port.containerPort;
  }
  for (const probe of [container.livenessProbe, container.readinessProbe, container.startupProbe]) {
    if (probe !== undefined) defaultProbe(probe);
  }
  defaultHandler(container.lifecycle?.postStart);
  defaultHandler(container.lifecycle?.preStop);
  for (const env of container.env ?? []) {
    const fieldRef = env.valueFrom?.fieldRef;
    if (fieldRef !== undefined) fieldRef.apiVersion ||= 'v1';
    const fileKeyRef = (env.valueFrom as { fileKeyRef?: { optional?: boolean } } | undefined)?.fileKeyRef;
    if (fileKeyRef !== undefined) fileKeyRef.optional ??= false;
  }
}

/** SetDefaults_Pod: requests default to limits, resource by resource (regular and init containers). */
function defaultRequestsFromLimits(container: Container): void {
  const resources = container.resources;
  if (resources?.limits !== undefined) {
    const requests = (resources.requests ??= {});
    for (const [name, value] of Object.entries(resources.limits)) {
      if (!(name in requests)) requests[name] = value;
    }
  }
}

function defaultProbe(probe: Probe): void {
  probe.timeoutSeconds ||= 1;
  probe.periodSeconds ||= 10;
  probe.successThreshold ||= 1;
  probe.failureThreshold ||= 3;
  if (probe.httpGet !== undefined) defaultHttpGet(probe.httpGet);
  if (probe.grpc !== undefined) probe.grpc.service ??= '';
}

function defaultHandler(handler: LifecycleHandler | undefined): void {
  if (handler?.httpGet !== undefined) defaultHttpGet(handler.httpGet);
}

function defaultHttpGet(action: HTTPGetAction): void {
  action.path ||= '/';
  action.scheme ||= 'HTTP';
}

function defaultVolume(volume: Volume): void {
  // SetDefaults_Volume: a volume without any source is an emptyDir.
  if (!VOLUME_SOURCE_KEYS.some((key) => volume[key] !== undefined)) volume.emptyDir = {};
  if (volume.hostPath !== undefined) volume.hostPath.type ??= '';
  if (volume.configMap !== undefined) volume.configMap.defaultMode ??= DEFAULT_VOLUME_MODE;
  if (volume.secret !== undefined) volume.secret.defaultMode ??= DEFAULT_VOLUME_MODE;
  if (volume.downwardAPI !== undefined) {
    volume.downwardAPI.defaultMode ??= DEFAULT_VOLUME_MODE;
    for (const item of volume.downwardAPI.items ?? []) {
      if (item.fieldRef !== undefined) item.fieldRef.apiVersion ||= 'v1';
    }
  }
  if (volume.projected !== undefined) {
    volume.projected.defaultMode ??= DEFAULT_VOLUME_MODE;
    type ProjectedSource = {
      downwardAPI?: { items?: { fieldRef?: { apiVersion?: string } }[] };
      serviceAccountToken?: { expirationSeconds?: number } | null;
    };
    for (const source of (volume.projected.sources ?? []) as ProjectedSource[]) {
      for (const item of source.downwardAPI?.items ?? []) {
        if (item.fieldRef !== undefined) item.fieldRef.apiVersion ||= 'v1';
      }
      // SetDefaults_ServiceAccountTokenProjection: one hour.
      if (source.serviceAccountToken !== undefined && source.serviceAccountToken !== null)
        source.serviceAccountToken.expirationSeconds ??= 3600;
    }
  }
  defaultLegacyVolumeSources(volume as unknown as Record<string, Record<string, unknown> | undefined>);
}

/** The generated defaults of in-tree volume sources (zz_generated.defaults.go). */
function defaultLegacyVolumeSources(volume: Record<string, Record<string, unknown> | undefined>): void {
  const orEmpty = (source: Record<string, unknown> | undefined, key: string, value: unknown): void => {
    if (source !== undefined && (source[key] === undefined || source[key] === '')) source[key] = value;
  };
  const orUnset = (source: Record<string, unknown> | undefined, key: string, value: unknown): void => {
    if (source !== undefined && source[key] === undefined) source[key] = value;
  };
  orEmpty(volume.iscsi, 'iscsiInterface', 'default');
  orEmpty(volume.rbd, 'pool', 'rbd');
  orEmpty(volume.rbd, 'user', 'admin');
  orEmpty(volume.rbd, 'keyring', '/etc/ceph/keyring');
  orUnset(volume.azureDisk, 'cachingMode', 'ReadWrite');
  orUnset(volume.azureDisk, 'fsType', 'ext4');
  orUnset(volume.azureDisk, 'readOnly', false);
  orUnset(volume.azureDisk, 'kind', 'Shared');
  orEmpty(volume.scaleIO, 'storageMode', 'ThinProvisioned');
  orEmpty(volume.scaleIO, 'fsType', 'xfs');
  const claimSpec = (volume.ephemeral?.volumeClaimTemplate as { spec?: Record<string, unknown> } | undefined)?.spec;
  orUnset(claimSpec, 'volumeMode', 'Filesystem');
}
