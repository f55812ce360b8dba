#!/usr/bin/env node
// Drop-in proof (issue #20): the upstream kubelet runs a node's pods, kubelet-ts takes the node
// over, then hands it back, and not one container is restarted either way.
//
// On the private containerd (scripts/test-runtime.sh) and the real control plane
// (scripts/control-plane.sh): the upstream kubelet (scripts/upstream/build.sh) starts with a root
// dir, config file and flags; it runs a static pod (emptyDir, probe) and an API pod (emptyDir,
// configMap and the projected service-account volume, liveness and readiness probes, a sidecar).
// It is stopped; kubelet-ts starts with the same root dir, config and flags; later kubelet-ts is
// stopped and the upstream kubelet started again. After each hand-over it checks, through
// containerd (crictl), that every container and sandbox is the one from before and still running,
// that no volume was mounted again (mount IDs under the root dir), and, through the API, that the
// mirror pod and the pod statuses carried on (same container IDs, no restarts, Ready).
//
//   node scripts/adoption/takeover.mjs [--observe <seconds>]   (both environments up; as root)
//
// With KUBELET_TS_TEST_SUMMARY set, appends one "name passed failed skipped" line (test-all.sh).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { RUNTIME_DIR, kubectlFor, loadTestBedEnv, poll, sleep } from '../lib/test-bed.mjs';
import { startUpstreamKubelet } from '../lib/upstream-kubelet.mjs';

const require = createRequire(import.meta.url);
const { acquireRuntimeLock, releaseRuntimeLock, runtimeLockDir } = require('../runtime-lock.cjs');

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const STATE_DIR = '/run/kubelet-ts-takeover';
const { values: opts } = parseArgs({ options: { observe: { type: 'string', default: '25' } } });
const OBSERVE_MS = Number(opts.observe) * 1000;
const t0 = Date.now();
const log = (line) => process.stdout.write(`[takeover ${((Date.now() - t0) / 1000).toFixed(1)}s] ${line}\n`);

function staticManifest(env) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'static-web', namespace: 'kube-system', labels: { app: 'static-web' } },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'web',
          image: env.KUBELET_TS_BUSYBOX_IMAGE,
          imagePullPolicy: 'Never',
          command: ['sh', '-c', 'echo up > /cache/state; exec sleep 36000'],
          readinessProbe: { exec: { command: ['cat', '/cache/state'] }, periodSeconds: 2 },
          volumeMounts: [{ name: 'cache', mountPath: '/cache' }],
        },
      ],
      volumes: [{ name: 'cache', emptyDir: {} }],
    },
  };
}

function apiPod(env, namespace, node) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'api-web', namespace },
    spec: {
      nodeName: node,
      terminationGracePeriodSeconds: 1,
      initContainers: [
        {
          name: 'sidecar',
          image: env.KUBELET_TS_BUSYBOX_IMAGE,
          imagePullPolicy: 'Never',
          restartPolicy: 'Always',
          command: ['sh', '-c', 'while true; do date > /shared/beat; sleep 2; done'],
          volumeMounts: [{ name: 'shared', mountPath: '/shared' }],
        },
      ],
      containers: [
        {
          name: 'app',
          image: env.KUBELET_TS_BUSYBOX_IMAGE,
          imagePullPolicy: 'Never',
          command: ['sh', '-c', 'exec sleep 36000'],
          livenessProbe: { exec: { command: ['cat', '/config/greeting'] }, periodSeconds: 2 },
          readinessProbe: { exec: { command: ['test', '-f', '/shared/beat'] }, periodSeconds: 1 },
          volumeMounts: [
            { name: 'shared', mountPath: '/shared' },
            { name: 'config', mountPath: '/config' },
          ],
        },
      ],
      volumes: [
        { name: 'shared', emptyDir: {} },
        { name: 'config', configMap: { name: 'takeover-config' } },
      ],
    },
  };
}

function latePod(env, namespace, node) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'api-late', namespace },
    spec: {
      nodeName: node,
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'late',
          image: env.KUBELET_TS_BUSYBOX_IMAGE,
          imagePullPolicy: 'Never',
          command: ['sh', '-c', 'exec sleep 36000'],
          readinessProbe: { exec: { command: ['true'] }, periodSeconds: 2 },
          volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
        },
      ],
      volumes: [{ name: 'scratch', emptyDir: { medium: 'Memory' } }],
    },
  };
}

