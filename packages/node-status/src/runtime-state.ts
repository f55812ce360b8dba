// Upstream pkg/kubelet/runtime.go (runtimeState) and the condition half of Kubelet.updateRuntimeUp:
// what the Ready condition reports about the container runtime. The kubelet polls CRI Status and
// feeds the result in; the ready condition reads `runtimeErrors` and `networkErrors`.
import type { Clock } from '@kubelet-ts/common';

/** Upstream maxWaitForContainerRuntime: a runtime not seen healthy for this long is "down". */
export const BASE_RUNTIME_SYNC_THRESHOLD_MS = 30_000;

/** One condition of a CRI StatusResponse (RuntimeReady, NetworkReady). */
export interface RuntimeConditionInput {
  type: string;
  status: boolean;
  reason?: string;
  message?: string;
}

/** A runtime handler of a CRI Status reply (upstream kubecontainer.RuntimeHandler). */
export interface RuntimeHandlerInput {
  name: string;
  features?: { recursiveReadOnlyMounts?: boolean; userNamespaces?: boolean };
}

/** The runtime's features of a CRI Status reply (upstream kubecontainer.RuntimeFeatures). */
export interface RuntimeFeaturesInput {
  supplementalGroupsPolicy?: boolean;
}

/** A health check that joins the runtime errors (upstream addHealthCheck: `PLEG`). */
export interface RuntimeHealthCheck {
  readonly name: string;
  /** Throws an Error with the reason when unhealthy. */
  check(): void;
}

export interface RuntimeState {
  /**
   * The conditions of a CRI Status reply (upstream updateRuntimeUp): NetworkReady sets the network
   * error, RuntimeReady the runtime error; a ready runtime also marks the sync time. When the
   * runtime cannot be asked, nothing is called: after the threshold it is "down".
   */
  setRuntimeStatus(
    conditions: readonly RuntimeConditionInput[],
    reply?: { runtimeHandlers?: readonly RuntimeHandlerInput[]; features?: RuntimeFeaturesInput },
  ): void;
  /** The handlers of the last ready reply (upstream setRuntimeHandlers): the node's `status.runtimeHandlers`. */
  runtimeHandlers(): readonly RuntimeHandlerInput[];
  /** The features of the last ready reply (upstream setRuntimeFeatures): the node's `status.features`; undefined before. */
  runtimeFeatures(): RuntimeFeaturesInput | undefined;
  /** Adds a check whose failure keeps the node NotReady (upstream: the PLEG's). */
  addHealthCheck(check: RuntimeHealthCheck): void;
  /** Upstream runtimeErrors: not synced yet or too long ago, failing health checks, runtime not ready. */
  runtimeErrors(): string[];
  /** Upstream networkErrors: `container runtime network not ready: …`. */
  networkErrors(): string[];
  /** A runtime that answered ready at least once. */
  readonly everReady: boolean;
}

/** Go's `%v` of a *RuntimeCondition (its String method), `<nil>` when the runtime did not report it. */
function describe(condition: RuntimeConditionInput | undefined): string {
  if (condition === undefined) return '<nil>';
  return `${condition.type}=${String(condition.status)} reason:${condition.reason ?? ''} message:${condition.message ?? ''}`;
}

export function createRuntimeState(options: { clock: Pick<Clock, 'now'>; baseRuntimeSyncThresholdMs?: number }): RuntimeState {
  const threshold = options.baseRuntimeSyncThresholdMs ?? BASE_RUNTIME_SYNC_THRESHOLD_MS;
  let lastSync: number | undefined;
  let runtimeError: string | undefined;
  let networkError: string | undefined;
  let handlers: readonly RuntimeHandlerInput[] = [];
  let features: RuntimeFeaturesInput | undefined;
  const checks: RuntimeHealthCheck[] = [];
  return {
    setRuntimeStatus(conditions, reply) {
      const network = conditions.find((c) => c.type === 'NetworkReady');
      networkError = network?.status === true ? undefined : `container runtime network not ready: ${describe(network)}`;
      const runtime = conditions.find((c) => c.type === 'RuntimeReady');
      if (runtime?.status !== true) {
        runtimeError = `container runtime not ready: ${describe(runtime)}`;
        return;
      }
      runtimeError = undefined;
      handlers = (reply?.runtimeHandlers ?? []).map((h) => ({ name: h.name, features: { ...h.features } }));
      features = reply?.features !== undefined ? { ...reply.features } : undefined;
      lastSync = options.clock.now();
    },
    runtimeHandlers: () => handlers,
    runtimeFeatures: () => features,
    addHealthCheck(check) {
      checks.push(check);
    },
    runtimeErrors() {
      const errors: string[] = [];
      if (lastSync === undefined) errors.push('container runtime status check may not have completed yet');
      else if (lastSync + threshold <= options.clock.now()) errors.push('container runtime is down');
      for (const check of checks) {
        try {
          check.check();
        } catch (err) {
          errors.push(`${check.name} is not healthy: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      if (runtimeError !== undefined) errors.push(runtimeError);
      return errors;
    },
    networkErrors: () => (networkError !== undefined ? [networkError] : []),
    get everReady() {
      return lastSync !== undefined;
    },
  };
}
