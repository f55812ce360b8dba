import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { controlPlaneEnv, controlPlaneEnvFile } from './control-plane.js';

const FULL = `# written by control-plane.sh
export KUBELET_TS_CONTROL_PLANE_DIR=/run/cp
export KUBELET_TS_K8S_VERSION=v1.34.4
export KUBELET_TS_APISERVER=https://127.0.0.1:16443
export KUBELET_TS_KUBECONFIG=/run/cp/admin.kubeconfig
export KUBELET_TS_BOOTSTRAP_KUBECONFIG=/run/cp/bootstrap.kubeconfig
export KUBELET_TS_BOOTSTRAP_TOKEN=abcdef.0123456789abcdef
export KUBELET_TS_NODE_NAME=kts-node
export KUBELET_TS_NODE_KUBECONFIG=/run/cp/node.kubeconfig
export KUBELET_TS_NODE_IP=10.79.0.1
export KUBELET_TS_UPSTREAM_NODE_NAME=upstream-node
export KUBELET_TS_UPSTREAM_NODE_IP=10.79.0.2
export KUBELET_TS_CA_FILE=/run/cp/pki/ca.crt
export KUBELET_TS_CA_KEY_FILE=/run/cp/pki/ca.key
export KUBELET_TS_APISERVER_KUBELET_CLIENT_CERT=/run/cp/pki/c.crt
export KUBELET_TS_APISERVER_KUBELET_CLIENT_KEY=/run/cp/pki/c.key
export KUBELET_TS_SERVICE_CIDR="10.96.0.0/16"
export KUBELET_TS_UPSTREAM_BIN_DIR=/var/cache/bin
export KUBELET_TS_CONTROL_PLANE_LOG_DIR=/run/cp/logs
`;

describe('controlPlaneEnv', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kts-cp-env-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads the typed values from $KUBELET_TS_CONTROL_PLANE_DIR/env', () => {
    fs.writeFileSync(path.join(dir, 'env'), FULL);
    const env = controlPlaneEnv({ KUBELET_TS_CONTROL_PLANE_DIR: dir });
    expect(env.envFile).toBe(path.join(dir, 'env'));
    expect(env.apiserver).toBe('https://127.0.0.1:16443');
    expect(env.nodeName).toBe('kts-node');
    expect(env.nodeKubeconfig).toBe('/run/cp/node.kubeconfig');
    expect(env.serviceCidr).toBe('10.96.0.0/16');
    expect(env.logDir).toBe('/run/cp/logs');
  });

  it('defaults to /run/kubelet-ts-control-plane', () => {
    expect(controlPlaneEnvFile({})).toBe('/run/kubelet-ts-control-plane/env');
  });

  it('throws naming the file when it is missing', () => {
    expect(() => controlPlaneEnv({ KUBELET_TS_CONTROL_PLANE_DIR: dir })).toThrow(`cannot read ${path.join(dir, 'env')} (ENOENT)`);
  });

  it('throws naming the file and the variables it lacks', () => {
    fs.writeFileSync(path.join(dir, 'env'), FULL.replace(/^export KUBELET_TS_NODE_NAME=.*$/m, ''));
    expect(() => controlPlaneEnv({ KUBELET_TS_CONTROL_PLANE_DIR: dir })).toThrow(`${path.join(dir, 'env')}: missing KUBELET_TS_NODE_NAME`);
  });
});
