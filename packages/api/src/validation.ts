import { parseQuantityExact } from './quantity.js';
import type { Rational } from './internal/rational.js';
import { cmp, ZERO } from './internal/rational.js';
import {
  dns1123Label,
  dns1123Subdomain,
  envVarName,
  httpHeaderName,
  labelValue,
  portName,
  qualifiedName,
} from './internal/names.js';
import type {
  Container,
  EnvVar,
  HTTPGetAction,
  IntOrString,
  LifecycleHandler,
  ObjectMeta,
  Pod,
  PodSpec,
  Probe,
  ResourceRequirements,
  Volume,
} from './schemas.js';
import { VOLUME_SOURCE_KEYS } from './schemas.js';

/** One validation finding: the field path as upstream prints it and the reason. */
export interface ValidationIssue {
  /** e.g. "spec.containers[1].name" */
  path: string;
  /** e.g. `Invalid value "Foo": must be a DNS-1123 label …`, `Required value`, `Duplicate value "web"` */
  reason: string;
}

const show = (value: unknown): string => JSON.stringify(value) ?? String(value);
const quoteList = (values: readonly string[]): string => values.map((v) => `"${v}"`).join(', ');

class Issues {
  readonly list: ValidationIssue[] = [];
  required(path: string, detail?: string): void {
    this.list.push({ path, reason: detail === undefined ? 'Required value' : `Required value: ${detail}` });
  }
  invalid(path: string, value: unknown, detail: string): void {
    this.list.push({ path, reason: `Invalid value ${show(value)}: ${detail}` });
  }
  duplicate(path: string, value: unknown): void {
    this.list.push({ path, reason: `Duplicate value ${show(value)}` });
  }
  notSupported(path: string, value: unknown, supported: readonly string[]): void {
    this.list.push({ path, reason: `Unsupported value ${show(value)}: supported values: ${quoteList(supported)}` });
  }
  forbidden(path: string, detail: string): void {
    this.list.push({ path, reason: `Forbidden: ${detail}` });
  }
  notFound(path: string, value: unknown): void {
    this.list.push({ path, reason: `Not found: ${show(value)}` });
  }
  /** Records every reason a name rule returned, one issue per reason. */
  check(path: string, value: string, reasons: string[]): void {
    for (const r of reasons) this.invalid(path, value, r);
  }
  enumValue(path: string, value: string | undefined, supported: readonly string[]): void {
    if (value !== undefined && !supported.includes(value)) this.notSupported(path, value, supported);
  }
  nonNegative(path: string, value: number | undefined): void {
    if (value !== undefined && value < 0) this.invalid(path, value, 'must be greater than or equal to 0');
  }
}

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'] as const;
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'] as const;
const PROTOCOLS = ['TCP', 'UDP', 'SCTP'] as const;
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'] as const;
const TERMINATION_MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'] as const;
const SCHEMES = ['HTTP', 'HTTPS'] as const;
const PROPAGATIONS = ['None', 'HostToContainer', 'Bidirectional'] as const;
const HOST_PATH_TYPES = ['', 'DirectoryOrCreate', 'Directory', 'FileOrCreate', 'File', 'Socket', 'CharDevice', 'BlockDevice'] as const;
const TOLERATION_OPERATORS = ['Exists', 'Equal'] as const;
const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;
const SECCOMP_TYPES = ['RuntimeDefault', 'Unconfined', 'Localhost'] as const;
const PROC_MOUNTS = ['Default', 'Unmasked'] as const;
const OS_NAMES = ['linux', 'windows'] as const;
const MAX_ANNOTATIONS_BYTES = 256 * 1024;
const MAX_INT32 = 2_147_483_647;

/**
 * The node-relevant part of upstream ValidatePod (pkg/apis/core/validation). Expects a pod that
 * has been through {@link applyPodDefaults}, as upstream validates after defaulting. Returns every
 * issue found (empty when the pod is valid).
 */
export function validatePod(pod: Pod): ValidationIssue[] {
  const issues = new Issues();
  validateMeta(pod.metadata, issues);
  validateSpec(pod.spec, issues);
  return issues.list;
}

