import type { Container, Pod } from '@kubelet-ts/api';

/** The three probe types (upstream probeType). */
export type ProbeType = 'liveness' | 'readiness' | 'startup';

/** A cached verdict (upstream results.Result). `unknown` is the startup probe's initial value. */
export type ProbeResult = 'success' | 'failure' | 'unknown';

/**
 * What one probe run returned (upstream probe.Result + output). `warning` counts as a success
 * (e.g. an HTTP redirect to another host); `unknown` is an error to retry.
 */
export interface ProbeOutcome {
  result: 'success' | 'warning' | 'failure' | 'unknown';
  /** Human-readable output: exec stdout+stderr, the HTTP failure, the gRPC status… */
  output: string;
}

/** What an exec probe's command returned. */
export interface ExecResult {
  exitCode: number;
  stdout: string | Uint8Array;
  stderr: string | Uint8Array;
}

/**
 * Runs a command in a container (the kubelet wires CRI ExecSync; see createCriExecFn). Must
 * reject with `execTimeoutError(cmd)` (a ProbeError with code `EXEC_TIMEOUT`) when the command
 * outlived `timeoutSeconds`; any other rejection is an error (the probe is retried, then
 * its result thrown away, as upstream). `signal` aborts when the runner gives up.
 */
export type ExecFn = (containerId: string, cmd: string[], timeoutSeconds: number, signal: AbortSignal) => Promise<ExecResult>;

/** Everything one probe run needs. */
export interface ProbeTarget {
  probeType: ProbeType;
  pod: Pod;
  container: Container;
  containerId: string;
  /** The pod's primary IP ('' when unknown). */
  podIP: string;
}

/**
 * Runs one probe of a container once (upstream prober.runProbe). Throws (or resolves `unknown`)
 * on an error: the worker retries and finally throws the result away.
 */
export type Prober = (target: ProbeTarget, signal: AbortSignal) => Promise<ProbeOutcome>;

/** A container of a pod, as status generation knows it (passed to the readiness/startup providers). */
export interface ContainerRef {
  pod: Pod;
  containerName: string;
}

/** One change of a cached result (upstream results.Update). */
export interface ProbeResultChange {
  probeType: ProbeType;
  containerId: string;
  podUID: string;
  containerName: string;
  result: ProbeResult;
  /** The result before, undefined when there was none. */
  previous: ProbeResult | undefined;
}

/** A worker as seen from outside (debugging, tests). */
export interface ProbeWorkerInfo {
  podUID: string;
  containerName: string;
  probeType: ProbeType;
  containerId: string;
  runs: number;
}
