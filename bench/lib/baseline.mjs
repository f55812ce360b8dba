// The direct-CRI baseline: the CRI calls the kubelet's runtime manager makes to start a new
// one-container pod (packages/runtime-manager: SyncPod), made with @kubelet-ts/cri-client and
// nothing in between — no pod workers, PLEG, status manager, cgroup manager or volume manager.
// The requests copy the shape the kubelet sends (checked by shapeDiff against the first
// RunPodSandbox/CreateContainer the kubelet sent in the same run): labels and annotations with
// the upstream names, the pod's log directory, a cgroup parent under the benchmark's root, the
// kubelet's /etc/hosts and termination-log bind mounts, BestEffort resources.
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { CONTAINER_NAME } from './pods.mjs';
import { env } from './env.mjs';

function hostDns() {
  try {
    const servers = [...fs.readFileSync('/etc/resolv.conf', 'utf8').matchAll(/^nameserver\s+(\S+)/gm)].map((m) => m[1]);
    return { servers, searches: [], options: [] };
  } catch {
    return { servers: [], searches: [], options: [] };
  }
}
const DNS = hostDns();

/**
 * The requests for one pod. `dir` is where its log directory, hosts file and termination-log file go;
 * `cgroupRoot` is the benchmark's root under $KUBELET_TS_CGROUP_ROOT.
 */
export function baselinePod({ name, dir, cgroupRoot, label = 'bench' }) {
  const uid = randomUUID().replaceAll('-', '');
  const logDirectory = path.join(dir, 'pod-logs', `default_${name}_${uid}`);
  const labels = {
    benchmark: label,
    'io.kubernetes.pod.name': name,
    'io.kubernetes.pod.namespace': 'default',
    'io.kubernetes.pod.uid': uid,
  };
  const sandboxConfig = {
    metadata: { name, namespace: 'default', uid, attempt: 0 },
    hostname: name,
    logDirectory,
    dnsConfig: DNS,
    portMappings: [],
    labels,
    annotations: {
      'kubernetes.io/config.hash': uid,
      'kubernetes.io/config.source': 'file',
      'kubernetes.io/config.seen': new Date().toISOString(),
    },
    linux: {
      cgroupParent: `${cgroupRoot}/kubepods/besteffort/pod${uid}`,
      sysctls: {},
      securityContext: {
        namespaceOptions: { network: 'POD', ipc: 'POD', pid: 'CONTAINER' },
        privileged: false,
        seccomp: { profileType: 'RuntimeDefault' },
      },
    },
  };
  const podDir = path.join(dir, 'pods', uid);
  const containerConfig = (imageRef, hostsFile, terminationFile) => ({
    metadata: { name: CONTAINER_NAME, attempt: 0 },
    image: { image: imageRef, userSpecifiedImage: env('KUBELET_TS_HTTP_IMAGE') },
    command: [],
    args: [],
    workingDir: '',
    envs: [],
    mounts: [
      { containerPath: '/etc/hosts', hostPath: hostsFile, readonly: false, selinuxRelabel: true, propagation: 'PROPAGATION_PRIVATE' },
      {
        containerPath: '/dev/termination-log',
        hostPath: terminationFile,
        readonly: false,
        selinuxRelabel: false,
        propagation: 'PROPAGATION_PRIVATE',
      },
    ],
    labels: { ...labels, 'io.kubernetes.container.name': CONTAINER_NAME },
    annotations: {
      'io.kubernetes.container.hash': '00000000',
      'io.kubernetes.container.restartCount': '0',
      'io.kubernetes.container.terminationMessagePath': '/dev/termination-log',
      'io.kubernetes.container.terminationMessagePolicy': 'File',
      'io.kubernetes.pod.terminationGracePeriod': '30',
      'io.kubernetes.container.ports': '[{"containerPort":8080,"protocol":"TCP"}]',
      'io.kubernetes.container.type': 'container',
    },
    logPath: `${CONTAINER_NAME}/0.log`,
    stdin: false,
    stdinOnce: false,
    tty: false,
    linux: {
      resources: { cpuShares: 2, cpuQuota: 0, cpuPeriod: 100000, memoryLimitInBytes: 0, oomScoreAdj: 1000 },
      securityContext: {
        privileged: false,
        readonlyRootfs: false,
        capabilities: { addCapabilities: [], dropCapabilities: [] },
        noNewPrivs: false,
        namespaceOptions: { network: 'POD', ipc: 'POD', pid: 'CONTAINER' },
        seccomp: { profileType: 'Unconfined' },
        runAsUser: { value: 0 },
      },
    },
  });
  return { name, uid, labels, sandboxConfig, podDir, containerConfig };
}

