// Upstream kubelet_pods.go makeEnvironmentVariables, podFieldSelectorRuntimeValue and
// pkg/api/v1/resource ExtractContainerResourceValue.
import type { Container, NodeResources, ObjectFieldSelector, ObjectSource, Pod, ResourceFieldSelector } from '@kubelet-ts/api';
import { containerResourceValue, expandVariables as expand, isStaticPod } from '@kubelet-ts/api';
import { PodLifecycleError } from '../errors.js';
import { serviceEnvironmentVariables, servicesForPod } from './service-env.js';
import type { ServiceLister } from './service-env.js';

/**
 * Where configMapKeyRef / secretKeyRef / envFrom values come from: @kubelet-ts/api's ObjectSource,
 * the one the volume manager reads too (Secret values decoded to strings here; ConfigMaps give their
 * `data`, as upstream). Standalone kubelets have none. `undefined` = not found.
 */
export type ConfigMapSecretSource = ObjectSource;

export interface EnvContext {
  pod: Pod;
  container: Container;
  podIPs: readonly string[];
  nodeName: string;
  nodeIPs: readonly string[];
  /** Node allocatable: the value of resourceFieldRef limits a container does not set. */
  allocatable: NodeResources;
  source: ConfigMapSecretSource | undefined;
  /** The services informer (API mode); standalone has none, and so no service variables (as upstream). */
  services: ServiceLister | undefined;
}

const configError = (message: string): PodLifecycleError => new PodLifecycleError('CREATE_CONTAINER_CONFIG_ERROR', message);

// The classic C-identifier-like rule for env var names (upstream IsEnvVarName before it was relaxed).
const ENV_VAR_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

/** Go's `%q` for the strings we format (labels/annotations): JSON quoting is the same for printable text. */
function goQuote(value: string): string {
  return JSON.stringify(value);
}

/** Upstream fieldpath.FormatMap: sorted `key="value"` lines. */
function formatMap(map: Record<string, string> | undefined): string {
  return Object.keys(map ?? {})
    .sort()
    .map((k) => `${k}=${goQuote(map?.[k] ?? '')}`)
    .join('\n');
}

const SUBSCRIPT = /^(metadata\.(?:labels|annotations))\['(.+)'\]$/;

/** Upstream podFieldSelectorRuntimeValue + fieldpath.ExtractFieldPathAsString. */
export function podFieldValue(selector: ObjectFieldSelector, ctx: Pick<EnvContext, 'pod' | 'podIPs' | 'nodeName' | 'nodeIPs'>): string {
  const { pod } = ctx;
  const podIPs = ctx.podIPs.length > 0 ? ctx.podIPs : pod.spec.hostNetwork === true ? ctx.nodeIPs : [];
  switch (selector.fieldPath) {
    case 'spec.nodeName':
      return pod.spec.nodeName !== undefined && pod.spec.nodeName !== '' ? pod.spec.nodeName : ctx.nodeName;
    case 'spec.serviceAccountName':
      return pod.spec.serviceAccountName ?? '';
    case 'status.hostIP':
      if (ctx.nodeIPs.length === 0) throw configError('host IP unknown; known addresses: []');
      return ctx.nodeIPs[0] ?? '';
    case 'status.hostIPs':
      return ctx.nodeIPs.join(',');
    case 'status.podIP':
      return podIPs[0] ?? '';
    case 'status.podIPs':
      return podIPs.join(',');
    case 'metadata.name':
      return pod.metadata.name;
    case 'metadata.namespace':
      return pod.metadata.namespace;
    case 'metadata.uid':
      return pod.metadata.uid;
    case 'metadata.labels':
      return formatMap(pod.metadata.labels);
    case 'metadata.annotations':
      return formatMap(pod.metadata.annotations);
  }
  const sub = SUBSCRIPT.exec(selector.fieldPath);
  if (sub !== null) {
    const map = sub[1] === 'metadata.labels' ? pod.metadata.labels : pod.metadata.annotations;
    return map?.[sub[2] ?? ''] ?? '';
  }
  throw configError(`unsupported fieldPath: ${selector.fieldPath}`);
}

/** Upstream containerResourceRuntimeValue: the named container's (default: this one's) value, @kubelet-ts/api's containerResourceValue. */
export function containerResourceRuntimeValue(
  selector: ResourceFieldSelector,
  ctx: Pick<EnvContext, 'pod' | 'container' | 'allocatable'>,
): string {
  let container = ctx.container;
  if (selector.containerName !== undefined && selector.containerName !== '') {
    const named = [...ctx.pod.spec.containers, ...(ctx.pod.spec.initContainers ?? [])].find((c) => c.name === selector.containerName);
    if (named === undefined) throw configError(`container ${selector.containerName} not found`);
    container = named;
  }
  const value = containerResourceValue(selector.resource, selector.divisor, container, ctx.allocatable);
  if (value === undefined) throw configError(`unsupported container resource : ${selector.resource}`);
  return value;
}

