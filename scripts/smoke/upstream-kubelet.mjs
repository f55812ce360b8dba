#!/usr/bin/env node
// The proof that the test bed is real: the upstream kubelet joins the control plane of
// scripts/control-plane.sh through TLS bootstrap, runs on the private containerd of
// scripts/test-runtime.sh, its Node turns Ready, and a pod created through the API (placed by the
// scheduler, given a service-account token by the controller manager) runs on it. Everything is
// checked and shown with kubectl. Exits non-zero on any failure.
//
//   node scripts/smoke/upstream-kubelet.mjs        (both environments up; as root)
//
// With KUBELET_TS_TEST_SUMMARY set, appends one "name passed failed skipped" line (test-all.sh).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { RUNTIME_DIR, kubectlFor, loadTestBedEnv, poll } from '../lib/test-bed.mjs';
import { startUpstreamKubelet } from '../lib/upstream-kubelet.mjs';

const require = createRequire(import.meta.url);
const { acquireRuntimeLock, releaseRuntimeLock, runtimeLockDir } = require('../runtime-lock.cjs');

const log = (line) => process.stdout.write(`[upstream-kubelet smoke ${((Date.now() - t0) / 1000).toFixed(1)}s] ${line}\n`);
const t0 = Date.now();

async function main() {
  const env = loadTestBedEnv();
  const kubectl = kubectlFor(env);
  const kubectlIn = kubectl.withInput;
  log(`control plane ${env.KUBELET_TS_K8S_VERSION} at ${env.KUBELET_TS_APISERVER}; containerd ${env.KUBELET_TS_CONTAINERD_VERSION ?? '?'}`);

  const lockDir = runtimeLockDir(RUNTIME_DIR);
  await acquireRuntimeLock(lockDir, 30 * 60_000, (holder) => log(`waiting for pid ${holder} to finish with the shared runtime`));
  const namespace = `smoke-${Date.now().toString(36)}`;
  let kubelet;
  try {
    kubelet = await startUpstreamKubelet({ env, dir: '/run/kubelet-ts-upstream-smoke', log });
    const node = kubelet.nodeName;

    await poll(
      `Node ${node} Ready`,
      120_000,
      () => kubectl('get', 'node', node, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}') === 'True',
    );
    log(`kubectl get node ${node} -o wide:\n${kubectl('get', 'node', node, '-o', 'wide')}`);
    const csr = kubectl('get', 'csr', '-o', 'jsonpath={range .items[*]}{.spec.username} {.status.conditions[0].type}{"\\n"}{end}');
    if (!/system:bootstrap:\S+ Approved/.test(csr)) throw new Error(`no approved bootstrap CSR:\n${csr}`);
    log('the node joined by TLS bootstrap: its client certificate request was approved and signed');

    kubectl('create', 'namespace', namespace);
    await poll(`ServiceAccount ${namespace}/default`, 60_000, () =>
      kubectl('get', 'serviceaccount', 'default', '-n', namespace, '-o', 'name'),
    );
    kubectlIn(
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'sleeper', namespace },
        spec: {
          terminationGracePeriodSeconds: 1,
          tolerations: [{ operator: 'Exists', effect: 'NoSchedule' }],
          containers: [
            {
              name: 'sleep',
              image: env.KUBELET_TS_BUSYBOX_IMAGE,
              imagePullPolicy: 'Never',
              command: ['sleep', '3600'],
              readinessProbe: { exec: { command: ['true'] }, periodSeconds: 1 },
            },
          ],
        },
      }),
      'create',
      '-f',
      '-',
    );
    const phase = () =>
      kubectl(
        'get',
        'pod',
        'sleeper',
        '-n',
        namespace,
        '-o',
        'jsonpath={.spec.nodeName} {.status.phase} {.status.conditions[?(@.type=="Ready")].status}',
      );
    await poll('pod sleeper Running and Ready', 120_000, () => phase() === `${node} Running True`);
    log(`kubectl get pod -n ${namespace} -o wide:\n${kubectl('get', 'pod', '-n', namespace, '-o', 'wide')}`);
    const mounts = kubectl('get', 'pod', 'sleeper', '-n', namespace, '-o', 'jsonpath={.spec.volumes[*].name}');
    if (!/kube-api-access-/.test(mounts)) throw new Error(`the pod has no service-account token volume: ${mounts}`);
    const token = kubectl('exec', '-n', namespace, 'sleeper', '--', 'cat', '/var/run/secrets/kubernetes.io/serviceaccount/namespace');
    if (token.trim() !== namespace) throw new Error(`kubectl exec read '${token}' from the token volume, not '${namespace}'`);
    log("kubectl exec through the API server reads the pod's projected service-account volume");

    kubectl('delete', 'pod', 'sleeper', '-n', namespace, '--wait=true', '--timeout=60s');
    log('pod deleted through the API; the kubelet confirmed it');
  } finally {
    try {
      execFileSync(
        'kubectl',
        ['--kubeconfig', env.KUBELET_TS_KUBECONFIG, 'delete', 'namespace', namespace, '--wait=false', '--ignore-not-found'],
        { stdio: 'ignore' },
      );
    } catch {
      // the control plane is gone; nothing to clean there
    }
    if (kubelet) {
      await kubelet.stop();
      try {
        execFileSync('kubectl', ['--kubeconfig', env.KUBELET_TS_KUBECONFIG, 'delete', 'node', kubelet.nodeName, '--ignore-not-found'], {
          stdio: 'ignore',
        });
      } catch {
        // as above
      }
    }
    releaseRuntimeLock(lockDir);
  }
}

function record(passed) {
  const file = process.env.KUBELET_TS_TEST_SUMMARY;
  if (file) fs.appendFileSync(file, `scripts/smoke/upstream-kubelet\t${passed ? 1 : 0}\t${passed ? 0 : 1}\t0\n`);
}

main().then(
  () => {
    log('PASS');
    record(true);
  },
  (err) => {
    process.stderr.write(`[upstream-kubelet smoke] FAIL: ${err.stack ?? err}\n`);
    record(false);
    process.exit(1);
  },
);
