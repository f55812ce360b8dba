import { defineError } from '@kubelet-ts/common';

/** Stable error codes of the kubelet's API mode. */
export type KubeletApiErrorCode =
  /** --kubeconfig / --bootstrap-kubeconfig cannot be read, or bootstrap failed. */
  'CREDENTIALS';

/** Why API mode could not start; the message names the flag or file. */
export class KubeletApiError extends defineError<KubeletApiErrorCode>('KubeletApiError', { defaultCode: 'CREDENTIALS' }) {}
