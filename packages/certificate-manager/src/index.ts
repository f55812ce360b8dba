export { CertificateError } from './errors.js';
export type { CertificateErrorCode } from './errors.js';
export {
  BOOTSTRAP_WAIT_TIMEOUT_MS,
  CsrConditionType,
  EXPIRED_EXIT_AFTER_MS,
  KUBECONFIG_NAMES,
  KUBELET_CLIENT_PAIR_PREFIX,
  KeyUsage,
  NODES_GROUP,
  NODE_USER_PREFIX,
  ROTATION_WAIT_TIMEOUT_MS,
  SignerName,
  TMP_PRIVATE_KEY_FILE,
} from './constants.js';
export { PrivateKeyBlockType, generatePrivateKeyPem, loadOrGenerateKeyFile, parsePrivateKeyPem } from './keys.js';
export {
  CERTIFICATE_REQUEST_BLOCK,
  digestedName,
  kubeletClientUsages,
  kubeletServingUsages,
  makeCsrPem,
  nodeClientSubject,
  nodeServingTemplate,
  parseCsrPem,
} from './csr.js';
export type { CertificateRequestInfo, CsrTemplate, NameAttribute, Subject } from './csr.js';
export {
  CertificateSigningRequestSchema,
  CsrConditionSchema,
  CsrSpecSchema,
  CsrStatusSchema,
  parseCertificateSigningRequest,
} from './csr-object.js';
export type { CertificateSigningRequest, CertificateSigningRequestBody, CsrCondition } from './csr-object.js';
export { parseCertificateChain, requestCertificate, waitForCertificate } from './request.js';
export type { CsrApi, CsrWatchEvent, RequestCertificateOptions, RequestedCsr, WaitForCertificateOptions } from './request.js';
export { certificatePairFromPem, createFileStore, loadCertificatePair, pairTimestamp } from './store.js';
export type { CertificatePair, FileStore, FileStoreOptions } from './store.js';
export { writeKubeconfigFromBootstrapping } from './kubeconfig.js';
export type { KubeconfigCluster, WriteKubeconfigOptions } from './kubeconfig.js';
export { isClientConfigStillValid, loadClientCert, loadClientConfig } from './bootstrap.js';
export type {
  ClientConfigCheckOptions,
  LoadClientCertOptions,
  LoadClientCertResult,
  LoadClientConfigOptions,
  ReadKubeconfigClientCertificate,
} from './bootstrap.js';
export { RENEW_ERRORS_METRIC, SERVER_RENEW_ERRORS_METRIC, createCertificateManager } from './manager.js';
export type { CertificateManager, CertificateManagerOptions } from './manager.js';
export { SELF_SIGNED_CERT_FILE, SELF_SIGNED_KEY_FILE, ensureSelfSignedPair, generateSelfSignedPair } from './self-signed.js';
export type { EnsureSelfSignedOptions, SelfSignedOptions, SelfSignedPair } from './self-signed.js';
