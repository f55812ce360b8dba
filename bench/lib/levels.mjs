// What a kubelet leaves on a node, counted: mounts, containerd shims, network namespaces, NAT rules,
// cgroups under the kubelet's cgroup root, the kubelet's open file descriptors. The drift check and
// the soak compare these before and after.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { env } from './env.mjs';
import { shimPids } from './proc.mjs';

/** Everything a run could leak, counted on the node and in the kubelet process (`kubelet`: a startKubelet handle). */
export function nodeLevels(kubelet, socket) {
  const mountinfo = fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n').filter(Boolean);
  const netnsDir = path.join(env('KUBELET_TS_RUNTIME_DIR'), 'state/io.containerd.grpc.v1.cri/netns');
  let cgroups = 0;
  const walk = (dir) => {
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      cgroups += 1;
      walk(path.join(dir, e.name));
    }
  };
  walk(path.join('/sys/fs/cgroup/memory', kubelet.cgroupRoot));
  return {
    mounts: mountinfo.length,
    shims: shimPids(socket).length,
    networkNamespaces: fs.existsSync(netnsDir) ? fs.readdirSync(netnsDir).length : 0,
    natRules: execFileSync('iptables', ['-t', 'nat', '-S'], { encoding: 'utf8' }).split('\n').filter(Boolean).length,
    cgroups,
    kubeletFds: fs.readdirSync(`/proc/${kubelet.pid}/fd`).length,
  };
}
