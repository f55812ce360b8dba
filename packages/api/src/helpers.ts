import { ConfigMirrorAnnotationKey, ConfigSourceAnnotationKey, PodQOSClass, PodSourceName } from './constants.js';
import { ApiError } from './errors.js';
import type { Rational } from './internal/rational.js';
import { add, cmp, ZERO } from './internal/rational.js';
import { parseQuantityExact } from './quantity.js';
import type { Container, IntOrString, Pod } from './schemas.js';

/** `<name>_<namespace>`, the key upstream GetPodFullName uses for a pod across sources. */
export function podFullName(pod: Pick<Pod, 'metadata'>): string {
  return `${pod.metadata.name}_${pod.metadata.namespace}`;
}

/** A sidecar: an init container with `restartPolicy: Always`. */
export function isRestartableInitContainer(container: Pick<Container, 'restartPolicy'>): boolean {
  return container.restartPolicy === 'Always';
}

/** The config source a pod came from ("file", "http", "api"), from its annotation. */
export function getPodSource(pod: Pick<Pod, 'metadata'>): string | undefined {
  return pod.metadata.annotations?.[ConfigSourceAnnotationKey];
}

/** A static pod comes from a file or HTTP source (anything but the API server). */
export function isStaticPod(pod: Pick<Pod, 'metadata'>): boolean {
  const source = getPodSource(pod);
  return source !== undefined && source !== PodSourceName.Api;
}

/** A mirror pod is the API server's copy of a static pod. */
export function isMirrorPod(pod: Pick<Pod, 'metadata'>): boolean {
  return pod.metadata.annotations?.[ConfigMirrorAnnotationKey] !== undefined;
}

/**
 * Turns a probe or hook port into a number, as the prober does upstream: a named port is looked up
 * in the container's ports, and failing that read as a number. Throws ApiError `INVALID_PORT`.
 */
export function resolveContainerPort(port: IntOrString, container: Pick<Container, 'ports' | 'name'>): number {
  let resolved: number;
  if (typeof port === 'number') {
    resolved = port;
  } else {
    const named = container.ports?.find((p) => p.name === port);
    if (named !== undefined) resolved = named.containerPort;
    else if (/^[0-9]+$/.test(port)) resolved = Number(port);
    else throw new ApiError('INVALID_PORT', `couldn't find port ${JSON.stringify(port)} in container ${JSON.stringify(container.name)}`);
  }
  if (resolved > 0 && resolved < 65536) return resolved;
  throw new ApiError('INVALID_PORT', `invalid port number: ${resolved}`);
}

const QOS_RESOURCES = ['cpu', 'memory'] as const;

/**
 * The pod's QoS class. Like upstream GetPodQOS, a class already recorded in the status wins;
 * otherwise it is computed by {@link computePodQOSClass}.
 */
export function getPodQOSClass(pod: Pick<Pod, 'spec' | 'status'>): PodQOSClass {
  const recorded = pod.status?.qosClass;
  if (recorded === 'Guaranteed' || recorded === 'Burstable' || recorded === 'BestEffort') return recorded;
  return computePodQOSClass(pod);
}

/**
 * Upstream ComputePodQOS over containers and init containers, counting only cpu and memory:
 * BestEffort when nothing is set; Guaranteed when every container limits both cpu and memory and
 * the summed requests equal the summed limits; Burstable otherwise.
 */
export function computePodQOSClass(pod: Pick<Pod, 'spec'>): PodQOSClass {
  const requests = new Map<string, Rational>();
  const limits = new Map<string, Rational>();
  let guaranteed = true;
  for (const container of [...pod.spec.containers, ...(pod.spec.initContainers ?? [])]) {
    for (const [name, value] of Object.entries(container.resources?.requests ?? {})) {
      if (!isQosResource(name)) continue;
      const q = parseQuantityExact(value);
      if (cmp(q, ZERO) > 0) requests.set(name, add(requests.get(name) ?? ZERO, q));
    }
    const found = new Set<string>();
    for (const [name, value] of Object.entries(container.resources?.limits ?? {})) {
      if (!isQosResource(name)) continue;
      const q = parseQuantityExact(value);
      if (cmp(q, ZERO) > 0) {
        found.add(name);
        limits.set(name, add(limits.get(name) ?? ZERO, q));
      }
    }
    if (!QOS_RESOURCES.every((name) => found.has(name))) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return PodQOSClass.BestEffort;
  if (guaranteed) {
    for (const [name, request] of requests) {
      const limit = limits.get(name);
      if (limit === undefined || cmp(limit, request) !== 0) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size === limits.size ? PodQOSClass.Guaranteed : PodQOSClass.Burstable;
}

function isQosResource(name: string): boolean {
  return name === 'cpu' || name === 'memory';
}
