// Where the integration tests find the real control plane of scripts/control-plane.sh: its env file.
import fs from 'node:fs';
import path from 'node:path';

/** The variables scripts/control-plane.sh writes to `<dir>/env`, typed. */
export interface ControlPlaneEnv {
  /** The env file these values were read from (name it in failures). */
  readonly envFile: string;
  /** KUBELET_TS_CONTROL_PLANE_DIR. */
  readonly dir: string;
  /** KUBELET_TS_K8S_VERSION, e.g. "v1.34.4". */
  readonly k8sVersion: string;
  /** KUBELET_TS_APISERVER, e.g. "https://127.0.0.1:16443". */
  readonly apiserver: string;
  /** KUBELET_TS_KUBECONFIG: cluster-admin. */
  readonly kubeconfig: string;
  /** KUBELET_TS_NODE_KUBECONFIG: client certificate of system:node:<nodeName> in system:nodes. */
  readonly nodeKubeconfig: string;
  /** KUBELET_TS_BOOTSTRAP_KUBECONFIG: the bootstrap token. */
  readonly bootstrapKubeconfig: string;
  /** KUBELET_TS_BOOTSTRAP_TOKEN: "<id>.<secret>". */
  readonly bootstrapToken: string;
  /** KUBELET_TS_NODE_NAME: the node identity of nodeKubeconfig. */
  readonly nodeName: string;
  /** KUBELET_TS_NODE_IP. */
  readonly nodeIp: string;
  /** KUBELET_TS_UPSTREAM_NODE_NAME: the node name the upstream kubelet uses. */
  readonly upstreamNodeName: string;
  /** KUBELET_TS_UPSTREAM_NODE_IP. */
  readonly upstreamNodeIp: string;
  /** KUBELET_TS_CA_FILE: the cluster CA certificate (PEM). */
  readonly caFile: string;
  /** KUBELET_TS_CA_KEY_FILE: the cluster CA key (PEM). */
  readonly caKeyFile: string;
  /** KUBELET_TS_APISERVER_KUBELET_CLIENT_CERT: the API server's client certificate towards kubelets. */
  readonly apiserverKubeletClientCert: string;
  /** KUBELET_TS_APISERVER_KUBELET_CLIENT_KEY. */
  readonly apiserverKubeletClientKey: string;
  /** KUBELET_TS_SERVICE_CIDR. */
  readonly serviceCidr: string;
  /** KUBELET_TS_UPSTREAM_BIN_DIR: kubectl, kubelet and the control-plane binaries. */
  readonly upstreamBinDir: string;
  /** KUBELET_TS_CONTROL_PLANE_LOG_DIR: component logs and the API server's audit log. */
  readonly logDir: string;
}

const KEYS = {
  dir: 'KUBELET_TS_CONTROL_PLANE_DIR',
  k8sVersion: 'KUBELET_TS_K8S_VERSION',
  apiserver: 'KUBELET_TS_APISERVER',
  kubeconfig: 'KUBELET_TS_KUBECONFIG',
  nodeKubeconfig: 'KUBELET_TS_NODE_KUBECONFIG',
  bootstrapKubeconfig: 'KUBELET_TS_BOOTSTRAP_KUBECONFIG',
  bootstrapToken: 'KUBELET_TS_BOOTSTRAP_TOKEN',
  nodeName: 'KUBELET_TS_NODE_NAME',
  nodeIp: 'KUBELET_TS_NODE_IP',
  upstreamNodeName: 'KUBELET_TS_UPSTREAM_NODE_NAME',
  upstreamNodeIp: 'KUBELET_TS_UPSTREAM_NODE_IP',
  caFile: 'KUBELET_TS_CA_FILE',
  caKeyFile: 'KUBELET_TS_CA_KEY_FILE',
  apiserverKubeletClientCert: 'KUBELET_TS_APISERVER_KUBELET_CLIENT_CERT',
  apiserverKubeletClientKey: 'KUBELET_TS_APISERVER_KUBELET_CLIENT_KEY',
  serviceCidr: 'KUBELET_TS_SERVICE_CIDR',
  upstreamBinDir: 'KUBELET_TS_UPSTREAM_BIN_DIR',
  logDir: 'KUBELET_TS_CONTROL_PLANE_LOG_DIR',
} as const satisfies Record<Exclude<keyof ControlPlaneEnv, 'envFile'>, string>;

const DEFAULT_DIR = '/run/kubelet-ts-control-plane';

/** The env file's path: `${KUBELET_TS_CONTROL_PLANE_DIR:-/run/kubelet-ts-control-plane}/env`. */
export function controlPlaneEnvFile(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.KUBELET_TS_CONTROL_PLANE_DIR;
  return path.join(dir === undefined || dir === '' ? DEFAULT_DIR : dir, 'env');
}

/** `export NAME=value` lines of a shell env file (quotes around the value dropped). */
function parseEnvFile(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^(?:export\s+)?([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (match?.[1] !== undefined && match[2] !== undefined) values.set(match[1], match[2].replace(/^(['"])(.*)\1$/, '$2'));
  }
  return values;
}

/**
 * Reads the control plane's env file (the process environment is not consulted for the values, so a
 * stale shell cannot point a test at another cluster). Throws naming the file when it is missing or
 * lacks a variable: integration tests fail, never skip, without a control plane.
 */
export function controlPlaneEnv(env: NodeJS.ProcessEnv = process.env): ControlPlaneEnv {
  const envFile = controlPlaneEnvFile(env);
  let text: string;
  try {
    text = fs.readFileSync(envFile, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new Error(
      `no control plane: cannot read ${envFile} (${reason}). Start it with: bash scripts/control-plane.sh up ` +
        '(or point KUBELET_TS_CONTROL_PLANE_DIR at a running one)',
    );
  }
  const values = parseEnvFile(text);
  const missing = Object.values(KEYS).filter((key) => (values.get(key) ?? '') === '');
  if (missing.length > 0) throw new Error(`${envFile}: missing ${missing.join(', ')} (re-run bash scripts/control-plane.sh up)`);
  const result = { envFile } as Record<keyof ControlPlaneEnv, string>;
  for (const [field, key] of Object.entries(KEYS) as [keyof typeof KEYS, string][]) result[field] = values.get(key) ?? '';
  return result;
}
