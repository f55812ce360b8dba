// Starts a kubelet for a benchmark, in standalone mode: kubelet-ts (apps/kubelet/dist/main.js) or the
// upstream kubelet (built by scripts/upstream/build.sh), with the same flags and configuration file and
// everything of its own: root dir, static manifest dir, pod logs dir, cgroup root under
// $KUBELET_TS_CGROUP_ROOT, node name, free ports. The shared containerd is the only thing it shares,
// which is why callers hold the integration lock.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeCgroup, unmountUnder } from '../../scripts/lib/upstream-kubelet.mjs';
import { containerdCriCounts } from './containerd-metrics.mjs';
import { KUBELET_MAIN, REPO_ROOT, env, sleep } from './env.mjs';

/**
 * The node options of the kubelet-ts binary's shebang (`#!/usr/bin/env -S node <options>`): a runner that
 * starts it with `node` (to add its own options) runs it as operators do.
 */
export function binaryNodeOptions(main = KUBELET_MAIN) {
  const shebang = fs.readFileSync(main, 'utf8').split('\n', 1)[0];
  const match = /^#!\/usr\/bin\/env(?:\s+-S)?\s+node\b(.*)$/.exec(shebang);
  if (match === null) throw new Error(`${main}: unexpected first line ${shebang}`);
  return match[1].split(/\s+/).filter(Boolean);
}

/** The kubelets a benchmark can run: ours and the reference. */
export const KUBELETS = ['kubelet-ts', 'upstream'];

/** The upstream kubelet binary (the control plane's env names its dir; else build.sh says where it goes). */
export function upstreamKubeletBinary() {
  const dir =
    process.env.KUBELET_TS_UPSTREAM_BIN_DIR ||
    execFileSync('bash', [path.join(REPO_ROOT, 'scripts/upstream/build.sh'), '--bin-dir'], { encoding: 'utf8' }).trim();
  return path.join(dir, 'kubelet');
}

const COUNTER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'cri-call-counter.cjs');

export const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/**
 * @param {object} options
 * @param {string} options.baseDir   a temp dir of the benchmark; the kubelet's dirs go below it
 * @param {string} options.nodeName  also names the static pods (`<pod>-<nodeName>`) and the cgroup root
 * @param {boolean} [options.cpuProf]  run under `node --cpu-prof` (profile written when it stops)
 * @param {boolean} [options.heapSnapshots]  `--heapsnapshot-signal=SIGUSR2` (see takeHeapSnapshot)
 * @param {number} [options.verbosity]  -v (default 2: debug logging costs CPU the footprint would count)
 * @param {string[]} [options.nodeArgs]  more node options, for experiments (e.g. --max-semi-space-size=2)
 * @param {string[]} [options.configLines]  more KubeletConfiguration lines, for experiments (e.g. `containerLogMonitorInterval: 1m`)
 * @param {string[]} [options.kubeletArgs]  more kubelet flags, for experiments (e.g. `--max-parallel-starts=2`)
 * @param {boolean} [options.criCallCounter]  preload the CRI call counter (default true; criCounts() needs it)
 * @param {'kubelet-ts'|'upstream'} [options.implementation]  which kubelet (default kubelet-ts); the node-only
 *   options (cpuProf, heapSnapshots, nodeArgs, criCallCounter) apply to kubelet-ts alone
 */
