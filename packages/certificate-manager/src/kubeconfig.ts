import { promises as fs } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { stringify } from 'yaml';
import { errorMessage } from '@kubelet-ts/common';
import { KUBECONFIG_NAMES } from './constants.js';
import { CertificateError } from './errors.js';

/** The cluster stanza copied from the bootstrap kubeconfig (server and how to trust it). */
export interface KubeconfigCluster {
  /** `https://host:port`. */
  server: string;
  /** An absolute path to the CA bundle; wins over `certificateAuthorityData`, as upstream copies CAFile when set. */
  certificateAuthority?: string;
  /** The CA bundle itself (PEM); written base64 as `certificate-authority-data`. */
  certificateAuthorityData?: string | Buffer;
  insecureSkipTlsVerify?: boolean;
}

export interface WriteKubeconfigOptions {
  kubeconfigPath: string;
  cluster: KubeconfigCluster;
  /** The file that holds both the client certificate and its key: the store's current path. */
  pemPath: string;
}

/**
 * bootstrap.go writeKubeconfigFromBootstrapping: a kubeconfig with cluster `default-cluster`, user
 * `default-auth` whose client-certificate and client-key are both `pemPath`, and context
 * `default-context` (namespace `default`) as current. Written 0600, replaced atomically.
 */
export async function writeKubeconfigFromBootstrapping(options: WriteKubeconfigOptions): Promise<void> {
  const { cluster, pemPath, kubeconfigPath } = options;
  const clusterEntry: Record<string, unknown> = {};
  if (cluster.certificateAuthority !== undefined && cluster.certificateAuthority !== '') {
    clusterEntry['certificate-authority'] = cluster.certificateAuthority;
  } else if (cluster.certificateAuthorityData !== undefined && cluster.certificateAuthorityData.length > 0) {
    clusterEntry['certificate-authority-data'] = Buffer.from(cluster.certificateAuthorityData).toString('base64');
  }
  if (cluster.insecureSkipTlsVerify === true) clusterEntry['insecure-skip-tls-verify'] = true;
  clusterEntry.server = cluster.server;
  // Keys in the order clientcmd.WriteToFile writes them, so the file reads like the upstream kubelet's.
  const config = {
    apiVersion: 'v1',
    clusters: [{ cluster: clusterEntry, name: KUBECONFIG_NAMES.cluster }],
    contexts: [
      {
        context: { cluster: KUBECONFIG_NAMES.cluster, namespace: KUBECONFIG_NAMES.namespace, user: KUBECONFIG_NAMES.user },
        name: KUBECONFIG_NAMES.context,
      },
    ],
    'current-context': KUBECONFIG_NAMES.context,
    kind: 'Config',
    users: [{ name: KUBECONFIG_NAMES.user, user: { 'client-certificate': pemPath, 'client-key': pemPath } }],
  };
  const tmp = join(dirname(kubeconfigPath), `.${basename(kubeconfigPath)}.tmp-${process.pid}`);
  try {
    await fs.mkdir(dirname(kubeconfigPath), { recursive: true, mode: 0o755 });
    await fs.writeFile(tmp, stringify(config, { indentSeq: false }), { mode: 0o600 });
    await fs.rename(tmp, kubeconfigPath);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw new CertificateError('STORE', `cannot write kubeconfig ${kubeconfigPath}: ${errorMessage(err)}`, { cause: err });
  }
}
