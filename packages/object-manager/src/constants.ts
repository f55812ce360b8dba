// Upstream values (kubernetes v1.34): pkg/kubelet/util/manager/watch_based_manager.go,
// pkg/kubelet/token/token_manager.go, pkg/kubelet/apis/config/v1beta1/defaults.go.

/** The kubelet's syncFrequency default (the volume manager re-reads configMap/secret volumes this often). */
export const DEFAULT_RESYNC_INTERVAL_MS = 60_000;
/** An object not read for maxIdleTime = 5 × resyncInterval is no longer watched (until the next get). */
export const MAX_IDLE_FACTOR = 5;
/** maxIdleTime is never below one minute. */
export const MIN_IDLE_TIME_MS = 60_000;
/** How often idle watches are looked for. */
export const RECYCLE_IDLE_PERIOD_MS = 60_000;
/** How long `get` waits for a watch's first list (upstream: wait.PollImmediate(10ms, 1s)). */
export const SYNC_TIMEOUT_MS = 1_000;
/** The wait package's timeout message (wait.ErrWaitTimeout). */
export const WAIT_TIMEOUT_MESSAGE = 'timed out waiting for the condition';

/** A token older than this is refreshed, whatever its TTL. */
export const TOKEN_MAX_TTL_MS = 24 * 60 * 60 * 1000;
/** A token is refreshed when less than this share of its TTL is left. */
export const TOKEN_REFRESH_REMAINING_PERCENT = 20;
/** Up to this much (whole seconds, random) earlier. */
export const TOKEN_MAX_JITTER_SECONDS = 10;
/** Expired tokens are dropped from the cache this often. */
export const TOKEN_GC_PERIOD_MS = 60_000;
