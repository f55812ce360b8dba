export { createConfigMapManager, createSecretManager } from './object-managers.js';
export type { ObjectCacheEntry, ObjectManager, ObjectManagerOptions } from './types.js';
export { podConfigMapNames, podSecretNames } from './referenced-names.js';
export { createTokenManager, createTokenRequestApi } from './token-manager.js';
export type { TokenManager, TokenManagerOptions, TokenRequestApi } from './token-manager.js';
export { createObjectSource, createServiceAccountTokenSource, podTokenRequest } from './adapters.js';
export type { ServiceAccountTokenRequest, ServiceAccountTokenSource } from './adapters.js';
export { ObjectManagerError } from './errors.js';
export type { ObjectManagerErrorCode } from './errors.js';
export {
  DEFAULT_RESYNC_INTERVAL_MS,
  MAX_IDLE_FACTOR,
  MIN_IDLE_TIME_MS,
  RECYCLE_IDLE_PERIOD_MS,
  SYNC_TIMEOUT_MS,
  TOKEN_GC_PERIOD_MS,
  TOKEN_MAX_JITTER_SECONDS,
  TOKEN_MAX_TTL_MS,
  TOKEN_REFRESH_REMAINING_PERCENT,
  WAIT_TIMEOUT_MESSAGE,
} from './constants.js';
