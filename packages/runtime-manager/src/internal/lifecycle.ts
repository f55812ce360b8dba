import http from 'node:http';
import https from 'node:https';
import type { Container, LifecycleHandler, Pod } from '@kubelet-ts/api';
import { resolveContainerPort } from '@kubelet-ts/api';
import type { Clock, Counter } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import type { RuntimeService } from '@kubelet-ts/cri-client';

/** Formats a pod the way upstream format.Pod does: `name_namespace(uid)`. */
export function formatPod(pod: Pod): string {
  return `${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`;
}

/** The message of anything thrown, also for errors from another realm (jest's VM context). */
function messageOf(err: unknown): string {
  if (typeof err === 'object' && err !== null && typeof (err as { message?: unknown }).message === 'string') {
    return errorMessage(
      err instanceof Error
        ? err
        : Object.assign(new Error((err as { message: string }).message), { cause: (err as { cause?: unknown }).cause }),
    );
  }
  return errorMessage(err);
}

/** Go's %v of a []string: `[a b c]`. */
function goList(items: readonly string[] | undefined): string {
  return `[${(items ?? []).join(' ')}]`;
}

export interface HandlerRunnerDeps {
  runtimeService: RuntimeService;
  clock: Clock;
  /** Timeout of one HTTP hook request. */
  httpTimeoutMs: number;
  /** Upstream's kubelet_sleep_action_terminated_early_total: a sleep hook cut short (its container was stopped). */
  sleepTerminatedEarly?: Counter;
}

/**
 * Upstream lifecycle HandlerRunner: runs a postStart/preStop handler and returns '' on success or
 * upstream's failure message. Exec runs through ExecSync, httpGet goes to the pod IP (or the
 * handler's host), sleep waits on the clock; tcpSocket is not a valid hook handler.
 */
export async function runLifecycleHandler(
  deps: HandlerRunnerDeps,
  containerId: string,
  pod: Pod,
  container: Container,
  handler: LifecycleHandler,
  podIP: string,
  signal?: AbortSignal,
): Promise<string> {
  if (handler.exec !== undefined) {
    const command = handler.exec.command ?? [];
    let output = '';
    try {
      const response = await deps.runtimeService.execSync(
        { containerId, cmd: command, timeout: 0 },
        signal === undefined ? {} : { signal },
      );
      output = Buffer.concat([Buffer.from(response.stdout ?? ''), Buffer.from(response.stderr ?? '')]).toString('utf8');
      if (response.exitCode !== 0) {
        const err = `command '${command.join(' ')}' exited with ${response.exitCode}: ${Buffer.from(response.stderr ?? '').toString('utf8')}`;
        return `Exec lifecycle hook (${goList(command)}) for Container "${container.name}" in Pod "${formatPod(pod)}" failed - error: ${err}, message: ${JSON.stringify(output)}`;
      }
      return '';
    } catch (err) {
      return `Exec lifecycle hook (${goList(command)}) for Container "${container.name}" in Pod "${formatPod(pod)}" failed - error: ${messageOf(err)}, message: ${JSON.stringify(output)}`;
    }
  }
  if (handler.httpGet !== undefined) {
    const get = handler.httpGet;
    try {
      const port = resolveContainerPort(get.port, container);
      const host = get.host !== undefined && get.host !== '' ? get.host : podIP;
      if (host === '') throw new Error('failed to find networking container of pod: no pod IP');
      await httpGet(
        {
          scheme: get.scheme === 'HTTPS' ? 'https' : 'http',
          host,
          port,
          path: get.path ?? '',
          headers: get.httpHeaders ?? [],
        },
        deps.httpTimeoutMs,
        signal,
      );
      return '';
    } catch (err) {
      return `HTTP lifecycle hook (${get.path ?? ''}) for Container "${container.name}" in Pod "${formatPod(pod)}" failed - error: ${messageOf(err)}`;
    }
  }
  if (handler.sleep !== undefined) {
    try {
      await deps.clock.sleep(handler.sleep.seconds * 1000, signal);
      return '';
    } catch (err) {
      deps.sleepTerminatedEarly?.inc();
      return `Sleep lifecycle hook (${handler.sleep.seconds}) for Container "${container.name}" in Pod "${formatPod(pod)}" failed - error: ${messageOf(err)}`;
    }
  }
  return `Cannot run handler: invalid handler: ${JSON.stringify(handler)}`;
}

interface HttpTarget {
  scheme: 'http' | 'https';
  host: string;
  port: number;
  path: string;
  headers: Array<{ name: string; value: string }>;
}

/** One GET; like upstream's hook runner, any HTTP response counts as delivered, only transport errors fail. */
function httpGet(target: HttpTarget, timeoutMs: number, signal?: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    const path = target.path.startsWith('/') ? target.path : `/${target.path}`;
    const headers: Record<string, string> = { 'User-Agent': 'kube-lifecycle/1.0', Accept: '*/*' };
    for (const h of target.headers) headers[h.name] = h.value;
    const options = {
      host: target.host,
      port: target.port,
      path,
      method: 'GET',
      headers,
      // No keep-alive, as upstream: a hook request never reuses a pooled connection.
      agent: false,
      timeout: timeoutMs,
      ...(signal === undefined ? {} : { signal }),
    };
    const req =
      target.scheme === 'https' ? https.request({ ...options, rejectUnauthorized: false }, onResponse) : http.request(options, onResponse);
    function onResponse(res: http.IncomingMessage): void {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    }
    req.on('timeout', () => req.destroy(new Error(`timeout after ${timeoutMs}ms`)));
    req.on('error', reject);
    req.end();
  });
}
