import type { Container, Pod, Probe } from '@kubelet-ts/api';
import { EventReason, Reason } from '@kubelet-ts/api';
import type { Clock, EventRecorder, Logger, TimerHandle } from '@kubelet-ts/common';
import { EventType, containerReference, errorMessage } from '@kubelet-ts/common';
import type { MetricsRegistry } from '../metrics.js';
import { probeTypeName } from '../prober.js';
import type { ResultsManager } from '../results.js';
import type { ProbeOutcome, ProbeResult, ProbeType, Prober } from '../types.js';
import type { Limiter } from './limiter.js';

/** Upstream maxProbeRetries: a probe that errors is run up to this many times. */
const MAX_PROBE_RETRIES = 3;

/** What the manager knows of one container from the pod status. */
export interface KnownContainer {
  id: string;
  running: boolean;
  terminated: boolean;
  /** Milliseconds since the epoch, from state.running.startedAt. */
  startedAt?: number;
}

export interface KnownPodStatus {
  phase: string | undefined;
  podIP: string;
  containers: Map<string, KnownContainer>;
}

/** The pod-spec list a probed container is declared in: regular containers, or sidecars among the init containers. */
export type ProbedContainerList = 'containers' | 'initContainers';

/** What a worker needs from its manager. */
export interface WorkerContext {
  clock: Clock;
  /** Where the Unhealthy and ProbeWarning events go. */
  recorder: EventRecorder;
  random: () => number;
  limiter: Limiter;
  prober: Prober;
  metrics: MetricsRegistry;
  results: Record<ProbeType, ResultsManager>;
  /** When the manager was created (upstream probeManager.start). */
  startedAt: number;
  /** The latest pod object and status the manager was told about. */
  podOf(uid: string): { pod: Pod; status: KnownPodStatus | undefined } | undefined;
  /** The worker stopped by itself (terminal pod, deletion): forget it. */
  onExit(worker: ProbeWorker): void;
}

/** Upstream initial results: readiness failure, liveness success, startup unknown. */
export function initialResult(type: ProbeType): ProbeResult {
  return type === 'readiness' ? 'failure' : type === 'liveness' ? 'success' : 'unknown';
}

/**
 * Upstream prober worker: probes one container of one pod for one probe type every period,
 * applies the thresholds and caches the result per container ID. The schedule keeps its own
 * period from the worker's start: the next run is due one period after the previous due time,
 * missed runs are skipped (and counted), so slow probes never accumulate drift.
 */
export class ProbeWorker {
  readonly probeType: ProbeType;
  readonly podUID: string;
  readonly container: Container;
  readonly spec: Probe;
  readonly #ctx: WorkerContext;
  readonly #list: ProbedContainerList;
  readonly #podName: string;
  readonly #podNamespace: string;
  readonly #logger: Logger;
  readonly #periodMs: number;
  readonly #abort = new AbortController();
  #containerId = '';
  #lastResult: ProbeResult | undefined;
  #resultRun = 0;
  #onHold = false;
  #timer: TimerHandle | undefined;
  #nextAt = 0;
  #inFlight: Promise<void> | undefined;
  #triggered = false;
  /** The first scheduled run has begun (upstream: the worker entered its probe loop). */
  #launched = false;
  #stopped = false;
  /** Number of probe runs (tests and debugging). */
  runs = 0;

