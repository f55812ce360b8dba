import type { Container, IntOrString } from '../../schemas.js';
import { portName } from '../names.js';
import type { Issues } from './issues.js';

const PROTOCOLS = ['TCP', 'UDP', 'SCTP'] as const;

export function validatePorts(c: Container, path: string, hostNetwork: boolean, issues: Issues): void {
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
export function checkHostPortConflicts(containers: Container[], issues: Issues): void {
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

export function validatePortNumber(path: string, value: number, issues: Issues): void {
  if (value < 1 || value > 65535) issues.invalid(path, value, 'must be between 1 and 65535, inclusive');
}

export function validatePortNumOrName(port: IntOrString, path: string, issues: Issues): boolean {
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
