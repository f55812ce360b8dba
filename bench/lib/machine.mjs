// The machine's details recorded with every result: numbers from a shared 2-core VM mean little
// without the CPU, the runtime versions and how busy the machine was.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { loadAverage } from './proc.mjs';
import { round } from './stats.mjs';

function sh(cmd, args) {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

export function machineInfo() {
  return {
    hostname: os.hostname(),
    cpuModel: os.cpus()[0]?.model ?? null,
    cores: os.availableParallelism(),
    memoryGiB: round(os.totalmem() / 1024 ** 3),
    kernel: `${os.type()} ${os.release()}`,
    os: sh('sh', ['-c', '. /etc/os-release && echo "$PRETTY_NAME"']),
    node: process.version,
    // The running one (the test runtime's env: containerd 1.6 or 2), not whichever is on PATH.
    containerd: process.env.KUBELET_TS_CONTAINERD_VERSION || (sh('containerd', ['--version'])?.replace(/^containerd\s+/, '') ?? null),
    runc:
      sh('runc', ['--version'])
        ?.split('\n')[0]
        ?.replace(/^runc version\s+/, '') ?? null,
    podman: sh('podman', ['--version'])?.replace(/^podman version\s+/, '') ?? null,
    cgroup: sh('stat', ['-fc', '%T', '/sys/fs/cgroup']) === 'cgroup2fs' ? 'v2' : 'v1 (hybrid)',
    loadAverageAtStart: loadAverage(),
  };
}

/** One line for markdown summaries. */
export const machineLine = (m) =>
  `${m.cores} × ${m.cpuModel}, ${m.memoryGiB} GiB, ${m.kernel}, ${m.os ?? ''}; Node ${m.node}; containerd ${m.containerd}; runc ${m.runc}` +
  `${m.podman ? `; podman ${m.podman}` : ''}; cgroup ${m.cgroup}; load average at start ${m.loadAverageAtStart.join(' / ')}`;
