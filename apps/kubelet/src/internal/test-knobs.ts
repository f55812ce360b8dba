import type { Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import { durationMs } from '@kubelet-ts/config';

/**
 * Test-only environment knobs (`KUBELET_TS_TEST_*`): a Go duration replacing one of upstream's fixed
 * periods (eviction checks, image GC, stats housekeeping) so that integration tests see effects within
 * seconds. Real nodes leave them unset; a set knob is logged as a warning, an invalid one is ignored.
 */
export const TEST_KNOBS = {
  evictionMonitoringInterval: 'KUBELET_TS_TEST_EVICTION_MONITORING_INTERVAL',
  imageGCPeriod: 'KUBELET_TS_TEST_IMAGE_GC_PERIOD',
  statsHousekeepingInterval: 'KUBELET_TS_TEST_STATS_HOUSEKEEPING_INTERVAL',
} as const;

/** The knob's duration in ms when it is set to a positive duration, else `fallbackMs`. */
export function testKnobMs(env: NodeJS.ProcessEnv, name: string, fallbackMs: number, logger: Logger): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallbackMs;
  let ms = Number.NaN;
  try {
    ms = durationMs(raw);
  } catch (err) {
    logger.warn(`Ignoring ${name}: ${errorMessage(err)}`, { value: raw });
    return fallbackMs;
  }
  if (!(ms > 0)) {
    logger.warn(`Ignoring ${name}: not a positive duration`, { value: raw });
    return fallbackMs;
  }
  logger.warn(`${name} is set (test only): ${raw} instead of ${fallbackMs / 1000}s`);
  return ms;
}
