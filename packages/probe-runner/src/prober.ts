import type { Probe } from '@kubelet-ts/api';
import { expandContainerCommandOnlyStatic, resolveContainerPort } from '@kubelet-ts/api';
import type { Clock } from '@kubelet-ts/common';
import { systemClock } from '@kubelet-ts/common';
import { ProbeError, execTimeoutError } from './errors.js';
import { doExecProbe } from './probers/exec.js';
import { doGrpcProbe } from './probers/grpc.js';
import { doHttpProbe, joinHostPort } from './probers/http.js';
import { doTcpProbe } from './probers/tcp.js';
import type { ExecFn, ProbeOutcome, ProbeTarget, ProbeType, Prober } from './types.js';

/** The kubelet version the User-Agent names (`kube-probe/<major>.<minor>`). */
export const DEFAULT_USER_AGENT_VERSION = '1.34';

export interface ProberOptions {
  exec: ExecFn;
  /** `<major>.<minor>` for `User-Agent: kube-probe/<version>`. Default 1.34. */
  userAgentVersion?: string;
  /**
   * Extra time an exec probe gets beyond timeoutSeconds before the runner gives up on the exec
   * function itself (the runtime enforces timeoutSeconds and answers first). Default 2000 ms.
   */
  execGraceMs?: number;
  clock?: Clock;
}

/** The probe spec of a container for one probe type. */
export function probeSpec(target: Pick<ProbeTarget, 'container' | 'probeType'>): Probe | undefined {
  const c = target.container;
  return target.probeType === 'liveness' ? c.livenessProbe : target.probeType === 'readiness' ? c.readinessProbe : c.startupProbe;
}

/** Upstream probe type names as they appear in events, logs and metrics ("Liveness"). */
export function probeTypeName(type: ProbeType): 'Liveness' | 'Readiness' | 'Startup' {
  return type === 'liveness' ? 'Liveness' : type === 'readiness' ? 'Readiness' : 'Startup';
}

/** Builds the request of an httpGet probe (upstream NewRequestForHTTPGetAction + newProbeRequest). */
export function httpProbeRequest(
  probe: NonNullable<Probe['httpGet']>,
  target: Pick<ProbeTarget, 'container' | 'podIP'>,
  userAgentVersion: string,
): { url: URL; headers: Array<[string, string]> } {
  const scheme = (probe.scheme ?? 'HTTP').toLowerCase() || 'http';
  const host = probe.host !== undefined && probe.host !== '' ? probe.host : target.podIP;
  const port = resolvePort(probe.port, target);
  const path = probe.path ?? '';
  let url: URL;
  try {
    url = new URL(`${scheme}://${joinHostPort(host, port)}${path.startsWith('/') || path === '' ? path : `/${path}`}`);
  } catch (err) {
    throw new ProbeError('INVALID_PROBE', `invalid httpGet probe URL for host ${JSON.stringify(host)}, path ${JSON.stringify(path)}`, {
      cause: err,
    });
  }
  const headers: Array<[string, string]> = (probe.httpHeaders ?? []).map((h) => [h.name, h.value]);
  const has = (name: string): boolean => headers.some(([n]) => n.toLowerCase() === name);
  if (!has('user-agent')) headers.push(['User-Agent', `kube-probe/${userAgentVersion}`]);
  if (!has('accept')) headers.push(['Accept', '*/*']);
  // An Accept header set to '' removes it (upstream).
  const filtered = headers.filter(([n, v]) => !(n.toLowerCase() === 'accept' && v === ''));
  return { url, headers: filtered };
}

function resolvePort(port: string | number, target: Pick<ProbeTarget, 'container'>): number {
  try {
    return resolveContainerPort(port, target.container);
  } catch (err) {
    throw new ProbeError('INVALID_PROBE', err instanceof Error ? err.message : String(err), { cause: err });
  }
}

/**
 * The real prober (upstream prober.runProbe): exec through the injected ExecFn, httpGet, tcpSocket
 * and grpc over the network, each bounded by the probe's timeoutSeconds.
 */
export function createProber(options: ProberOptions): Prober {
  const version = options.userAgentVersion ?? DEFAULT_USER_AGENT_VERSION;
  const execGraceMs = options.execGraceMs ?? 2_000;
  const clock = options.clock ?? systemClock;
  return async (target, signal): Promise<ProbeOutcome> => {
    const probe = probeSpec(target);
    if (probe === undefined) return { result: 'success', output: '' };
    const timeoutSeconds = probe.timeoutSeconds ?? 1;
    const timeoutMs = Math.max(1, timeoutSeconds) * 1000;
    if (probe.exec !== undefined) {
      const cmd = expandContainerCommandOnlyStatic(probe.exec.command ?? [], target.container.env);
      // A backstop in case the exec function itself hangs: give up a little after the runtime should have.
      const controller = new AbortController();
      const onAbort = (): void => controller.abort(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      let timer: ReturnType<Clock['setTimeout']> | undefined;
      const backstop = new Promise<ProbeOutcome>((resolve) => {
        timer = clock.setTimeout(() => {
          controller.abort(execTimeoutError(cmd));
          resolve({ result: 'failure', output: execTimeoutError(cmd).message });
        }, timeoutMs + execGraceMs);
      });
      try {
        return await Promise.race([doExecProbe(options.exec, target.containerId, cmd, timeoutSeconds, controller.signal), backstop]);
      } finally {
        if (timer !== undefined) clock.clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      }
    }
    if (probe.httpGet !== undefined) {
      const { url, headers } = httpProbeRequest(probe.httpGet, target, version);
      return doHttpProbe({ url, headers, timeoutMs }, signal);
    }
    if (probe.tcpSocket !== undefined) {
      const port = resolvePort(probe.tcpSocket.port, target);
      const host = probe.tcpSocket.host !== undefined && probe.tcpSocket.host !== '' ? probe.tcpSocket.host : target.podIP;
      return doTcpProbe(host, port, timeoutMs, signal);
    }
    if (probe.grpc !== undefined) {
      return doGrpcProbe(target.podIP, probe.grpc.port, probe.grpc.service ?? '', timeoutMs, `kube-probe/${version}`, signal);
    }
    throw new ProbeError(
      'INVALID_PROBE',
      `missing probe handler for ${target.pod.metadata.namespace}/${target.pod.metadata.name}:${target.container.name}`,
    );
  };
}
