import { Reason } from '@kubelet-ts/api';
import type { Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import type { PodAdmitHandler, PodAdmitResult } from '../types.js';

/**
 * A handler that never throws: an object that is not the Pod it is typed as (a source that skipped
 * the schema) is refused with UnexpectedAdmissionError and what went wrong, rather than crashing the sync loop.
 */
export function neverThrows(logger: Logger, admit: PodAdmitHandler['admit']): PodAdmitHandler {
  return {
    admit(attrs): PodAdmitResult {
      try {
        return admit(attrs);
      } catch (err) {
        const message = `Failed to admit pod: ${errorMessage(err)}`;
        logger.error('Failed to admit pod', {
          pod: `${attrs.pod?.metadata?.namespace}/${attrs.pod?.metadata?.name}`,
          err: errorMessage(err),
        });
        return { admit: false, reason: Reason.UnexpectedAdmissionError, message };
      }
    },
  };
}