function validateMeta(meta: ObjectMeta, issues: Issues): void {
  if (meta.name === '') issues.required('metadata.name', 'name or generateName is required');
  else issues.check('metadata.name', meta.name, dns1123Subdomain(meta.name));
  if (meta.namespace === '') issues.required('metadata.namespace');
  else issues.check('metadata.namespace', meta.namespace, dns1123Label(meta.namespace));
  for (const [key, value] of Object.entries(meta.labels ?? {})) {
    issues.check('metadata.labels', key, qualifiedName(key));
    issues.check(`metadata.labels[${key}]`, value, labelValue(value));
  }
  let annotationBytes = 0;
  for (const [key, value] of Object.entries(meta.annotations ?? {})) {
    issues.check('metadata.annotations', key, qualifiedName(key.toLowerCase()));
    annotationBytes += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (annotationBytes > MAX_ANNOTATIONS_BYTES) {
    issues.list.push({ path: 'metadata.annotations', reason: `Too long: must have at most ${MAX_ANNOTATIONS_BYTES} bytes` });
  }
}

function validateSpec(spec: PodSpec, issues: Issues): void {
  const volumes = validateVolumes(spec.volumes ?? [], issues);

  if (spec.containers.length === 0) issues.required('spec.containers');
  const names = new Set<string>();
  const hostNetwork = spec.hostNetwork === true;
  const grace = spec.terminationGracePeriodSeconds;
  // Upstream validates the regular containers first, then the init containers against them.
  spec.containers.forEach((c, i) => {
    validateContainer(c, `spec.containers[${i}]`, { names, volumes, hostNetwork, grace, init: false }, issues);
  });
  checkHostPortConflicts(spec.containers, issues);
  (spec.initContainers ?? []).forEach((c, i) => {
    const path = `spec.initContainers[${i}]`;
    validateContainer(c, path, { names, volumes, hostNetwork, grace, init: true }, issues);
  });
  (spec.ephemeralContainers ?? []).forEach((c, i) => {
    if (names.has(c.name)) issues.duplicate(`spec.ephemeralContainers[${i}].name`, c.name);
  });

  issues.enumValue('spec.restartPolicy', spec.restartPolicy, RESTART_POLICIES);
  issues.enumValue('spec.dnsPolicy', spec.dnsPolicy, DNS_POLICIES);
  if (spec.dnsPolicy === 'None' && (spec.dnsConfig?.nameservers ?? []).length === 0) {
    issues.required('spec.dnsConfig.nameservers', 'must provide at least one DNS nameserver when DNSPolicy is None');
  }
  if ((spec.dnsConfig?.nameservers ?? []).length > 3) {
    issues.invalid('spec.dnsConfig.nameservers', spec.dnsConfig?.nameservers, 'must not have more than 3 nameservers');
  }
  issues.nonNegative('spec.terminationGracePeriodSeconds', grace);
  const deadline = spec.activeDeadlineSeconds;
  if (deadline !== undefined && (deadline <= 0 || deadline > MAX_INT32)) {
    issues.invalid('spec.activeDeadlineSeconds', deadline, `must be between 1 and ${MAX_INT32}, inclusive`);
  }
  if (spec.hostname !== undefined && spec.hostname !== '') issues.check('spec.hostname', spec.hostname, dns1123Label(spec.hostname));
  if (spec.subdomain !== undefined && spec.subdomain !== '') {
    issues.check('spec.subdomain', spec.subdomain, dns1123Label(spec.subdomain));
  }
  if (spec.nodeName !== undefined && spec.nodeName !== '') {
    issues.check('spec.nodeName', spec.nodeName, dns1123Subdomain(spec.nodeName));
  }
  if (spec.shareProcessNamespace === true && spec.hostPID === true) {
    issues.invalid('spec.shareProcessNamespace', true, 'ShareProcessNamespace and HostPID cannot both be enabled');
  }
  (spec.tolerations ?? []).forEach((t, i) => {
    const path = `spec.tolerations[${i}]`;
    if (t.key !== undefined && t.key !== '') issues.check(`${path}.key`, t.key, qualifiedName(t.key));
    issues.enumValue(`${path}.operator`, t.operator || undefined, TOLERATION_OPERATORS);
    if ((t.key === undefined || t.key === '') && t.operator !== 'Exists') {
      issues.invalid(`${path}.operator`, t.operator ?? '', 'operator must be Exists when `key` is empty, which means "match all values and all keys"');
    }
    if (t.operator === 'Exists' && t.value !== undefined && t.value !== '') {
      issues.invalid(`${path}.operator`, t.operator, 'value must be empty when `operator` is \'Exists\'');
    }
    issues.enumValue(`${path}.effect`, t.effect || undefined, TAINT_EFFECTS);
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute') {
      issues.invalid(`${path}.effect`, t.effect ?? '', 'effect must be \'NoExecute\' when `tolerationSeconds` is set');
    }
  });
  const seccomp = spec.securityContext?.seccompProfile;
  if (seccomp !== undefined) validateSeccomp(seccomp, 'spec.securityContext.seccompProfile', issues);
  if (spec.os !== undefined) issues.enumValue('spec.os.name', spec.os.name, OS_NAMES);
  for (const [name, value] of Object.entries(spec.overhead ?? {})) {
    validateResourceQuantity(`spec.overhead[${name}]`, value, issues);
  }
}