/**
 * Starts one pod with the kubelet's sequence of calls for a new pod: ListPodSandbox and
 * ListContainers by pod UID (its pod status), RunPodSandbox, PodSandboxStatus (the pod IP),
 * ImageStatus twice (EnsureImageExists, then the image user), CreateContainer, StartContainer;
 * plus the files the kubelet writes first (log dirs, hosts file, termination-log file).
 * Resolves with the sandbox id and the time of each step (ms).
 */
export async function startPodDirect({ cri }, pod, image) {
  const steps = {};
  const step = async (what, fn) => {
    const t = performance.now();
    const value = await fn();
    steps[what] = (steps[what] ?? 0) + (performance.now() - t);
    return value;
  };
  const byUid = { labelSelector: { 'io.kubernetes.pod.uid': pod.uid } };
  await step('ListPodSandbox', () => cri.runtime.listPodSandbox({ filter: byUid }));
  await step('ListContainers', () => cri.runtime.listContainers({ filter: byUid }));
  fs.mkdirSync(pod.sandboxConfig.logDirectory, { recursive: true, mode: 0o755 });
  const { podSandboxId } = await step('RunPodSandbox', () => cri.runtime.runPodSandbox({ config: pod.sandboxConfig }));
  const status = await step('PodSandboxStatus', () => cri.runtime.podSandboxStatus({ podSandboxId, verbose: false }));
  const podIP = status.status?.network?.ip ?? '';
  const imageRef = (await step('ImageStatus', () => cri.image.imageStatus({ image: { image } }))).image?.id ?? '';
  if (imageRef === '') throw new Error(`image ${image} is not present in containerd`);
  await step('ImageStatus', () => cri.image.imageStatus({ image: { image: imageRef }, verbose: false }));
  fs.mkdirSync(path.join(pod.sandboxConfig.logDirectory, CONTAINER_NAME), { recursive: true, mode: 0o755 });
  fs.mkdirSync(path.join(pod.podDir, 'containers', CONTAINER_NAME), { recursive: true });
  const hostsFile = path.join(pod.podDir, 'etc-hosts');
  fs.writeFileSync(hostsFile, `127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n${podIP}\t${pod.name}\n`);
  const terminationFile = path.join(pod.podDir, 'containers', CONTAINER_NAME, randomBytes(4).toString('hex'));
  fs.writeFileSync(terminationFile, '', { mode: 0o666 });
  const { containerId } = await step('CreateContainer', () =>
    cri.runtime.createContainer({
      podSandboxId,
      config: pod.containerConfig(imageRef, hostsFile, terminationFile),
      sandboxConfig: pod.sandboxConfig,
    }),
  );
  await step('StartContainer', () => cri.runtime.startContainer({ containerId }));
  return { podSandboxId, containerId, steps };
}

/** Key paths present in one request and not the other (values ignored): proof the baseline sends the kubelet's shape. */
export function shapeDiff(kubeletRequest, baselineRequest) {
  const paths = (value, prefix, out) => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [k, v] of Object.entries(value)) {
        // label/annotation keys and ids are data, not shape
        if (/^(labels|annotations)$/.test(k)) out.add(`${prefix}${k}`);
        else paths(v, `${prefix}${k}.`, out);
      }
    } else out.add(prefix.replace(/\.$/, ''));
    return out;
  };
  if (kubeletRequest === undefined) return { compared: false };
  const a = paths(kubeletRequest, '', new Set());
  const b = paths(baselineRequest, '', new Set());
  return { compared: true, onlyKubelet: [...a].filter((p) => !b.has(p)), onlyBaseline: [...b].filter((p) => !a.has(p)) };
}

/**
 * Stops and removes one baseline pod with the calls the kubelet makes for a deleted pod: KillPod
 * (StopContainer with the grace period, StopPodSandbox), then its garbage collection
 * (RemoveContainer, StopPodSandbox again, RemovePodSandbox).
 */
export async function stopPodDirect({ cri, ignoreNotFound }, { podSandboxId, containerId }, gracePeriodSeconds = 30) {
  await ignoreNotFound(cri.runtime.stopContainer({ containerId, timeout: gracePeriodSeconds }));
  await ignoreNotFound(cri.runtime.stopPodSandbox({ podSandboxId }));
  await ignoreNotFound(cri.runtime.removeContainer({ containerId }));
  await ignoreNotFound(cri.runtime.stopPodSandbox({ podSandboxId }));
  await ignoreNotFound(cri.runtime.removePodSandbox({ podSandboxId }));
}
