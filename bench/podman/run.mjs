// The podman peer: the density benchmark's pods (same http-echo container; podman 4.3 ignores
// readiness probes) started with `podman kube play` from one multi-document YAML, timed until
// `kube play` returned and every container is seen running; then `podman kube down` of the same
// file, timed until no pod is left. Podman uses its own storage (--root/--runroot under
// /var/lib/kubelet-ts-bench and /run/kubelet-ts-bench), its own containers.conf (CONTAINERS_CONF,
// never /etc/containers), its own CNI config dir and the runtime env's pause and http-echo images,
// so it cannot disturb the shared containerd; it does not take the integration lock.
//
// Setup (idempotent): installs Debian's podman with apt-get when missing; loads the images once.
// Usage: node bench/podman/run.mjs [--pods 110] [--stop-timeout 420] [--out <file.json>]
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { env, loadRuntimeEnv, log, parseArgs, sleep } from '../lib/env.mjs';
import { machineInfo, machineLine } from '../lib/machine.mjs';
import { PODMAN_COMPONENT, cpuAccountLine, loadAverage, measureWindow, startCpuAccount, waitForQuiet } from '../lib/proc.mjs';
import { podManifest, podNames } from '../lib/pods.mjs';
import { table, writeResults } from '../lib/report.mjs';
import { round } from '../lib/stats.mjs';

const run = promisify(execFile);
const args = parseArgs();
const PODS = args.number('pods', 110);
const STOP_TIMEOUT_MS = args.number('stop-timeout', 420) * 1000;
const STATE = '/var/lib/kubelet-ts-bench/podman';
const RUNSTATE = '/run/kubelet-ts-bench/podman';
const CONF = path.join(STATE, 'containers.conf');
const POD_PREFIX = 'kts-bench';

loadRuntimeEnv();