interface ContainerContext {
  names: Set<string>;
  volumes: Map<string, Volume>;
  hostNetwork: boolean;
  grace: number | undefined;
  init: boolean;
}

function validateContainer(c: Container, path: string, ctx: ContainerContext, issues: Issues): void {
  if (c.name === '') issues.required(`${path}.name`);
  else {
    issues.check(`${path}.name`, c.name, dns1123Label(c.name));
    if (ctx.names.has(c.name)) issues.duplicate(`${path}.name`, c.name);
    ctx.names.add(c.name);
  }
  if (c.image === '') issues.required(`${path}.image`);
  else if (c.image.trim() !== c.image) issues.invalid(`${path}.image`, c.image, 'must not have leading or trailing whitespace');
  issues.enumValue(`${path}.imagePullPolicy`, c.imagePullPolicy, PULL_POLICIES);
  issues.enumValue(`${path}.terminationMessagePolicy`, c.terminationMessagePolicy, TERMINATION_MESSAGE_POLICIES);

  if (ctx.init) {
    if (c.restartPolicy !== undefined && c.restartPolicy !== 'Always') issues.notSupported(`${path}.restartPolicy`, c.restartPolicy, ['Always']);
  } else if (c.restartPolicy !== undefined) {
    issues.forbidden(`${path}.restartPolicy`, 'may not be set for non-init containers');
  }
  const sidecar = ctx.init && c.restartPolicy === 'Always';

  validatePorts(c, path, ctx.hostNetwork, issues);
  (c.env ?? []).forEach((env, i) => validateEnv(env, `${path}.env[${i}]`, issues));
  (c.envFrom ?? []).forEach((from, i) => {
    const p = `${path}.envFrom[${i}]`;
    const count = (from.configMapRef !== undefined ? 1 : 0) + (from.secretRef !== undefined ? 1 : 0);
    if (count === 0) issues.invalid(p, '', 'must specify one of: `configMapRef` or `secretRef`');
    if (count > 1) issues.invalid(p, '', 'may not have more than one field specified at a time');
  });
  if (c.resources !== undefined) validateResources(c.resources, `${path}.resources`, issues);
  validateMounts(c, path, ctx.volumes, issues);

  if (ctx.init && !sidecar) {
    // Run-to-completion init containers take no probes or hooks; sidecars take all of them.
    for (const field of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe'] as const) {
      if (c[field] !== undefined) issues.forbidden(`${path}.${field}`, 'may not be set for init containers without restartPolicy=Always');
    }
  } else {
    if (c.livenessProbe !== undefined) validateProbe(c.livenessProbe, `${path}.livenessProbe`, c, 'liveness', issues);
    if (c.readinessProbe !== undefined) validateProbe(c.readinessProbe, `${path}.readinessProbe`, c, 'readiness', issues);
    if (c.startupProbe !== undefined) validateProbe(c.startupProbe, `${path}.startupProbe`, c, 'startup', issues);
    if (c.lifecycle?.postStart !== undefined) validateHandler(c.lifecycle.postStart, `${path}.lifecycle.postStart`, ctx.grace, issues);
    if (c.lifecycle?.preStop !== undefined) validateHandler(c.lifecycle.preStop, `${path}.lifecycle.preStop`, ctx.grace, issues);
  }

  const sc = c.securityContext;
  if (sc !== undefined) {
    const scPath = `${path}.securityContext`;
    issues.nonNegative(`${scPath}.runAsUser`, sc.runAsUser);
    issues.nonNegative(`${scPath}.runAsGroup`, sc.runAsGroup);
    issues.enumValue(`${scPath}.procMount`, sc.procMount, PROC_MOUNTS);
    if (sc.seccompProfile !== undefined) validateSeccomp(sc.seccompProfile, `${scPath}.seccompProfile`, issues);
    if (sc.allowPrivilegeEscalation === false && sc.privileged === true) {
      issues.invalid(scPath, '', 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true');
    }
    if (sc.allowPrivilegeEscalation === false && (sc.capabilities?.add ?? []).includes('CAP_SYS_ADMIN')) {
      issues.invalid(scPath, '', 'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN');
    }
  }
}

function validatePorts(c: Container, path: string, hostNetwork: boolean, issues: Issues): void {
  const portNames = new Set<string>();
  (c.ports ?? []).forEach((port, i) => {
    const p = `${path}.ports[${i}]`;
    if (port.name !== undefined && port.name !== '') {
      issues.check(`${p}.name`, port.name, portName(port.name));
      if (portNames.has(port.name)) issues.duplicate(`${p}.name`, port.name);
      portNames.add(port.name);
    }
    if (port.containerPort === 0) issues.required(`${p}.containerPort`);
    else validatePortNumber(`${p}.containerPort`, port.containerPort, issues);
    if (port.hostPort !== undefined && port.hostPort !== 0) {
      validatePortNumber(`${p}.hostPort`, port.hostPort, issues);
      if (hostNetwork && port.hostPort !== port.containerPort) {
        issues.invalid(`${p}.hostPort`, port.hostPort, 'must match `containerPort` when `hostNetwork` is true');
      }
    }
    if (port.protocol === undefined || port.protocol === '') issues.required(`${p}.protocol`);
    else issues.enumValue(`${p}.protocol`, port.protocol, PROTOCOLS);
  });
}

/** Upstream checkHostPortConflicts: a host IP/protocol/port may be claimed once across the containers. */
function checkHostPortConflicts(containers: Container[], issues: Issues): void {
  const claimed = new Set<string>();
  containers.forEach((c, i) => {
    (c.ports ?? []).forEach((port, j) => {
      if (port.hostPort === undefined || port.hostPort === 0) return;
      const key = `${port.hostIP ?? ''}/${port.protocol ?? 'TCP'}/${port.hostPort}`;
      if (claimed.has(key)) issues.duplicate(`spec.containers[${i}].ports[${j}].hostPort`, key);
      claimed.add(key);
    });
  });
}

function validatePortNumber(path: string, value: number, issues: Issues): void {
  if (value < 1 || value > 65535) issues.invalid(path, value, 'must be between 1 and 65535, inclusive');
}

function validateEnv(env: EnvVar, path: string, issues: Issues): void {
  if (env.name === '') issues.required(`${path}.name`);
  else issues.check(`${path}.name`, env.name, envVarName(env.name));
  const from = env.valueFrom;
  if (from === undefined) return;
  const set = (['fieldRef', 'resourceFieldRef', 'configMapKeyRef', 'secretKeyRef'] as const).filter((k) => from[k] !== undefined);
  if (set.length === 0) {
    issues.invalid(`${path}.valueFrom`, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`');
  } else if (set.length > 1) {
    issues.invalid(`${path}.valueFrom`, '', 'may not have more than one field specified at a time');
  }
  if (env.value !== undefined && env.value !== '') {
    issues.invalid(`${path}.valueFrom`, '', 'may not be specified when `value` is not empty');
  }
  if (from.fieldRef !== undefined && from.fieldRef.fieldPath === '') issues.required(`${path}.valueFrom.fieldRef.fieldPath`);
  if (from.resourceFieldRef !== undefined && from.resourceFieldRef.resource === '') {
    issues.required(`${path}.valueFrom.resourceFieldRef.resource`);
  }
  if (from.configMapKeyRef !== undefined && from.configMapKeyRef.key === '') issues.required(`${path}.valueFrom.configMapKeyRef.key`);
  if (from.secretKeyRef !== undefined && from.secretKeyRef.key === '') issues.required(`${path}.valueFrom.secretKeyRef.key`);
}

function quantityOrIssue(path: string, value: string | number, issues: Issues): Rational | undefined {
  try {
    return parseQuantityExact(value);
  } catch (err) {
    issues.invalid(path, value, err instanceof Error ? err.message : String(err));
    return undefined;
  }
}

function validateResourceQuantity(path: string, value: string | number, issues: Issues): Rational | undefined {
  const q = quantityOrIssue(path, value, issues);
  if (q !== undefined && cmp(q, ZERO) < 0) {
    issues.invalid(path, value, 'must be greater than or equal to 0');
    return undefined;
  }
  return q;
}

function validateResources(resources: ResourceRequirements, path: string, issues: Issues): void {
  const limits = new Map<string, Rational>();
  for (const [name, value] of Object.entries(resources.limits ?? {})) {
    issues.check(`${path}.limits[${name}]`, name, qualifiedName(name));
    const q = validateResourceQuantity(`${path}.limits[${name}]`, value, issues);
    if (q !== undefined) limits.set(name, q);
  }
  for (const [name, value] of Object.entries(resources.requests ?? {})) {
    const p = `${path}.requests[${name}]`;
    issues.check(p, name, qualifiedName(name));
    const q = validateResourceQuantity(p, value, issues);
    const limit = limits.get(name);
    if (q === undefined || limit === undefined) continue;
    if (cmp(q, limit) > 0) issues.invalid(p, value, `must be less than or equal to ${name} limit of ${show(resources.limits?.[name])}`);
    // Hugepages and extended resources cannot be overcommitted: request must equal limit.
    else if (!isOvercommitable(name) && cmp(q, limit) !== 0) {
      issues.invalid(p, value, `must be equal to ${name} limit of ${show(resources.limits?.[name])}`);
    }
  }
}

function isOvercommitable(name: string): boolean {
  if (name.startsWith('hugepages-')) return false;
  // Extended resources: a domain-prefixed name outside kubernetes.io.
  const slash = name.indexOf('/');
  if (slash < 0) return true;
  const domain = name.slice(0, slash);
  return domain === 'kubernetes.io' || domain.endsWith('.kubernetes.io');
}

function validateMounts(c: Container, path: string, volumes: Map<string, Volume>, issues: Issues): void {
  const mountPaths = new Set<string>();
  (c.volumeMounts ?? []).forEach((m, i) => {
    const p = `${path}.volumeMounts[${i}]`;
    if (m.name === '') issues.required(`${p}.name`);
    else if (!volumes.has(m.name)) issues.notFound(`${p}.name`, m.name);
    if (m.mountPath === '') issues.required(`${p}.mountPath`);
    else {
      if (!m.mountPath.startsWith('/')) issues.invalid(`${p}.mountPath`, m.mountPath, 'must be an absolute path');
      if (mountPaths.has(m.mountPath)) issues.invalid(`${p}.mountPath`, m.mountPath, 'must be unique');
      mountPaths.add(m.mountPath);
    }
    if (m.subPath !== undefined && m.subPath !== '') {
      validateRelativePath(`${p}.subPath`, m.subPath, issues);
      if (m.subPathExpr !== undefined && m.subPathExpr !== '') {
        issues.invalid(`${p}.subPathExpr`, m.subPathExpr, 'subPathExpr and subPath are mutually exclusive');
      }
    }
    if (m.subPathExpr !== undefined && m.subPathExpr !== '') validateRelativePath(`${p}.subPathExpr`, m.subPathExpr, issues);
    issues.enumValue(`${p}.mountPropagation`, m.mountPropagation, PROPAGATIONS);
    if (m.mountPropagation === 'Bidirectional' && c.securityContext?.privileged !== true) {
      issues.forbidden(`${p}.mountPropagation`, 'Bidirectional mount propagation is available only to privileged containers');
    }
  });
  (c.volumeDevices ?? []).forEach((d, i) => {
    const p = `${path}.volumeDevices[${i}]`;
    if (d.name === '') issues.required(`${p}.name`);
    else if (!volumes.has(d.name)) issues.notFound(`${p}.name`, d.name);
    if (d.devicePath === '') issues.required(`${p}.devicePath`);
    else if (!d.devicePath.startsWith('/')) issues.invalid(`${p}.devicePath`, d.devicePath, 'must be an absolute path');
    if (mountPaths.has(d.devicePath)) issues.invalid(`${p}.devicePath`, d.devicePath, 'must not be used as a mountPath too');
  });
}

function validateRelativePath(path: string, value: string, issues: Issues): void {
  if (value.startsWith('/')) issues.invalid(path, value, 'must be a relative path');
  if (value.split('/').includes('..')) issues.invalid(path, value, "must not contain '..'");
}

function validateVolumes(volumes: Volume[], issues: Issues): Map<string, Volume> {
  const byName = new Map<string, Volume>();
  volumes.forEach((v, i) => {
    const p = `spec.volumes[${i}]`;
    if (v.name === '') issues.required(`${p}.name`);
    else {
      issues.check(`${p}.name`, v.name, dns1123Label(v.name));
      if (byName.has(v.name)) issues.duplicate(`${p}.name`, v.name);
      else byName.set(v.name, v);
    }
    const sources = VOLUME_SOURCE_KEYS.filter((key) => v[key] !== undefined);
    if (sources.length === 0) issues.required(p, 'must specify a volume type');
    else if (sources.length > 1) issues.forbidden(`${p}.${sources[1] ?? ''}`, 'may not specify more than 1 volume type');
    if (v.hostPath !== undefined) {
      if (v.hostPath.path === '') issues.required(`${p}.hostPath.path`);
      issues.enumValue(`${p}.hostPath.type`, v.hostPath.type, HOST_PATH_TYPES);
    }
    if (v.emptyDir?.sizeLimit !== undefined) validateResourceQuantity(`${p}.emptyDir.sizeLimit`, v.emptyDir.sizeLimit, issues);
    if (v.persistentVolumeClaim !== undefined && v.persistentVolumeClaim.claimName === '') {
      issues.required(`${p}.persistentVolumeClaim.claimName`);
    }
    if (v.csi !== undefined && v.csi.driver === '') issues.required(`${p}.csi.driver`);
    for (const [key, mode] of [
      ['configMap', v.configMap?.defaultMode],
      ['secret', v.secret?.defaultMode],
      ['downwardAPI', v.downwardAPI?.defaultMode],
      ['projected', v.projected?.defaultMode],
    ] as const) {
      if (mode !== undefined && (mode < 0 || mode > 0o777)) {
        issues.invalid(`${p}.${key}.defaultMode`, mode, 'must be a number between 0 and 0777 (octal), both inclusive');
      }
    }
  });
  return byName;
}

type ProbeKind = 'liveness' | 'readiness' | 'startup';

function validateProbe(probe: Probe, path: string, c: Container, kind: ProbeKind, issues: Issues): void {
  const handlers = (['exec', 'httpGet', 'tcpSocket', 'grpc'] as const).filter((k) => probe[k] !== undefined);
  if (handlers.length === 0) issues.required(path, 'must specify a handler type');
  else if (handlers.length > 1) issues.forbidden(`${path}.${handlers[1] ?? ''}`, 'may not specify more than 1 handler type');
  if (probe.exec !== undefined && (probe.exec.command ?? []).length === 0) issues.required(`${path}.exec.command`);
  if (probe.httpGet !== undefined) validateHttpGet(probe.httpGet, `${path}.httpGet`, c, issues);
  if (probe.tcpSocket !== undefined) validateProbePort(probe.tcpSocket.port, `${path}.tcpSocket.port`, c, issues);
  if (probe.grpc !== undefined) validatePortNumber(`${path}.grpc.port`, probe.grpc.port, issues);

  issues.nonNegative(`${path}.initialDelaySeconds`, probe.initialDelaySeconds);
  issues.nonNegative(`${path}.timeoutSeconds`, probe.timeoutSeconds);
  issues.nonNegative(`${path}.periodSeconds`, probe.periodSeconds);
  issues.nonNegative(`${path}.successThreshold`, probe.successThreshold);
  issues.nonNegative(`${path}.failureThreshold`, probe.failureThreshold);
  if ((kind === 'liveness' || kind === 'startup') && probe.successThreshold !== undefined && probe.successThreshold !== 1) {
    issues.invalid(`${path}.successThreshold`, probe.successThreshold, 'must be 1');
  }
  const grace = probe.terminationGracePeriodSeconds;
  if (grace !== undefined) {
    if (kind === 'readiness') issues.invalid(`${path}.terminationGracePeriodSeconds`, grace, 'must not be set for readinessProbes');
    else if (grace <= 0) issues.invalid(`${path}.terminationGracePeriodSeconds`, grace, 'must be greater than 0');
  }
}

function validateHttpGet(action: HTTPGetAction, path: string, c: Container | undefined, issues: Issues): void {
  if (action.path === undefined || action.path === '') issues.required(`${path}.path`);
  if (c !== undefined) validateProbePort(action.port, `${path}.port`, c, issues);
  else validatePortNumOrName(action.port, `${path}.port`, issues);
  issues.enumValue(`${path}.scheme`, action.scheme, SCHEMES);
  (action.httpHeaders ?? []).forEach((h, i) => issues.check(`${path}.httpHeaders[${i}].name`, h.name, httpHeaderName(h.name)));
}

function validatePortNumOrName(port: IntOrString, path: string, issues: Issues): boolean {
  if (typeof port === 'number') {
    if (port < 1 || port > 65535) {
      issues.invalid(path, port, 'must be between 1 and 65535, inclusive');
      return false;
    }
    return true;
  }
  if (port === '') {
    issues.required(path);
    return false;
  }
  const errs = portName(port);
  issues.check(path, port, errs);
  return errs.length === 0;
}

/** Probes additionally require a named port to exist in the container (stricter than upstream validation). */
function validateProbePort(port: IntOrString, path: string, c: Container, issues: Issues): void {
  if (!validatePortNumOrName(port, path, issues) || typeof port === 'number') return;
  if (!(c.ports ?? []).some((p) => p.name === port)) {
    issues.invalid(path, port, `must be a port number or the name of a port of container "${c.name}"`);
  }
}

function validateHandler(handler: LifecycleHandler, path: string, grace: number | undefined, issues: Issues): void {
  const handlers = (['exec', 'httpGet', 'tcpSocket', 'sleep'] as const).filter((k) => handler[k] !== undefined);
  if (handlers.length === 0) issues.required(path, 'must specify a handler type');
  else if (handlers.length > 1) issues.forbidden(`${path}.${handlers[1] ?? ''}`, 'may not specify more than 1 handler type');
  if (handler.exec !== undefined && (handler.exec.command ?? []).length === 0) issues.required(`${path}.exec.command`);
  if (handler.httpGet !== undefined) validateHttpGet(handler.httpGet, `${path}.httpGet`, undefined, issues);
  if (handler.tcpSocket !== undefined) validatePortNumOrName(handler.tcpSocket.port, `${path}.tcpSocket.port`, issues);
  if (handler.sleep !== undefined) {
    const seconds = handler.sleep.seconds;
    const max = grace ?? Number.POSITIVE_INFINITY;
    if (seconds < 0 || seconds > max) {
      issues.invalid(`${path}.sleep.seconds`, seconds, `must be non-negative and less than terminationGracePeriodSeconds (${grace ?? 'unset'})`);
    }
  }
}

function validateSeccomp(profile: { type: string; localhostProfile?: string | undefined }, path: string, issues: Issues): void {
  issues.enumValue(`${path}.type`, profile.type, SECCOMP_TYPES);
  if (profile.type === 'Localhost' && (profile.localhostProfile ?? '') === '') {
    issues.required(`${path}.localhostProfile`, 'must be set when seccomp type is Localhost');
  }
  if (profile.type !== 'Localhost' && profile.localhostProfile !== undefined) {
    issues.invalid(`${path}.localhostProfile`, profile.localhostProfile, 'can only be set when seccomp type is Localhost');
  }
}