  constructor(
    ctx: WorkerContext,
    pod: Pod,
    probed: { container: Container; list: ProbedContainerList },
    probeType: ProbeType,
    spec: Probe,
    logger: Logger,
  ) {
    const { container } = probed;
    this.#ctx = ctx;
    this.podUID = pod.metadata.uid;
    this.#podName = pod.metadata.name;
    this.#podNamespace = pod.metadata.namespace;
    this.container = container;
    this.#list = probed.list;
    this.probeType = probeType;
    this.spec = spec;
    this.#periodMs = Math.max(1, spec.periodSeconds ?? 10) * 1000;
    this.#logger = logger.child({
      pod: `${pod.metadata.namespace}/${pod.metadata.name}`,
      podUID: pod.metadata.uid,
      containerName: container.name,
      probeType: probeTypeName(probeType),
    });
  }

  get containerId(): string {
    return this.#containerId;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /** Upstream worker.run: after a recent kubelet start, the first run waits a random part of the period. */
  start(): void {
    const now = this.#ctx.clock.now();
    const delay = now - this.#ctx.startedAt < this.#periodMs ? Math.floor(this.#ctx.random() * this.#periodMs) : 0;
    this.#nextAt = now + delay;
    this.#schedule();
  }

  /**
   * Runs a probe now (upstream manualTriggerCh), without moving the periodic schedule; during a run, right
   * after it. Before the first scheduled run (or the restart jitter) there is nothing to do: that run reads
   * the newest status. After it there is, even if it probed nothing: a worker whose first run found the
   * container still being created must probe as soon as the container runs, not a period later.
   */
  trigger(): void {
    if (this.#stopped || !this.#launched) return;
    if (this.#inFlight !== undefined) this.#triggered = true;
    else this.#launch();
  }

  /** Stops probing, aborts a running probe and forgets the cached result. Resolves once a running probe returned. */
  stop(): Promise<void> {
    if (!this.#stopped) {
      this.#stopped = true;
      if (this.#timer !== undefined) this.#ctx.clock.clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#abort.abort();
      if (this.#containerId !== '') this.#ctx.results[this.probeType].remove(this.#containerId);
      this.#ctx.metrics.forget(probeTypeName(this.probeType), this.podUID, this.container.name, this.#podName, this.#podNamespace);
    }
    return this.#inFlight ?? Promise.resolve();
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = this.#ctx.clock.setTimeout(() => this.#tick(), Math.max(0, this.#nextAt - this.#ctx.clock.now()));
  }

  #tick(): void {
    this.#timer = undefined;
    if (this.#stopped) return;
    this.#nextAt += this.#periodMs;
    const now = this.#ctx.clock.now();
    while (this.#nextAt <= now) {
      this.#nextAt += this.#periodMs;
      this.#ctx.metrics.missedRuns++;
    }
    if (this.#inFlight !== undefined) this.#ctx.metrics.missedRuns++;
    else this.#launch();
    this.#schedule();
  }

  #launch(): void {
    this.#launched = true;
    this.#inFlight = this.#doProbe()
      .then(
        (keepGoing) => {
          if (!keepGoing && !this.#stopped) {
            void this.stop();
            this.#ctx.onExit(this);
          }
        },
        (err: unknown) => this.#logger.error('Probe worker failed', { err: errorMessage(err) }),
      )
      .finally(() => {
        this.#inFlight = undefined;
        if (this.#triggered && !this.#stopped) {
          this.#triggered = false;
          this.#launch();
        }
      });
  }

  #set(result: ProbeResult): void {
    this.#ctx.results[this.probeType].set(this.#containerId, result, { podUID: this.podUID, containerName: this.container.name });
  }

  /** Upstream worker.doProbe; false stops the worker. */
  async #doProbe(): Promise<boolean> {
    const entry = this.#ctx.podOf(this.podUID);
    const status = entry?.status;
    if (entry === undefined || status === undefined) return true; // no status yet
    if (status.phase === 'Failed' || status.phase === 'Succeeded') return false;
    const c = status.containers.get(this.container.name);
    if (c === undefined || c.id === '') return true; // not created yet
    if (this.#containerId !== c.id) {
      if (this.#containerId !== '') this.#ctx.results[this.probeType].remove(this.#containerId);
      this.#containerId = c.id;
      // A new container starts from the initial result and a fresh run count.
      this.#set(initialResult(this.probeType));
      this.#onHold = false;
      this.#lastResult = undefined;
      this.#resultRun = 0;
    }
    if (this.#onHold) return true;
    if (!c.running) {
      this.#set('failure');
      // Abort when the container will not be restarted.
      return !c.terminated || entry.pod.spec.restartPolicy !== 'Never';
    }
    if (entry.pod.metadata.deletionTimestamp !== undefined && this.probeType !== 'readiness') {
      // Graceful shutdown: a last success for a quiet stop, then no more probing (upstream).
      this.#set('success');
      return false;
    }
    const now = this.#ctx.clock.now();
    if (c.startedAt !== undefined && Math.floor((now - c.startedAt) / 1000) < (this.spec.initialDelaySeconds ?? 0)) return true;
    const started = this.container.startupProbe === undefined || this.#ctx.results.startup.get(c.id) === 'success';
    if (started) {
      if (this.probeType === 'startup') return true; // stop probing for startup once started
    } else if (this.probeType !== 'startup') {
      return true; // the other probes wait for the startup probe
    }

    this.runs++;
    const startedAt = this.#ctx.clock.now();
    const outcome = await this.#runWithRetries(entry.pod, status.podIP);
    if (this.#stopped) return false;
    const seconds = (this.#ctx.clock.now() - startedAt) / 1000;
    const typeName = probeTypeName(this.probeType);
    const labels = {
      probe_type: typeName,
      container: this.container.name,
      pod: entry.pod.metadata.name,
      namespace: entry.pod.metadata.namespace,
    };
    // Upstream prober.probe: one event per probe run that errored, failed or warned, about the container. The
    // warn-level log lines carry the same text: without an API server (standalone) they are what shows it.
    const record = (reason: string, message: string): void =>
      this.#ctx.recorder.event(containerReference(entry.pod, this.container.name, this.#list), EventType.Warning, reason, message);
    if (outcome instanceof Error) {
      this.#ctx.metrics.inc({ ...labels, pod_uid: this.podUID, result: 'unknown' });
      this.#logger.error('Probe errored', { err: errorMessage(outcome) });
      this.#logger.warn(`${typeName} probe errored: ${errorMessage(outcome)}`, {
        reason: Reason.Unhealthy,
        type: 'Warning',
        containerID: c.id,
      });
      // A prober error ends in upstream's probe.Unknown.
      record(EventReason.ContainerUnhealthy, `${typeName} probe errored and resulted in unknown state: ${errorMessage(outcome)}`);
      return true; // prober error: throw the result away
    }
    const result: ProbeResult = outcome.result === 'success' || outcome.result === 'warning' ? 'success' : 'failure';
    this.#ctx.metrics.inc({ ...labels, pod_uid: this.podUID, result: result === 'success' ? 'successful' : 'failed' });
    this.#ctx.metrics.observe(labels, seconds);
    if (outcome.result === 'warning') {
      this.#logger.warn(`${typeName} probe warning: ${outcome.output}`, { reason: 'ProbeWarning', type: 'Warning', containerID: c.id });
      record(EventReason.ContainerProbeWarning, `${typeName} probe warning: ${outcome.output}`);
    } else if (outcome.result === 'success') {
      this.#logger.debug('Probe succeeded', { probeResult: 'success' });
    } else if (outcome.result === 'unknown') {
      // Upstream: an unknown result without an error fails the probe but records no event.
      this.#logger.debug('Probe unknown without error', { probeResult: 'unknown', output: outcome.output });
    } else {
      this.#logger.warn(`${typeName} probe failed: ${outcome.output}`, {
        reason: Reason.Unhealthy,
        type: 'Warning',
        containerID: c.id,
        probeResult: 'failure',
        output: outcome.output,
      });
      record(EventReason.ContainerUnhealthy, `${typeName} probe failed: ${outcome.output}`);
    }

    if (this.#lastResult === result) this.#resultRun++;
    else {
      this.#lastResult = result;
      this.#resultRun = 1;
    }
    if (
      (result === 'failure' && this.#resultRun < (this.spec.failureThreshold ?? 3)) ||
      (result === 'success' && this.#resultRun < (this.spec.successThreshold ?? 1))
    ) {
      return true; // below the threshold: the cached result stays
    }
    this.#set(result);
    if (result === 'failure' && this.probeType !== 'readiness') {
      // The container will be restarted: stop probing it until a new container ID shows up.
      this.#onHold = true;
      this.#resultRun = 0;
    }
    return true;
  }

  /** Upstream runProbeWithRetries: an error (not a failure) is retried up to 3 times. Returns the last error otherwise. */
  async #runWithRetries(pod: Pod, podIP: string): Promise<ProbeOutcome | Error> {
    let lastError: Error = new Error('probe not run');
    for (let i = 0; i < MAX_PROBE_RETRIES; i++) {
      let release: (() => void) | undefined;
      try {
        release = await this.#ctx.limiter.acquire(this.#abort.signal);
        const outcome = await this.#ctx.prober(
          { probeType: this.probeType, pod, container: this.container, containerId: this.#containerId, podIP },
          this.#abort.signal,
        );
        return outcome;
      } catch (err) {
        if (this.#stopped) return err instanceof Error ? err : new Error(String(err));
        lastError = err instanceof Error ? err : new Error(String(err));
      } finally {
        release?.();
      }
    }
    return lastError;
  }
}
