// Runs the upstream kubelet (built by scripts/upstream/build.sh) as a node of the test control plane
// (scripts/control-plane.sh) on the private containerd (scripts/test-runtime.sh): the reference that
// kubelet-ts is compared with in smoke tests, conformance runs and benchmarks.
//
// It registers through TLS bootstrap (the control plane's bootstrap token; the controller manager
// approves and signs the client certificate) with its own root dir, cgroup root, ports and node IP.
// The upstream kubelet kills every pod of the runtime it does not own: hold the runtime lock
// (scripts/runtime-lock.cjs) while it runs. No npm dependency.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const CGROUP_FS = '/sys/fs/cgroup';

/**
 * Starts the upstream kubelet and waits until its /healthz answers.
 * @param {object} o
 * @param {Record<string, string>} o.env the merged runtime and control-plane env files
 * @param {string} o.dir state dir (root dir, certificates, logs); removed by stop()
 * @param {string} [o.nodeName] default KUBELET_TS_UPSTREAM_NODE_NAME
 * @param {string} [o.nodeIP] default KUBELET_TS_UPSTREAM_NODE_IP
 * @param {number} [o.port] kubelet API port (default 10250, bound to the node IP only)
 * @param {number} [o.healthzPort] on 127.0.0.1 (default 10348, away from kubelet-ts' 10248)
 * @param {object} [o.config] more KubeletConfiguration fields
 * @param {string[]} [o.command] run this instead of the upstream binary, with the same flags and
 *   configuration file (e.g. ['apps/kubelet/dist/main.js'] for kubelet-ts, started by its shebang: the
 *   conformance runner's drop-in comparison)
 * @param {string} [o.name] what the log lines call this kubelet (default "upstream kubelet")
 * @param {string} [o.cgroupName] the cgroup root's last element (default `upstream-<node>`, or
 *   `kubelet-<node>` with o.command): give both kubelets one name to hand a node over
 * @param {(line: string) => void} [o.log]
 */
export async function startUpstreamKubelet(o) {
  const env = o.env;
  const nodeName = o.nodeName ?? need(env, 'KUBELET_TS_UPSTREAM_NODE_NAME');
  const nodeIP = o.nodeIP ?? need(env, 'KUBELET_TS_UPSTREAM_NODE_IP');
  const healthzPort = o.healthzPort ?? 10348;
  const log = o.log ?? (() => {});
  const dir = path.resolve(o.dir);
  const name = o.name ?? 'upstream kubelet';
  const bin = path.join(need(env, 'KUBELET_TS_UPSTREAM_BIN_DIR'), 'kubelet');
  const command = o.command ?? [bin];
  if (!fs.existsSync(command.at(-1))) throw new Error(`${command.at(-1)} is missing: build it first`);
  const cgroupRoot = `${need(env, 'KUBELET_TS_CGROUP_ROOT')}/${o.cgroupName ?? `${o.command ? 'kubelet' : 'upstream'}-${nodeName}`}`;
  for (const sub of ['root', 'pki', 'pod-logs', 'manifests', 'volume-plugins']) fs.mkdirSync(path.join(dir, sub), { recursive: true });
  makeCgroup(cgroupRoot);

  const config = {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    address: nodeIP,
    port: o.port ?? 10250,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort,
    containerRuntimeEndpoint: need(env, 'KUBELET_TS_CRI_ENDPOINT'),
    cgroupDriver: 'cgroupfs',
    cgroupRoot,
    // These machines: cgroup v1, no swap accounting, no CAP_SYS_RESOURCE (a negative oom_score_adj fails).
    failCgroupV1: false,
    failSwapOn: false,
    oomScoreAdj: 0,
    authentication: { anonymous: { enabled: false }, webhook: { enabled: true }, x509: { clientCAFile: need(env, 'KUBELET_TS_CA_FILE') } },
    authorization: { mode: 'Webhook' },
    rotateCertificates: true,
    podLogsDir: path.join(dir, 'pod-logs'),
    staticPodPath: path.join(dir, 'manifests'),
    volumePluginDir: path.join(dir, 'volume-plugins'),
    clusterDomain: 'cluster.local',
    resolvConf: '/etc/resolv.conf',
    // Low thresholds: a test machine with little free disk must not evict the pods under test.
    evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '1%', 'imagefs.available': '1%', 'nodefs.inodesFree': '1%' },
    ...o.config,
  };
  const configFile = path.join(dir, 'config.json');
  fs.writeFileSync(configFile, JSON.stringify(config, null, 2));

  const logFile = path.join(dir, 'kubelet.log');
  const out = fs.openSync(logFile, 'a');
  const args = [
    `--config=${configFile}`,
    `--bootstrap-kubeconfig=${need(env, 'KUBELET_TS_BOOTSTRAP_KUBECONFIG')}`,
    `--kubeconfig=${path.join(dir, 'kubelet.kubeconfig')}`,
    `--cert-dir=${path.join(dir, 'pki')}`,
    `--root-dir=${path.join(dir, 'root')}`,
    `--hostname-override=${nodeName}`,
    `--node-ip=${nodeIP}`,
    '--v=2',
  ];
  const child = spawn(command[0], [...command.slice(1), ...args], { stdio: ['ignore', out, out], detached: true });
  fs.closeSync(out);
  log(`${name} ${nodeName} started (pid ${child.pid}, log ${logFile})`);
  let exited = null;
  child.on('exit', (code, signal) => (exited = { code, signal }));

  const deadline = Date.now() + 90_000;
  for (;;) {
    if (exited) throw new Error(`the ${name} exited (${JSON.stringify(exited)}) during start-up:\n${tail(logFile)}`);
    if (await healthy(healthzPort)) break;
    if (Date.now() > deadline) throw new Error(`the ${name}'s /healthz did not answer within 90 s:\n${tail(logFile)}`);
    await sleep(500);
  }
  log(`${name} ${nodeName} healthy`);

  return {
    nodeName,
    nodeIP,
    pid: child.pid,
    logFile,
    dir,
    /** Stops the kubelet process only (SIGTERM, then SIGKILL after 15 s): its pods, mounts and files stay. */
    async terminate() {
      if (exited) return;
      process.kill(child.pid, 'SIGTERM');
      const until = Date.now() + 15_000;
      while (!exited && Date.now() < until) await sleep(100);
      if (!exited) process.kill(child.pid, 'SIGKILL');
      while (!exited) await sleep(50);
      log(`${name} ${nodeName} terminated`);
    },
    /** Stops the kubelet, removes its pods from the runtime, its mounts, cgroups and files. */
    async stop() {
      await this.terminate();
      removePods(env, dir);
      unmountUnder(dir);
      removeCgroup(cgroupRoot);
      fs.rmSync(dir, { recursive: true, force: true });
      log(`${name} ${nodeName} stopped and cleaned up`);
    },
  };
}

