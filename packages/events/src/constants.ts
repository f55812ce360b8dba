/** The event source component of the kubelet (upstream `server.ComponentKubelet`). */
export const COMPONENT_KUBELET = 'kubelet';

/** The prefix of an aggregated event's message (client-go `EventAggregatorByReasonMessageFunc`). */
export const AGGREGATED_MESSAGE_PREFIX = '(combined from similar events): ';

/** client-go `tools/record` event.go: delivery. */
export const DELIVERY_DEFAULTS = {
  /** `maxTriesPerEvent` */
  maxTriesPerEvent: 12,
  /** `defaultSleepDuration`, 10 s; the first sleep is randomized in [0, 10 s). */
  sleepDurationMs: 10_000,
  /** `maxQueuedEvents` */
  queueLength: 1000,
} as const;

/** client-go `tools/record` events_cache.go: correlation. */
export const CORRELATOR_DEFAULTS = {
  /** `maxLruCacheEntries` */
  lruCacheSize: 4096,
  /** `defaultSpamBurst`: 25 events about one object at once … */
  burstSize: 25,
  /** … `defaultSpamQPS`: then one every 5 minutes. */
  qps: 1 / 300,
  /** `defaultAggregateMaxEvents` */
  maxEvents: 10,
  /** `defaultAggregateIntervalInSeconds` */
  maxIntervalSeconds: 600,
} as const;
