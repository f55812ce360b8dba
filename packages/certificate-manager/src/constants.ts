/** `certificates.k8s.io/v1` signer names (k8s.io/api/certificates/v1). */
export const SignerName = {
  /** Client certificates of kubelets: `system:node:<name>` in `system:nodes`, auto-approved by the controller manager. */
  KubeAPIServerClientKubelet: 'kubernetes.io/kube-apiserver-client-kubelet',
  KubeAPIServerClient: 'kubernetes.io/kube-apiserver-client',
  KubeletServing: 'kubernetes.io/kubelet-serving',
} as const;

/** `certificates.k8s.io/v1` KeyUsage values the kubelet requests. */
export const KeyUsage = {
  DigitalSignature: 'digital signature',
  KeyEncipherment: 'key encipherment',
  ClientAuth: 'client auth',
  ServerAuth: 'server auth',
} as const;
export type KeyUsage = (typeof KeyUsage)[keyof typeof KeyUsage];

/** CSR condition types (`certificates.k8s.io/v1` RequestConditionType). */
export const CsrConditionType = {
  Approved: 'Approved',
  Denied: 'Denied',
  Failed: 'Failed',
} as const;

/** The node client identity: `system:node:<name>`, group `system:nodes` (pkg/apis/certificates). */
export const NODE_USER_PREFIX = 'system:node:';
export const NODES_GROUP = 'system:nodes';

/** The store's file names (client-go certificate_store.go with the kubelet's pair prefix). */
export const KUBELET_CLIENT_PAIR_PREFIX = 'kubelet-client';
/** Where LoadClientCert keeps the key between attempts (bootstrap.go tmpPrivateKeyFile). */
export const TMP_PRIVATE_KEY_FILE = 'kubelet-client.key.tmp';

/** LoadClientCert waits this long for the bootstrap certificate (bootstrap.go: 3600 s). */
export const BOOTSTRAP_WAIT_TIMEOUT_MS = 3600_000;
/** The certificate manager waits this long per rotation attempt (certificate_manager.go certificateWaitTimeout). */
export const ROTATION_WAIT_TIMEOUT_MS = 15 * 60_000;
/** Without a valid client certificate for this long, with the server responsive, the kubelet exits (server.go: 5 min). */
export const EXPIRED_EXIT_AFTER_MS = 5 * 60_000;

/** Names of the written kubeconfig's entries (bootstrap.go writeKubeconfigFromBootstrapping). */
export const KUBECONFIG_NAMES = {
  cluster: 'default-cluster',
  user: 'default-auth',
  context: 'default-context',
  namespace: 'default',
} as const;
