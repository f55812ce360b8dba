export { createEventBroadcaster } from './broadcaster.js';
export { AGGREGATED_MESSAGE_PREFIX, COMPONENT_KUBELET, CORRELATOR_DEFAULTS, DELIVERY_DEFAULTS } from './constants.js';
export { EventsError } from './errors.js';
export type { EventsErrorCode } from './errors.js';
export type {
  CorrelatorOptions,
  EventBroadcaster,
  EventBroadcasterOptions,
  EventLogLevel,
  EventPatch,
  EventSink,
  StopWatching,
} from './types.js';