export async function startKubelet({
  baseDir,
  nodeName,
  cpuProf = false,
  heapSnapshots = false,
  verbosity = 2,
  nodeArgs: extraNodeArgs = [],
  configLines = [],
  kubeletArgs = [],
  criCallCounter: wantCounter = true,
  implementation = 'kubelet-ts',
}) {
  const upstream = implementation === 'upstream';
  const criCallCounter = wantCounter && !upstream;
  const dirs = {
    manifests: path.join(baseDir, 'manifests'),
    root: path.join(baseDir, 'root'),
    podLogs: path.join(baseDir, 'pod-logs'),
    containerLogs: path.join(baseDir, 'container-logs'),
    prof: path.join(baseDir, 'prof'),
  };
  for (const dir of Object.values(dirs)) fs.mkdirSync(dir, { recursive: true });
  const cgroupRoot = `${env('KUBELET_TS_CGROUP_ROOT')}/${nodeName}`;
  // The upstream kubelet refuses a cgroup root missing in any hierarchy; kubelet-ts makes its own.
  if (upstream) makeCgroup(cgroupRoot);
  const readOnlyPort = await freePort();
  const healthzPort = await freePort();
  const serverPort = await freePort();
  const configFile = path.join(baseDir, 'kubelet-config.yaml');
  fs.writeFileSync(
    configFile,
    [
      'apiVersion: kubelet.config.k8s.io/v1beta1',
      'kind: KubeletConfiguration',
      `readOnlyPort: ${readOnlyPort}`,
      `healthzPort: ${healthzPort}`,
      `port: ${serverPort}`,
      `podLogsDir: ${dirs.podLogs}`,
      `containerLogsDir: ${dirs.containerLogs}`,
      'failSwapOn: false',
      // What the upstream kubelet needs on these machines (cgroup v1, no CAP_SYS_RESOURCE for a negative
      // oom_score_adj) and standalone (no API server for webhook authn/authz); low eviction thresholds, so
      // that a test machine with little free disk evicts nothing. Both kubelets get the same file.
      'cgroupDriver: cgroupfs',
      'failCgroupV1: false',
      'oomScoreAdj: 0',
      'authentication: {anonymous: {enabled: true}, webhook: {enabled: false}}',
      'authorization: {mode: AlwaysAllow}',
      "evictionHard: {memory.available: 100Mi, nodefs.available: '1%', imagefs.available: '1%', nodefs.inodesFree: '1%'}",
      ...configLines,
      'logging:',
      '  format: json',
      '',
    ].join('\n'),
  );
  const args = [
    `--config=${configFile}`,
    `--pod-manifest-path=${dirs.manifests}`,
    `--container-runtime-endpoint=${env('KUBELET_TS_CRI_ENDPOINT')}`,
    `--root-dir=${dirs.root}`,
    // Its default is /var/lib/kubelet/pki whatever the root dir: keep the node's own dir out of it.
    `--cert-dir=${path.join(dirs.root, 'pki')}`,
    `--hostname-override=${nodeName}`,
    `--cgroup-root=${cgroupRoot}`,
    `-v=${verbosity}`,
    ...kubeletArgs,
  ];
  const nodeArgs = [...(upstream ? [] : binaryNodeOptions()), ...(criCallCounter ? ['--require', COUNTER] : []), ...extraNodeArgs];
  if (cpuProf) nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${dirs.prof}`);
  if (heapSnapshots) nodeArgs.push('--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${dirs.prof}`);
  const logFile = path.join(baseDir, 'kubelet.log');
  const criCountsDir = path.join(baseDir, 'cri-counts');
  let criRequests = 0;
  const logFd = fs.openSync(logFile, 'a');
  const [program, ...programArgs] = upstream ? [upstreamKubeletBinary()] : [process.execPath, ...nodeArgs, KUBELET_MAIN];
  if (!fs.existsSync(program)) throw new Error(`${program} is missing: build it with bash scripts/upstream/build.sh kubelet`);
  const child = spawn(program, [...programArgs, ...args], {
    stdio: ['ignore', logFd, logFd],
    env: criCallCounter ? { ...process.env, KUBELET_TS_BENCH_CRI_COUNTS: criCountsDir } : process.env,
  });
  fs.closeSync(logFd);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const logTail = () => fs.readFileSync(logFile, 'utf8').slice(-3000);
  const running = () => child.exitCode === null && child.signalCode === null;

  const handle = {
    implementation,
    pid: child.pid,
    nodeName,
    cgroupRoot,
    dirs,
    logFile,
    readOnlyPort,
    healthzPort,
    command: `${upstream ? program : `node ${nodeArgs.join(' ')} apps/kubelet/dist/main.js`} ${args.join(' ')}`.replaceAll(
      baseDir,
      '<tmp>',
    ),
    running,
    /** Throws with the log's tail when the kubelet has exited. */
    assertRunning(what) {
      if (!running()) throw new Error(`kubelet exited while ${what}:\n${logTail()}`);
    },
    /** Our static pods as /pods lists them. */
    async pods() {
      const response = await fetch(`http://127.0.0.1:${readOnlyPort}/pods`);
      if (response.status !== 200) throw new Error(`/pods answered ${response.status}`);
      const items = (await response.json()).items ?? [];
      return items.filter((p) => p.metadata.name.endsWith(`-${nodeName}`));
    },
    /**
     * Cumulative CRI calls per gRPC method: asked of the preloaded counter while the kubelet runs (it answers
     * within milliseconds), else as it wrote them at exit. Without the counter (the upstream kubelet):
     * containerd's counts of every client (bench/lib/containerd-metrics.mjs). With `gc`, the answer also
     * holds the heap used after a full collection (`heapUsedAfterGc`); every answer holds `resources`.
     */
    async criCounts(timeoutMs = 5000, { gc = false } = {}) {
      if (!criCallCounter) return { ...(await containerdCriCounts()), samples: {} };
      const file = path.join(criCountsDir, 'counts.json');
      const read = () => {
        try {
          return JSON.parse(fs.readFileSync(file, 'utf8'));
        } catch {
          return undefined;
        }
      };
      if (running()) {
        const request = `${process.pid}-${++criRequests}${gc ? ':gc' : ''}`;
        fs.mkdirSync(criCountsDir, { recursive: true });
        fs.writeFileSync(path.join(criCountsDir, 'request'), request);
        for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(10)) {
          const counts = read();
          if (counts?.request === request) return counts;
        }
      }
      return read() ?? { time: Date.now(), counts: {}, samples: {} };
    },
    /** Writes a heap snapshot (needs heapSnapshots) and resolves with its path once complete. */
    async takeHeapSnapshot(timeoutMs = 120_000) {
      const before = new Set(fs.readdirSync(dirs.prof));
      child.kill('SIGUSR2');
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const file = fs.readdirSync(dirs.prof).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
        // Node writes the file in one go; a size that stops growing means it is complete.
        if (file !== undefined) {
          const full = path.join(dirs.prof, file);
          const size = fs.statSync(full).size;
          await sleep(1000);
          if (size > 0 && fs.statSync(full).size === size) return full;
        }
        if (Date.now() > deadline) throw new Error('no heap snapshot written');
        await sleep(500);
      }
    },
    /** SIGTERM, then SIGKILL after 20 s; resolves when it has exited (the CPU profile is written then) and its mounts are gone. */
    async stop() {
      if (running()) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
      // The upstream kubelet makes its root dir a shared bind mount, and leaves it.
      if (upstream) unmountUnder(dirs.root);
    },
  };

  const deadline = Date.now() + 60_000;
  try {
    for (;;) {
      handle.assertRunning('waiting for /healthz');
      const ok = await fetch(`http://127.0.0.1:${healthzPort}/healthz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`kubelet /healthz not ready after 60 s:\n${logTail()}`);
      await sleep(200);
    }
  } catch (err) {
    // The caller gets no handle to stop it with: stop it here.
    await handle.stop();
    throw err;
  }
  return handle;
}

/** Writes manifests into the kubelet's static pod dir atomically (temp file beside it, then rename). */
export function writeManifests(kubelet, pods, stagingDir) {
  for (const pod of pods) fs.writeFileSync(path.join(stagingDir, `${pod.name}.json`), JSON.stringify(pod.manifest));
  const writtenAt = performance.now();
  for (const pod of pods) fs.renameSync(path.join(stagingDir, `${pod.name}.json`), path.join(kubelet.dirs.manifests, `${pod.name}.json`));
  return writtenAt;
}

export function isReady(pod) {
  return pod.status?.phase === 'Running' && (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}
