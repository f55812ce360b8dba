import { defineError } from '@kubelet-ts/common';

export type CertificateErrorCode =
  /** A private key that cannot be read, generated or used for signing. */
  | 'INVALID_KEY'
  /** A certificate (or chain) that does not parse, or does not match its key. */
  | 'INVALID_CERTIFICATE'
  /** A certificate signing request that does not parse or cannot be built. */
  | 'INVALID_REQUEST'
  /** An API object that fails validation (the message names the source, field and reason). */
  | 'INVALID_OBJECT'
  /** The API refused or failed a call (create, get, watch); `cause` is the API error. */
  | 'API'
  /** The CSR that already exists under our name is not ours (other key, subject or signer, or an expired certificate). */
  | 'INCOMPATIBLE'
  /** The CSR was denied (upstream: "certificate signing request is denied, reason: …"). */
  | 'DENIED'
  /** The signer reported a Failed condition. */
  | 'FAILED'
  /** The CSR was deleted while waiting. */
  | 'DELETED'
  /** The CSR was replaced (another UID) while waiting. */
  | 'UID_CHANGED'
  /** No certificate within the wait timeout. */
  | 'TIMEOUT'
  /** Files of the certificate store: read, write, symlink. */
  | 'STORE'
  /** The client certificate expired (or vanished) and could not be renewed: the kubelet must exit. */
  | 'EXPIRED';

/** The one error class of @kubelet-ts/certificate-manager. */
export class CertificateError extends defineError<CertificateErrorCode>('CertificateError', { defaultCode: 'STORE' }) {}