interface Cache {
  configMaps: Map<string, Record<string, string> | undefined>;
  secrets: Map<string, Record<string, string> | undefined>;
}

async function lookup(
  kind: 'configMap' | 'secret',
  name: string,
  ctx: EnvContext,
  cache: Cache,
): Promise<Record<string, string> | undefined> {
  const ns = ctx.pod.metadata.namespace;
  const map = kind === 'configMap' ? cache.configMaps : cache.secrets;
  if (map.has(name)) return map.get(name);
  if (ctx.source === undefined) throw configError(`couldn't get ${kind} ${ns}/${name}, no kubeClient defined`);
  let data: Record<string, string> | undefined;
  if (kind === 'configMap') data = (await ctx.source.getConfigMap(ns, name))?.data;
  else {
    const secret = await ctx.source.getSecret(ns, name);
    data = secret === undefined ? undefined : Object.fromEntries(Object.entries(secret.data).map(([k, v]) => [k, v.toString('utf8')]));
  }
  map.set(name, data);
  return data;
}

const notFound = (kind: 'configMap' | 'secret', name: string): PodLifecycleError =>
  configError(`${kind === 'configMap' ? 'configmap' : 'secret'} "${name}" not found`);

/** Upstream getServiceEnvVarMap, with its refusal to start a non-static pod before the services are known. */
function serviceEnv(ctx: EnvContext): Map<string, string> {
  if (ctx.services === undefined) return new Map();
  if (!isStaticPod(ctx.pod) && !ctx.services.hasSynced()) {
    throw configError('services have not yet been read at least once, cannot construct envvars');
  }
  const services = servicesForPod(ctx.services.list(), ctx.pod.metadata.namespace, ctx.pod.spec.enableServiceLinks !== false);
  return serviceEnvironmentVariables(services);
}

/**
 * Upstream makeEnvironmentVariables: envFrom first, then env in order, `$(VAR)` in values
 * expanded against what was defined before and then the service variables; later definitions of
 * a name replace earlier ones; the service variables the container does not define come last.
 * Throws PodLifecycleError `CreateContainerConfigError` with upstream's messages.
 */
export async function makeEnvironmentVariables(ctx: EnvContext): Promise<Array<{ name: string; value: string }>> {
  const services = serviceEnv(ctx);
  const env = new Map<string, string>();
  const cache: Cache = { configMaps: new Map(), secrets: new Map() };
  const ns = ctx.pod.metadata.namespace;

  for (const from of ctx.container.envFrom ?? []) {
    const prefix = from.prefix ?? '';
    const ref = from.configMapRef ?? from.secretRef;
    if (ref === undefined) continue;
    const kind = from.configMapRef !== undefined ? 'configMap' : 'secret';
    const name = ref.name ?? '';
    const optional = ref.optional === true;
    // Without a source, an optional reference is skipped (upstream errors even then; see README).
    if (ctx.source === undefined && optional) continue;
    const data = await lookup(kind, name, ctx, cache);
    if (data === undefined) {
      if (optional) continue;
      throw notFound(kind, name);
    }
    for (const [key, value] of Object.entries(data)) {
      const k = prefix + key;
      if (!ENV_VAR_NAME.test(k)) continue;
      env.set(k, value);
    }
  }

  for (const v of ctx.container.env ?? []) {
    let value = v.value ?? '';
    if (value !== '') {
      value = expand(value, (name) => env.get(name) ?? services.get(name));
    } else if (v.valueFrom !== undefined) {
      const from = v.valueFrom;
      if (from.fieldRef !== undefined) {
        value = podFieldValue(from.fieldRef, ctx);
      } else if (from.resourceFieldRef !== undefined) {
        value = containerResourceRuntimeValue(from.resourceFieldRef, ctx);
      } else if (from.configMapKeyRef !== undefined || from.secretKeyRef !== undefined) {
        const ref = (from.configMapKeyRef ?? from.secretKeyRef)!;
        const kind = from.configMapKeyRef !== undefined ? 'configMap' : 'secret';
        const name = ref.name ?? '';
        const optional = ref.optional === true;
        if (ctx.source === undefined && optional) continue;
        const data = await lookup(kind, name, ctx, cache);
        if (data === undefined) {
          if (optional) continue;
          throw notFound(kind, name);
        }
        const found = data[ref.key];
        if (found === undefined) {
          if (optional) continue;
          throw configError(`couldn't find key ${ref.key} in ${kind === 'configMap' ? 'ConfigMap' : 'Secret'} ${ns}/${name}`);
        }
        value = found;
      }
    }
    env.set(v.name, value);
  }
  for (const [name, value] of services) if (!env.has(name)) env.set(name, value);
  return [...env].map(([name, value]) => ({ name, value }));
}
