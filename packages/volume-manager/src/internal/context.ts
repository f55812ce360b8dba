import type { Pod } from '@kubelet-ts/api';
import type { Backoff, Clock, Logger } from '@kubelet-ts/common';
import type { Mounter } from '../mounter.js';
import type { ActualState } from './actual-state.js';
import type { PodLock } from './pod-lock.js';
import type { VolumePlugins } from './volume-plugins.js';

/** What every piece of the volume manager works with, built once by createVolumeManager from its options. */
export interface VolumeContext {
  readonly rootDir: string;
  readonly mounter: Mounter;
  readonly plugins: VolumePlugins;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly waitTimeoutMs: number;
  readonly resyncPeriodMs: number;
  readonly reconcilePeriodMs: number;
  /** Retry back-off of failed operations, keyed `<uid>/<volume>` (setup) and `teardown/<uid>`. */
  readonly backoff: Backoff;
}

/** The desired and actual states of the world, and what the operations between them remember. */
export interface VolumeState {
  /** Upstream DesiredStateOfWorld: the pods to have volumes for, by UID. */
  readonly desired: Map<string, Pod>;
  readonly actual: ActualState;
  /** The last failed setup of each `<uid>/<volume>`: when, and its FailedMount message. */
  readonly lastFailure: Map<string, { atMs: number; message: string }>;
  /** Pods whose teardown failed, with when: the reconciler retries them with back-off (upstream: it keeps unmounting). */
  readonly teardownRetry: Map<string, number>;
  readonly withPodLock: PodLock;
  /** The rebuild from disk, once started (undefined again after it failed). */
  reconstructed: Promise<void> | undefined;
}

/** The pod's logger (`pod`, `podUID`). */
export function podLog(ctx: VolumeContext, pod: Pod): Logger {
  return ctx.logger.child({ pod: `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`, podUID: pod.metadata.uid });
}