/** What containerd runs for the test's pods, and what is mounted for them. */
function snapshot(env, namespace) {
  const crictl = (...args) =>
    JSON.parse(
      execFileSync(path.join(env.KUBELET_TS_UPSTREAM_BIN_DIR, 'crictl'), ['--runtime-endpoint', env.KUBELET_TS_CRI_ENDPOINT, ...args], {
        encoding: 'utf8',
        timeout: 60_000,
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
  const ours = (labels) =>
    labels['io.kubernetes.pod.namespace'] === namespace || labels['io.kubernetes.pod.name']?.startsWith('static-web-');
  const containers = crictl('ps', '-a', '-o', 'json')
    .containers.filter((c) => ours(c.labels))
    .map((c) => ({
      id: c.id,
      pod: c.labels['io.kubernetes.pod.name'],
      name: c.metadata.name,
      attempt: c.metadata.attempt ?? 0,
      state: c.state,
      hash: c.annotations['io.kubernetes.container.hash'],
    }));
  const sandboxes = crictl('pods', '-o', 'json')
    .items.filter((p) => ours(p.labels))
    .map((p) => ({ id: p.id, pod: p.metadata.name, uid: p.metadata.uid, state: p.state }));
  const mounts = fs
    .readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' '))
    .filter((f) => f[4]?.startsWith(`${STATE_DIR}/root/pods/`))
    .map((f) => ({ id: f[0], path: f[4] }));
  // Checkpoints both kubelets read at start and must accept from the other (a mismatch stops either).
  const checkpoints = Object.fromEntries(
    ['cpu_manager_state', 'memory_manager_state'].map((name) => {
      const file = path.join(STATE_DIR, 'root', name);
      return [name, fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined];
    }),
  );
  return { containers, sandboxes, mounts, checkpoints };
}

/** Pod status as the API shows it: what must carry on across a hand-over. */
function apiState(kubectl, namespace, node) {
  const get = (ns, name) => JSON.parse(kubectl('get', 'pod', name, '-n', ns, '-o', 'json'));
  const summarize = (pod) => ({
    uid: pod.metadata.uid,
    startTime: pod.status.startTime,
    ready: pod.status.conditions?.find((c) => c.type === 'Ready')?.status,
    containers: [...(pod.status.initContainerStatuses ?? []), ...(pod.status.containerStatuses ?? [])].map((s) => ({
      name: s.name,
      id: s.containerID,
      restarts: s.restartCount,
      running: s.state?.running !== undefined,
    })),
  });
  return { api: summarize(get(namespace, 'api-web')), mirror: summarize(get('kube-system', `static-web-${node}`)) };
}

/** Differences between two snapshots, each one a restart, a re-creation or a remount. */
function compare(before, after) {
  const problems = [];
  const afterById = new Map(after.containers.map((c) => [c.id, c]));
  for (const c of before.containers.filter((x) => x.state === 'CONTAINER_RUNNING')) {
    const now = afterById.get(c.id);
    if (now === undefined) problems.push(`container ${c.pod}/${c.name} ${c.id.slice(0, 12)} is gone`);
    else if (now.state !== 'CONTAINER_RUNNING') problems.push(`container ${c.pod}/${c.name} ${c.id.slice(0, 12)} is ${now.state}`);
  }
  const known = new Set(before.containers.map((c) => c.id));
  for (const c of after.containers.filter((x) => !known.has(x.id))) {
    problems.push(`container ${c.pod}/${c.name} was created again (${c.id.slice(0, 12)}, attempt ${c.attempt})`);
  }
  const sandboxes = new Set(before.sandboxes.map((s) => s.id));
  for (const s of after.sandboxes.filter((x) => !sandboxes.has(x.id)))
    problems.push(`sandbox of ${s.pod} was created again (${s.id.slice(0, 12)})`);
  for (const s of after.sandboxes.filter((x) => sandboxes.has(x.id) && x.state !== 'SANDBOX_READY'))
    problems.push(`sandbox of ${s.pod} is ${s.state}`);
  const mountIds = new Map(before.mounts.map((m) => [m.path, m.id]));
  for (const m of after.mounts) {
    if (!mountIds.has(m.path)) problems.push(`${m.path} was mounted (new mount ${m.id})`);
    else if (mountIds.get(m.path) !== m.id) problems.push(`${m.path} was mounted again (mount ${mountIds.get(m.path)} → ${m.id})`);
  }
  for (const m of before.mounts) if (!after.mounts.some((x) => x.path === m.path)) problems.push(`${m.path} was unmounted`);
  for (const [name, content] of Object.entries(before.checkpoints)) {
    if (content === undefined) problems.push(`the first kubelet wrote no ${name}`);
    else if (after.checkpoints[name] !== content) problems.push(`${name} changed: ${content} → ${after.checkpoints[name]}`);
  }
  return problems;
}

function compareApi(before, after) {
  const problems = [];
  for (const which of ['api', 'mirror']) {
    const b = before[which];
    const a = after[which];
    if (a.uid !== b.uid) problems.push(`${which} pod object was re-created (uid ${b.uid} → ${a.uid})`);
    // A static pod's status starts anew with each kubelet process (upstream's own restart does the
    // same: the file source gives it no status), so only the API pod's start time must carry on.
    if (which === 'api' && a.startTime !== b.startTime) problems.push(`${which} pod startTime changed (${b.startTime} → ${a.startTime})`);
    if (a.ready !== 'True') problems.push(`${which} pod is not Ready (${a.ready})`);
    for (const c of a.containers) {
      const old = b.containers.find((x) => x.name === c.name);
      if (old?.id !== c.id) problems.push(`${which} pod container ${c.name}: status names ${c.id}, was ${old?.id}`);
      if (c.restarts !== 0 || !c.running)
        problems.push(`${which} pod container ${c.name}: restartCount ${c.restarts}, running ${c.running}`);
    }
  }
  return problems;
}

async function main() {
  const env = loadTestBedEnv();
  const kubectl = kubectlFor(env);
  const kubectlIn = kubectl.withInput;
  const kubeletTs = path.join(REPO, 'apps/kubelet/dist/main.js');
  if (!fs.existsSync(kubeletTs)) throw new Error(`${kubeletTs} is missing: npx turbo run build`);
  log(
    `control plane ${env.KUBELET_TS_K8S_VERSION}; containerd ${env.KUBELET_TS_CONTAINERD_VERSION ?? '?'} at ${env.KUBELET_TS_CRI_ENDPOINT}`,
  );

  const lockDir = runtimeLockDir(RUNTIME_DIR);
  await acquireRuntimeLock(lockDir, 30 * 60_000, (holder) => log(`waiting for pid ${holder} to finish with the shared runtime`));
  const namespace = `takeover-${Date.now().toString(36)}`;
  const node = env.KUBELET_TS_UPSTREAM_NODE_NAME;
  // One identity for all three runs: node, IP, root dir, cgroup root, config file and flags.
  const common = {
    env,
    dir: STATE_DIR,
    nodeName: node,
    cgroupName: `takeover-${node}`,
    config: { syncFrequency: '10s' },
    log,
  };
  const upstream = () => startUpstreamKubelet({ ...common, name: 'upstream kubelet' });
  const ours = () => startUpstreamKubelet({ ...common, name: 'kubelet-ts', command: [kubeletTs] });
  const counts = [];
  let kubelet;
  try {
    fs.rmSync(STATE_DIR, { recursive: true, force: true });
    fs.mkdirSync(path.join(STATE_DIR, 'manifests'), { recursive: true });
    fs.writeFileSync(path.join(STATE_DIR, 'manifests', 'static-web.json'), JSON.stringify(staticManifest(env), null, 2));
    kubectl('delete', 'node', node, '--ignore-not-found');

    kubelet = await upstream();
    const ready = () => kubectl('get', 'node', node, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}') === 'True';
    await poll(`Node ${node} Ready`, 120_000, ready);
    kubectl('create', 'namespace', namespace);
    await poll(`ServiceAccount ${namespace}/default`, 60_000, () =>
      kubectl('get', 'serviceaccount', 'default', '-n', namespace, '-o', 'name'),
    );
    kubectl('create', 'configmap', 'takeover-config', '-n', namespace, '--from-literal=greeting=hello');
    kubectlIn(JSON.stringify(apiPod(env, namespace, node)), 'create', '-f', '-');
    const allReady = () => {
      const state = apiState(kubectl, namespace, node);
      return state.api.ready === 'True' && state.mirror.ready === 'True' ? state : undefined;
    };
    await poll('both pods Running and Ready under the upstream kubelet', 120_000, allReady);
    log(`under the upstream kubelet:\n${kubectl('get', 'pods', '-A', '-o', 'wide', '--field-selector', `spec.nodeName=${node}`)}`);
    const first = snapshot(env, namespace);
    const running = first.containers.filter((c) => c.state === 'CONTAINER_RUNNING');
    if (running.length !== 3 || first.sandboxes.length !== 2) {
      throw new Error(`expected 3 running containers in 2 sandboxes, found:\n${JSON.stringify(first, null, 2)}`);
    }
    if (first.mounts.length === 0)
      throw new Error('no volume is mounted under the root dir (the projected token volume should be a tmpfs)');
    log(`containerd runs ${running.length} containers in ${first.sandboxes.length} sandboxes; ${first.mounts.length} volume mounts`);

    for (const [label, start, version] of [
      ['takeover by kubelet-ts', ours, /kubelet-ts/],
      ['rollback to the upstream kubelet', upstream, /^v\d+\.\d+\.\d+$/],
    ]) {
      const before = snapshot(env, namespace);
      const beforeApi = apiState(kubectl, namespace, node);
      await kubelet.terminate();
      kubelet = await start();
      await poll(`${label}: both pods Ready`, 120_000, () => ready() && allReady());
      // The node reports the kubelet now running it.
      const kubeletVersion = await poll(`${label}: the node reports the new kubelet`, 60_000, () => {
        const reported = kubectl('get', 'node', node, '-o', 'jsonpath={.status.nodeInfo.kubeletVersion}');
        return version.test(reported) ? reported : undefined;
      });
      // Long enough for several syncs (syncFrequency 10s), probe periods and the status manager.
      await sleep(OBSERVE_MS);
      const after = snapshot(env, namespace);
      const afterApi = apiState(kubectl, namespace, node);
      const problems = [...compare(before, after), ...compareApi(beforeApi, afterApi)];
      const restarted = after.containers.filter((c) => !before.containers.some((b) => b.id === c.id)).length;
      counts.push({ label, containers: before.containers.length, restarted, problems });
      log(
        `${label} (node reports kubelet ${kubeletVersion}): ${restarted} of ${before.containers.length} containers restarted (counted through containerd), ` +
          `${after.sandboxes.length} sandboxes, ${after.mounts.length} mounts kept; ${problems.length} problem(s)`,
      );
      for (const p of problems) log(`  ${p}`);
      if (counts.length === 1) {
        // A pod that only kubelet-ts ever ran must survive the rollback too.
        kubectlIn(JSON.stringify(latePod(env, namespace, node)), 'create', '-f', '-');
        await poll(
          'api-late Running and Ready under kubelet-ts',
          120_000,
          () =>
            kubectl(
              'get',
              'pod',
              'api-late',
              '-n',
              namespace,
              '-o',
              'jsonpath={.status.phase} {.status.conditions[?(@.type=="Ready")].status}',
            ) === 'Running True',
        );
        log('api-late, created under kubelet-ts, is Running and Ready');
      }
    }
  } finally {
    try {
      kubectl('delete', 'namespace', namespace, '--wait=false', '--ignore-not-found');
    } catch {
      // the control plane is gone
    }
    if (kubelet) {
      await kubelet.terminate();
      // All three kubelets appended to one log: keep it for a look after the run.
      fs.copyFileSync(kubelet.logFile, '/var/tmp/kubelet-ts-takeover.log');
      log("the three kubelets' log: /var/tmp/kubelet-ts-takeover.log");
      await kubelet.stop();
    }
    try {
      kubectl('delete', 'node', node, '--ignore-not-found');
    } catch {
      // as above
    }
    releaseRuntimeLock(lockDir);
  }
  const failed = counts.filter((c) => c.problems.length > 0);
  handOversPassed = counts.length - failed.length;
  for (const c of counts) log(`RESULT ${c.label}: ${c.restarted} restarted containers of ${c.containers}, ${c.problems.length} problems`);
  if (failed.length > 0 || counts.length !== 2) throw new Error(`${failed.map((c) => c.label).join(', ')} failed`);
}

// One test per hand-over (takeover, rollback); a run that stopped before both counts both as failed.
let handOversPassed = 0;
function record() {
  const file = process.env.KUBELET_TS_TEST_SUMMARY;
  if (file) fs.appendFileSync(file, `scripts/adoption/takeover\t${handOversPassed}\t${2 - handOversPassed}\t0\n`);
}

main().then(
  () => {
    log('PASS');
    record();
  },
  (err) => {
    process.stderr.write(`[takeover] FAIL: ${err.stack ?? err}\n`);
    record();
    process.exit(1);
  },
);
