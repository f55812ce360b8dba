import type { NodeResources } from '@kubelet-ts/api';
import type { Clock, Logger } from '@kubelet-ts/common';
import { createBackoff, noopLogger, systemClock } from '@kubelet-ts/common';
import type { CsiNodeClient, CsiNodeClientOptions } from './csi-client.js';
import { createCsiNodeClient } from './csi-client.js';
import { createActualState } from './internal/actual-state.js';
import { getMountsForContainer } from './internal/container-mounts.js';
import type { VolumeContext, VolumeState } from './internal/context.js';
import { machineNodeResources } from './internal/payloads.js';
import type { PluginContext } from './internal/plugins.js';
import { createPodLock } from './internal/pod-lock.js';
import { reconstruct } from './internal/reconstruct.js';
import { runReconciler } from './internal/reconciler.js';
import { teardownPod } from './internal/teardown.js';
import { createVolumePlugins } from './internal/volume-plugins.js';
import { getVolumeUsage } from './internal/volume-usage.js';
import { waitForAttachAndMount } from './internal/wait-for-mount.js';
import type { Mounter } from './mounter.js';
import { createSystemMounter } from './mounter.js';
import type { ConfigMapSecretSource, CsiDriverRegistry, TokenSource, VolumeManager } from './types.js';

export interface VolumeManagerOptions {
  /** The kubelet's --root-dir (`/var/lib/kubelet`). */
  rootDir: string;
  /** The mount syscalls; the real one (util-linux + mountinfo) by default. */
  mounter?: Mounter;
  /** ConfigMaps and Secrets for configMap/secret/projected volumes and CSI nodePublishSecretRefs. */
  sources?: ConfigMapSecretSource;
  /** Service account tokens for projected serviceAccountToken sources. */
  tokenSource?: TokenSource;
  /** CSI drivers by name (createStaticCsiDriverRegistry). */
  csiDrivers?: CsiDriverRegistry;
  /** Builds the CSI client of a driver (tests inject one); createCsiNodeClient by default. */
  csiClientFactory?: (options: CsiNodeClientOptions) => CsiNodeClient;
  /** Node allocatable, read at each use: resourceFieldRef limits a container does not set, memory-backed volume sizes. The host's cpus and memory by default. */
  getNodeAllocatable?: () => NodeResources;
  clock?: Clock;
  logger?: Logger;
  /** How long waitForAttachAndMount retries before failing (upstream: 2m3s). */
  waitTimeoutMs?: number;
  /** How often configMap/secret/downwardAPI/projected contents are re-synced by run() (upstream: on each pod sync, ~1 min). */
  resyncPeriodMs?: number;
  /** The reconciler's tick (upstream: 100 ms). Default 1 s. */
  reconcilePeriodMs?: number;
  /** Retry back-off of failed operations (upstream exponential backoff: 500 ms doubling to 2m2s). */
  backoff?: { initialMs: number; maxMs: number };
}

/**
 * createVolumeManager: the desired state (pods added by waitForAttachAndMount, removed by
 * teardownPod), the actual state (what is set up, rebuilt from disk after a restart), and the
 * reconciler between them (upstream pkg/kubelet/volumemanager).
 */
export function createVolumeManager(options: VolumeManagerOptions): VolumeManager {
  const rootDir = options.rootDir;
  const mounter = options.mounter ?? createSystemMounter();
  const clock = options.clock ?? systemClock;
  const pluginContext: PluginContext = {
    rootDir,
    mounter,
    source: options.sources,
    tokenSource: options.tokenSource,
    getNodeAllocatable: options.getNodeAllocatable ?? machineNodeResources,
    now: () => clock.now(),
  };
  const ctx: VolumeContext = {
    rootDir,
    mounter,
    plugins: createVolumePlugins(pluginContext, {
      csiDrivers: options.csiDrivers,
      csiClientFactory: options.csiClientFactory ?? createCsiNodeClient,
    }),
    clock,
    logger: options.logger ?? noopLogger,
    waitTimeoutMs: options.waitTimeoutMs ?? 123_000,
    resyncPeriodMs: options.resyncPeriodMs ?? 60_000,
    reconcilePeriodMs: options.reconcilePeriodMs ?? 1_000,
    backoff: createBackoff({ initialMs: options.backoff?.initialMs ?? 500, maxMs: options.backoff?.maxMs ?? 122_000, clock }),
  };
  const state: VolumeState = {
    desired: new Map(),
    actual: createActualState(),
    lastFailure: new Map(),
    teardownRetry: new Map(),
    withPodLock: createPodLock(),
    reconstructed: undefined,
  };

  return {
    waitForAttachAndMount: (pod, signal) => waitForAttachAndMount(ctx, state, pod, signal),
    getMountsForContainer: (pod, container) => getMountsForContainer(ctx, state, pod, container),
    teardownPod: (uid) => teardownPod(ctx, state, uid),
    getVolumeUsage: (uid) => getVolumeUsage(ctx, state, uid),
    reconstruct: () => reconstruct(ctx, state),
    run: (signal) => runReconciler(ctx, state, signal),
    getMountedVolumes: (uid) => state.actual.mountedVolumes(uid),
    getReconstructedPodUIDs: () => [...state.actual.reconstructedUIDs].filter((uid) => !state.desired.has(uid)),
  };
}
