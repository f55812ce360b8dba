// Upstream kubelet_pods.go getServiceEnvVarMap and pkg/kubelet/envvars FromServices: the
// Docker-link-style variables of the services a pod sees.
import type { Service } from '@kubelet-ts/api';
import { isServiceIPSet } from '@kubelet-ts/api';

/** The services the kubelet knows (the services informer in API mode). */
export interface ServiceLister {
  /** False until the first list: non-static pods' containers wait (upstream serviceHasSynced). */
  hasSynced(): boolean;
  list(): readonly Service[];
}

/** Upstream masterServices: the services of `default` every pod sees, whatever enableServiceLinks says. */
const MASTER_SERVICES = new Set(['kubernetes']);
const DEFAULT_NAMESPACE = 'default';

/** Upstream makeEnvVariableName. */
const envName = (name: string): string => name.replaceAll('-', '_').toUpperCase();

/** Go's net.JoinHostPort: IPv6 addresses in brackets. */
const hostPort = (ip: string, port: number): string => (ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`);

/**
 * Upstream getServiceEnvVarMap's choice: the master services of `default` (a service of the same
 * name in the pod's own namespace wins when links are on), and with `enableServiceLinks` every
 * service of the pod's namespace; only services with a cluster IP.
 */
export function servicesForPod(services: readonly Service[], namespace: string, enableServiceLinks: boolean): Service[] {
  const byName = new Map<string, Service>();
  for (const service of services) {
    if (!isServiceIPSet(service)) continue;
    const { name } = service.metadata;
    if (service.metadata.namespace === DEFAULT_NAMESPACE && MASTER_SERVICES.has(name)) {
      if (!byName.has(name)) byName.set(name, service);
    } else if (service.metadata.namespace === namespace && enableServiceLinks) {
      byName.set(name, service);
    }
  }
  return [...byName.values()];
}

/**
 * Upstream envvars.FromServices: per service `<NAME>_SERVICE_HOST`, `<NAME>_SERVICE_PORT` (the
 * first port), `<NAME>_SERVICE_PORT_<PORT NAME>` for named ports, and the Docker link variables
 * `<NAME>_PORT` (first port) and `<NAME>_PORT_<port>_<PROTO>[_PROTO|_PORT|_ADDR]` for every port.
 */
export function serviceEnvironmentVariables(services: readonly Service[]): Map<string, string> {
  const env = new Map<string, string>();
  for (const service of services) {
    const ip = service.spec.clusterIP ?? '';
    const ports = service.spec.ports ?? [];
    const first = ports[0];
    // A service with a cluster IP has ports (API validation); one without gives nothing to link.
    if (!isServiceIPSet(service) || first === undefined) continue;
    const prefix = envName(service.metadata.name);
    env.set(`${prefix}_SERVICE_HOST`, ip);
    env.set(`${prefix}_SERVICE_PORT`, String(first.port));
    for (const port of ports) {
      if (port.name !== undefined && port.name !== '') env.set(`${prefix}_SERVICE_PORT_${envName(port.name)}`, String(port.port));
    }
    ports.forEach((port, i) => {
      const protocol = (port.protocol !== undefined && port.protocol !== '' ? port.protocol : 'TCP').toLowerCase();
      const url = `${protocol}://${hostPort(ip, port.port)}`;
      if (i === 0) env.set(`${prefix}_PORT`, url);
      const portPrefix = `${prefix}_PORT_${port.port}_${protocol.toUpperCase()}`;
      env.set(portPrefix, url);
      env.set(`${portPrefix}_PROTO`, protocol);
      env.set(`${portPrefix}_PORT`, String(port.port));
      env.set(`${portPrefix}_ADDR`, ip);
    });
  }
  return env;
}
