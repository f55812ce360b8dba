import type { Container, HTTPGetAction, LifecycleHandler, Probe } from '../../schemas.js';
import { httpHeaderName } from '../names.js';
import type { Issues } from './issues.js';
import { validatePortNumber, validatePortNumOrName } from './ports.js';

const SCHEMES = ['HTTP', 'HTTPS'] as const;

type ProbeKind = 'liveness' | 'readiness' | 'startup';

export function validateProbe(probe: Probe, path: string, c: Container, kind: ProbeKind, issues: Issues): void {
  const handlers = (['exec', 'httpGet', 'tcpSocket', 'grpc'] as const).filter((k) => probe[k] !== undefined);
  if (handlers.length === 0) issues.required(path, 'must specify a handler type');
  else if (handlers.length > 1) issues.forbidden(`${path}.${handlers[1] ?? ''}`, 'may not specify more than 1 handler type');
  if (probe.exec !== undefined && (probe.exec.command ?? []).length === 0) issues.required(`${path}.exec.command`);
  if (probe.httpGet !== undefined) validateHttpGet(probe.httpGet, `${path}.httpGet`, issues);
  if (probe.tcpSocket !== undefined) validatePortNumOrName(probe.tcpSocket.port, `${path}.tcpSocket.port`, issues);
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

function validateHttpGet(action: HTTPGetAction, path: string, issues: Issues): void {
  if (action.path === undefined || action.path === '') issues.required(`${path}.path`);
  // A named port need not exist in the container, as upstream: the probe fails when it runs.
  validatePortNumOrName(action.port, `${path}.port`, issues);
  issues.enumValue(`${path}.scheme`, action.scheme, SCHEMES);
  (action.httpHeaders ?? []).forEach((h, i) => issues.check(`${path}.httpHeaders[${i}].name`, h.name, httpHeaderName(h.name)));
}

export function validateHandler(handler: LifecycleHandler, path: string, grace: number | undefined, issues: Issues): void {
  const handlers = (['exec', 'httpGet', 'tcpSocket', 'sleep'] as const).filter((k) => handler[k] !== undefined);
  if (handlers.length === 0) issues.required(path, 'must specify a handler type');
  else if (handlers.length > 1) issues.forbidden(`${path}.${handlers[1] ?? ''}`, 'may not specify more than 1 handler type');
  if (handler.exec !== undefined && (handler.exec.command ?? []).length === 0) issues.required(`${path}.exec.command`);
  if (handler.httpGet !== undefined) validateHttpGet(handler.httpGet, `${path}.httpGet`, issues);
  if (handler.tcpSocket !== undefined) validatePortNumOrName(handler.tcpSocket.port, `${path}.tcpSocket.port`, issues);
  if (handler.sleep !== undefined) {
    const seconds = handler.sleep.seconds;
    const max = grace ?? Number.POSITIVE_INFINITY;
    if (seconds < 0 || seconds > max) {
      issues.invalid(
        `${path}.sleep.seconds`,
        seconds,
        `must be non-negative and less than terminationGracePeriodSeconds (${grace ?? 'unset'})`,
      );
    }
  }
}