/** Reads `export NAME=value` lines of an env file written by the test-bed scripts. */
export function readEnvFile(file) {
  const env = {};
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^export\s+(KUBELET_TS_[A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) env[m[1]] = m[2].replace(/^'(.*)'$/, '$1').replace(/^"(.*)"$/, '$1');
  }
  return env;
}

function need(env, name) {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set: start the test bed (scripts/test-runtime.sh up, scripts/control-plane.sh up)`);
  return value;
}

async function healthy(port) {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
    return res.ok;
  } catch {
    return false;
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function tail(file) {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-25).join('\n');
  } catch {
    return '(no log)';
  }
}

function v1Hierarchies() {
  return fs
    .readdirSync(CGROUP_FS, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'unified')
    .map((d) => path.join(CGROUP_FS, d.name));
}

// The kubelet checks that its cgroup root exists in every hierarchy before it makes kubepods there.
export function makeCgroup(cgroup) {
  for (const h of v1Hierarchies()) {
    const target = path.join(h, cgroup);
    fs.mkdirSync(target, { recursive: true });
    if (path.basename(h) === 'cpuset') {
      // New cpuset cgroups start empty: copy the parent's cpus and mems down the path.
      let current = h;
      for (const part of cgroup.split('/').filter(Boolean)) {
        const next = path.join(current, part);
        for (const f of ['cpuset.cpus', 'cpuset.mems']) {
          if (fs.readFileSync(path.join(next, f), 'utf8').trim() === '')
            fs.writeFileSync(path.join(next, f), fs.readFileSync(path.join(current, f)));
        }
        current = next;
      }
    }
  }
}

function removeCgroup(cgroup) {
  for (const h of v1Hierarchies()) {
    const top = path.join(h, cgroup);
    if (!fs.existsSync(top)) continue;
    const dirs = [];
    const walk = (d) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) walk(path.join(d, e.name));
      dirs.push(d);
    };
    walk(top);
    for (const d of dirs) {
      try {
        for (const pid of fs.readFileSync(path.join(d, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean))
          process.kill(Number(pid), 'SIGKILL');
      } catch {
        // already empty or gone
      }
      try {
        fs.rmdirSync(d);
      } catch {
        // a process still exiting; the runtime's `down` removes what is left
      }
    }
  }
}

// Pods this kubelet ran: their sandboxes carry no label naming the kubelet, but their logs live in its
// pod-logs dir, which is each sandbox's log_directory.
function removePods(env, dir) {
  const crictl = path.join(env.KUBELET_TS_UPSTREAM_BIN_DIR, 'crictl');
  if (!fs.existsSync(crictl)) return;
  const run = (...args) =>
    execFileSync(crictl, ['--runtime-endpoint', env.KUBELET_TS_CRI_ENDPOINT, ...args], {
      encoding: 'utf8',
      timeout: 60_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  let ids = [];
  try {
    ids = run('pods', '-q').split('\n').filter(Boolean);
  } catch {
    return;
  }
  for (const id of ids) {
    try {
      const info = JSON.parse(run('inspectp', id));
      if (!String(info.status?.logDirectory ?? info.info?.config?.log_directory ?? '').startsWith(dir)) continue;
      run('stopp', id);
      run('rmp', '-f', id);
    } catch {
      // gone meanwhile
    }
  }
}

/** Unmounts everything at or below `dir`, deepest first (the upstream kubelet bind-mounts its root dir). */
export function unmountUnder(dir) {
  const mounts = fs
    .readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[4])
    .filter((m) => m && (m === dir || m.startsWith(`${dir}/`)))
    .sort()
    .reverse();
  for (const m of mounts) {
    try {
      execFileSync('umount', [m]);
    } catch {
      try {
        execFileSync('umount', ['-l', m]);
      } catch {
        // not mounted any more
      }
    }
  }
}