function installPodman() {
  try {
    execFileSync('podman', ['--version'], { stdio: 'ignore' });
    return;
  } catch {
    // not installed
  }
  log('installing podman (apt-get)');
  const apt = (aptArgs) =>
    execFileSync('apt-get', aptArgs, {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  try {
    apt(['install', '-y', '--no-install-recommends', 'podman']);
  } catch {
    apt(['update']);
    apt(['install', '-y', '--no-install-recommends', 'podman']);
  }
}

/**
 * Debian's podman 4.3 here needs (see ENVIRONMENT.md): runc (crun refuses the hybrid cgroups), rlimits and
 * oom_score_adj it may set without CAP_SYS_RESOURCE, a local infra (pause) image; cgroupfs and file
 * events because there is no systemd.
 */
function writeConfig() {
  fs.mkdirSync(path.join(STATE, 'cni'), { recursive: true });
  fs.mkdirSync(path.join(RUNSTATE, 'tmp'), { recursive: true });
  fs.writeFileSync(
    CONF,
    [
      '[containers]',
      'default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]',
      'oom_score_adj = 0',
      '[engine]',
      'runtime = "runc"',
      `infra_image = "${env('KUBELET_TS_PAUSE_IMAGE')}"`,
      'cgroup_manager = "cgroupfs"',
      'events_logger = "file"',
      `events_logfile_path = "${path.join(RUNSTATE, 'events.log')}"`,
      `tmp_dir = "${path.join(RUNSTATE, 'tmp')}"`,
      '[network]',
      `network_config_dir = "${path.join(STATE, 'cni')}"`,
      'cni_plugin_dirs = ["/usr/lib/cni"]',
      '',
    ].join('\n'),
  );
}

const podmanArgs = (rest) => [
  '--root',
  path.join(STATE, 'storage'),
  '--runroot',
  path.join(RUNSTATE, 'storage'),
  '--cgroup-manager',
  'cgroupfs',
  ...rest,
];
const podmanEnv = () => ({ ...process.env, CONTAINERS_CONF: CONF });
async function podman(rest, { timeoutMs = 0 } = {}) {
  const { stdout } = await run('podman', podmanArgs(rest), { env: podmanEnv(), maxBuffer: 64 * 1024 * 1024, timeout: timeoutMs });
  return stdout;
}

async function loadImages() {
  for (const [ref, archive] of [
    [env('KUBELET_TS_PAUSE_IMAGE'), 'pause.tar'],
    [env('KUBELET_TS_HTTP_IMAGE'), 'http-echo.tar'],
  ]) {
    const present = await podman(['image', 'exists', ref]).then(
      () => true,
      () => false,
    );
    if (present) continue;
    log(`podman load ${archive}`);
    await podman(['load', '-q', '-i', path.join(env('KUBELET_TS_IMAGES_DIR'), archive)]);
  }
}

/** Our pods (name prefix) and how many of their containers run, from one `podman ps`. */
async function ourContainers() {
  const containers = JSON.parse((await podman(['ps', '-a', '--pod', '--format', 'json'])) || '[]').filter((c) =>
    (c.PodName ?? '').startsWith(POD_PREFIX),
  );
  return { total: containers.length, appRunning: containers.filter((c) => c.State === 'running' && c.IsInfra !== true).length };
}

async function removeOurPods() {
  const ids = (await podman(['pod', 'ps', '-q', '--filter', `name=${POD_PREFIX}`])).split('\n').filter(Boolean);
  if (ids.length > 0) await podman(['pod', 'rm', '-f', '-t', '0', ...ids]);
  return ids.length;
}

let cleanedUp = false;
async function cleanup() {
  if (cleanedUp) return;
  cleanedUp = true;
  try {
    const n = await removeOurPods();
    if (n > 0) log(`removed ${n} podman pods left over`);
  } catch (err) {
    log(`cleanup failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => void cleanup().finally(() => process.exit(130)));

let failed = false;
try {
  installPodman();
  writeConfig();
  await loadImages();
  const leftovers = await removeOurPods();
  if (leftovers > 0) log(`removed ${leftovers} podman pods of an earlier run`);
  const machine = machineInfo();
  const names = podNames(PODS, POD_PREFIX);
  const yaml = path.join(RUNSTATE, 'pods.yaml');
  // JSON is YAML: one document per pod, as a user would put them in one file. Without `ports`: podman 4.3
  // publishes a containerPort on the host even without hostPort, so 110 pods would clash on :8080.
  const manifests = names.map((name) => {
    const manifest = podManifest(name, { readiness: true, label: 'podman' });
    for (const container of manifest.spec.containers) delete container.ports;
    return JSON.stringify(manifest);
  });
  fs.writeFileSync(yaml, manifests.join('\n---\n'));

  // Right after the density benchmark's teardown: start on a quiet machine, as the kubelet did.
  const quietBeforeStart = await waitForQuiet();
  log(
    `the machine was quiet after ${quietBeforeStart.waitedSeconds} s (busy % per second: ${quietBeforeStart.busyPercentPerSecond.join(' ')})`,
  );
  const loadBeforeStart = loadAverage();
  log(`podman kube play: ${PODS} pods`);
  // kube play (and the `podman ps` polls) run as this runner's children: their CPU is podman's.
  const startAccount = startCpuAccount({ childrenAs: PODMAN_COMPONENT });
  const t0 = performance.now();
  await podman(['kube', 'play', '-q', yaml]);
  const playReturned = performance.now() - t0;
  let allRunning;
  for (;;) {
    const { appRunning } = await ourContainers();
    if (appRunning >= PODS) {
      allRunning = performance.now() - t0;
      break;
    }
    if (performance.now() - t0 > 300_000) throw new Error(`only ${appRunning} of ${PODS} podman containers running after 300 s`);
    await sleep(250);
  }
  const startCpu = startAccount();
  log(`podman: kube play returned after ${round(playReturned / 1000, 2)} s, all running after ${round(allRunning / 1000, 2)} s`);
  // A short look at podman's own footprint with the pods running: conmon per container, no daemon.
  const conmons = execFileSync('pgrep', ['-x', 'conmon'], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  const steady = await measureWindow(conmons[0] ?? process.pid, 3, { others: { conmon: conmons } });

  const loadBeforeStop = loadAverage();
  log('podman kube down');
  const s0 = performance.now();
  let stopError = null;
  await podman(['kube', 'down', yaml], { timeoutMs: STOP_TIMEOUT_MS }).catch((err) => {
    stopError = err instanceof Error ? err.message.split('\n')[0] : String(err);
  });
  const downReturned = performance.now() - s0;
  const left = await ourContainers();
  log(`podman: kube down returned after ${round(downReturned / 1000, 2)} s, ${left.total} containers left`);

  const result = {
    benchmark: 'podman',
    date: new Date().toISOString(),
    command: `node bench/podman/run.mjs ${args.argv.join(' ')}`.trim(),
    podmanCommand: `CONTAINERS_CONF=${CONF} podman ${podmanArgs(['kube', 'play', yaml]).join(' ')}`,
    machine,
    loadAverage: { beforeStart: loadBeforeStart, beforeStop: loadBeforeStop, atEnd: loadAverage() },
    pods: PODS,
    pod: 'the density pods: one http-echo container (image present), without `ports` (podman would publish them on the host); podman ignores the readiness probe',
    start: {
      kubePlayReturnedSeconds: round(playReturned / 1000, 2),
      allRunningSeconds: round(allRunning / 1000, 2),
      quietBefore: quietBeforeStart,
      cpuAccount: startCpu,
    },
    steady: {
      conmonProcesses: conmons.length,
      conmonCpuPercentOfOneCore: steady.others.conmon,
      machineBusyPercentOfAllCores: steady.machineBusyPercentOfAllCores,
    },
    stop: { kubeDownReturnedSeconds: round(downReturned / 1000, 2), containersLeft: left.total, error: stopError },
  };
  const md = [
    `# podman kube play — ${result.date}`,
    '',
    `\`${result.command}\` — ${PODS} pods from one YAML; ${result.pod}.`,
    '',
    `Machine: ${machineLine(machine)}; load average before start ${loadBeforeStart.join(' / ')}, before stop ${loadBeforeStop.join(' / ')}.`,
    '',
    table(
      ['podman 4.3', 'seconds'],
      [
        ['kube play returned', result.start.kubePlayReturnedSeconds],
        ['all containers running', result.start.allRunningSeconds],
        [`kube down returned (${left.total} containers left${stopError ? `; ${stopError}` : ''})`, result.stop.kubeDownReturnedSeconds],
      ],
    ),
    '',
    `Whole machine while the ${PODS} pods start: ${cpuAccountLine(startCpu)}.`,
  ].join('\n');
  const files = writeResults('podman', result, md, { out: args.option('out') });
  process.stdout.write(`${md}\n\nresults: ${files.json}, ${files.md}\n`);
} catch (err) {
  failed = true;
  log(`FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
} finally {
  await cleanup();
}
process.exit(failed ? 1 : 0);
