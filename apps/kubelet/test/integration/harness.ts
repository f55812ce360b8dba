/**
 * Runs the real kubelet binary (apps/kubelet/dist/main.js) against the real containerd of the
 * runtime test environment, in standalone mode on a temp manifest directory, and reads back what
 * it did through its read-only /pods endpoint and through CRI.
 */
import { spawn, execFile } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { promises as fs, readdirSync, rmdirSync } from 'node:fs';
import type { Dirent } from 'node:fs';
import https from 'node:https';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseMountInfo } from '@kubelet-ts/common';
import type { MountPoint } from '@kubelet-ts/common';
import { createCriClient, ignoreNotFound } from '@kubelet-ts/cri-client';
import { createFakeRegistrationServer } from '@kubelet-ts/plugin-manager/testing';
import type { FakeRegistrationServer } from '@kubelet-ts/plugin-manager/testing';
import { runtimeEnv as env, waitFor } from '@kubelet-ts/test-support';
import type { CriClient } from '@kubelet-ts/cri-client';

const execFileAsync = promisify(execFile);

export const REPO_ROOT = path.resolve(__dirname, '../../../..');
export const KUBELET_MAIN = path.join(REPO_ROOT, 'apps/kubelet/dist/main.js');

export { env };

export const BUSYBOX = (): string => env('KUBELET_TS_BUSYBOX_IMAGE');
export const HTTP_IMAGE = (): string => env('KUBELET_TS_HTTP_IMAGE');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Polls `fn` until it returns a value other than undefined/false, or fails with the last error after the deadline. */
export function eventually<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 30_000, intervalMs = 250): Promise<T> {
  return waitFor(what, fn, timeoutMs, intervalMs);
}

export interface ApiContainerStatus {
  name: string;
  ready: boolean;
  restartCount: number;
  containerID?: string;
  started?: boolean;
  state?: {
    running?: { startedAt?: string };
    waiting?: { reason?: string; message?: string };
    terminated?: { exitCode: number; reason?: string; finishedAt?: string; startedAt?: string };
  };
  lastState?: ApiContainerStatus['state'];
}

export interface ApiPod {
  metadata: { name: string; namespace: string; uid: string; annotations?: Record<string, string> };
  spec: Record<string, unknown>;
  status?: {
    phase?: string;
    reason?: string;
    message?: string;
    podIP?: string;
    conditions?: Array<{ type: string; status: string; reason?: string }>;
    containerStatuses?: ApiContainerStatus[];
    initContainerStatuses?: ApiContainerStatus[];
  };
}

export interface KubeletUnderTest {
  nodeName: string;
  manifestDir: string;
  rootDir: string;
  podLogsDir: string;
  /** The kubelet's containerLogsDir (the container log symlinks): never the machine's /var/log/containers. */
  containerLogsDir: string;
  hostDir: string;
  /** API mode: the kubeconfig TLS bootstrap writes, and the certificate directory. */
  kubeconfig: string;
  certDir: string;
  readOnlyPort: number;
  healthzPort: number;
  cri: CriClient;
  /** Everything the kubelet wrote on stderr and stdout so far (all runs). */
  output(): string;
  /** Starts the kubelet with extra flags. */
  start(extraArgs?: string[]): Promise<void>;
  /** SIGTERM and wait for exit; the pods keep running. */
  stop(): Promise<number | null>;
  /** SIGKILL (no shutdown at all) and wait for the exit. */
  kill(): Promise<void>;
  pods(): Promise<ApiPod[]>;
  pod(name: string): Promise<ApiPod | undefined>;
  writeManifest(file: string, manifest: unknown): Promise<void>;
  removeManifest(file: string): Promise<void>;
  /** Stops the kubelet, then removes through CRI every sandbox of this node's static pods. */
  cleanup(): Promise<void>;
  running(): boolean;
}

let counter = 0;

export interface CreateKubeletOptions {
  /** Extra KubeletConfiguration lines (`containerLogMaxSize: 64Ki`) for fields that have no flag. */
  config?: string[];
  /**
   * API-server mode against this control plane: TLS bootstrap with its bootstrap kubeconfig, the
   * kubeconfig and certificates under the kubelet's temp dir, the control plane's node IP.
   */
  apiServer?: { bootstrapKubeconfig: string; nodeIp: string };
  /**
   * A command the kubelet runs under (`node` and its arguments appended), e.g. `unshare -m sh -c '… && exec "$@"' sh`
   * to show it a host file of the test's own in a mount namespace of its own.
   */
  launcher?: string[];
}

export async function createKubelet(label: string, options: CreateKubeletOptions = {}): Promise<KubeletUnderTest> {
  const nodeName = `it-${label}-${process.pid}-${counter++}`.toLowerCase();
  const base = await fs.mkdtemp(path.join(os.tmpdir(), `kubelet-ts-${label}-`));
  const manifestDir = path.join(base, 'manifests');
  const rootDir = path.join(base, 'root');
  const podLogsDir = path.join(base, 'pod-logs');
  const containerLogsDir = path.join(base, 'container-logs');
  const hostDir = path.join(base, 'host');
  await Promise.all([manifestDir, rootDir, podLogsDir, hostDir].map((d) => fs.mkdir(d, { recursive: true })));
  const readOnlyPort = await freePort();
  const healthzPort = await freePort();
  // In API mode the authenticated server listens on the node IP (the API server proxies to it there),
  // on a free port unless the test names one: kubelets of one machine must not share 0.0.0.0:10250.
  const extra = options.config ?? [];
  const serverLines =
    options.apiServer === undefined
      ? []
      : [
          ...(extra.some((l) => l.startsWith('address:')) ? [] : [`address: ${options.apiServer.nodeIp}`]),
          ...(extra.some((l) => l.startsWith('port:')) ? [] : [`port: ${await freePort()}`]),
          // The API server's kubelet client certificate is signed by the cluster CA, as on a kubeadm node.
          ...(extra.some((l) => l.startsWith('authentication:')) || process.env['KUBELET_TS_CA_FILE'] === undefined
            ? []
            : [`authentication: {x509: {clientCAFile: ${process.env['KUBELET_TS_CA_FILE']}}}`]),
        ];
  const configFile = path.join(base, 'kubelet-config.yaml');
  await fs.writeFile(
    configFile,
    [
      'apiVersion: kubelet.config.k8s.io/v1beta1',
      'kind: KubeletConfiguration',
      `readOnlyPort: ${readOnlyPort}`,
      `healthzPort: ${healthzPort}`,
      `podLogsDir: ${podLogsDir}`,
      `containerLogsDir: ${containerLogsDir}`,
      'fileCheckFrequency: 2s',
      'syncFrequency: 10s',
      'failSwapOn: false',
      // Image GC off unless a test turns it on: the shared base images (busybox, http-echo) must survive
      // every suite even on a disk fuller than the 85 % default.
      'imageGCHighThresholdPercent: 100',
      'imageGCLowThresholdPercent: 99',
      ...serverLines,
      ...extra,
      '',
    ].join('\n'),
  );
  const endpoint = env('KUBELET_TS_CRI_ENDPOINT');
  const cgroupRoot = `${env('KUBELET_TS_CGROUP_ROOT')}/${nodeName}`;
  const cri = createCriClient({ endpoint });
  let child: ChildProcess | undefined;
  let exited: Promise<number | null> | undefined;
  let output = '';

  const self: KubeletUnderTest = {
    nodeName,
    manifestDir,
    rootDir,
    podLogsDir,
    containerLogsDir,
    hostDir,
    kubeconfig: path.join(base, 'kubelet.kubeconfig'),
    certDir: path.join(base, 'pki'),
    readOnlyPort,
    healthzPort,
    cri,
    output: () => output,
    running: () => child !== undefined && child.exitCode === null && child.signalCode === null,
    async start(extraArgs = []) {
      if (self.running()) throw new Error('kubelet already running');
      const args = [
        KUBELET_MAIN,
        `--config=${configFile}`,
        `--pod-manifest-path=${manifestDir}`,
        `--container-runtime-endpoint=${endpoint}`,
        `--root-dir=${rootDir}`,
        `--hostname-override=${nodeName}`,
        // The pod cgroup hierarchy lives under the test cgroup root, never in the machine's own.
        `--cgroup-root=${cgroupRoot}`,
        '-v=4',
        ...(options.apiServer !== undefined
          ? [
              `--bootstrap-kubeconfig=${options.apiServer.bootstrapKubeconfig}`,
              `--kubeconfig=${self.kubeconfig}`,
              `--cert-dir=${self.certDir}`,
              `--node-ip=${options.apiServer.nodeIp}`,
            ]
          : []),
        ...extraArgs,
      ];
      const [command, ...commandArgs] = [...(options.launcher ?? []), process.execPath, ...args] as [string, ...string[]];
      const proc = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
      child = proc;
      proc.stdout?.on('data', (d: Buffer) => (output += d.toString()));
      proc.stderr?.on('data', (d: Buffer) => (output += d.toString()));
      exited = new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
    },
    async stop() {
      if (child === undefined || exited === undefined) return null;
      const proc = child;
      if (self.running()) proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(timer);
      child = undefined;
      return code;
    },
    async kill() {
      if (child === undefined || exited === undefined) return;
      if (self.running()) child.kill('SIGKILL');
      await exited;
      child = undefined;
    },
    async pods() {
      const response = await fetch(`http://127.0.0.1:${readOnlyPort}/pods`);
      if (response.status !== 200) throw new Error(`/pods answered ${response.status}`);
      const body = (await response.json()) as { kind: string; items: ApiPod[] | null };
      return body.items ?? [];
    },
    async pod(name) {
      const full = `${name}-${nodeName}`;
      return (await self.pods()).find((p) => p.metadata.name === full);
    },
    async writeManifest(file, manifest) {
      const tmp = path.join(manifestDir, `.${file}.tmp`);
      await fs.writeFile(tmp, typeof manifest === 'string' ? manifest : JSON.stringify(manifest, null, 2));
      await fs.rename(tmp, path.join(manifestDir, file));
    },
    async removeManifest(file) {
      await fs.rm(path.join(manifestDir, file), { force: true });
    },
    async cleanup() {
      await self.stop();
      // For debugging a run: KUBELET_TS_IT_LOG_DIR keeps each kubelet's whole log.
      const logDir = process.env['KUBELET_TS_IT_LOG_DIR'];
      if (logDir !== undefined && logDir !== '') {
        await fs.mkdir(logDir, { recursive: true });
        await fs.writeFile(path.join(logDir, `${nodeName}.log`), output);
      }
      // Every step is tried whatever the one before did: a sandbox the runtime cannot stop (a CNI DEL
      // failing in a netns a fault test broke) must not leave this kubelet's mounts and dirs behind
      // for the suites after it. The first failure is thrown at the end.
      const failures: unknown[] = [];
      const attempt = async (step: () => Promise<unknown>): Promise<void> => {
        try {
          await step();
        } catch (err) {
          failures.push(err);
        }
      };
      await attempt(async () => {
        const sandboxes = await cri.runtime.listPodSandbox({});
        const ours = sandboxes.items.filter((s) => (s.metadata?.name ?? '').endsWith(`-${nodeName}`));
        for (const sandbox of ours) {
          await attempt(() => ignoreNotFound(cri.runtime.stopPodSandbox({ podSandboxId: sandbox.id })));
          await attempt(() => ignoreNotFound(cri.runtime.removePodSandbox({ podSandboxId: sandbox.id })));
        }
      });
      cri.close();
      await attempt(async () => removeCgroupHierarchy(cgroupRoot));
      // Volumes stay mounted when the kubelet stops (as upstream): secret tmpfs, bind mounts.
      await attempt(() => unmountAllUnder(base));
      await attempt(() => fs.rm(base, { recursive: true, force: true }));
      if (failures.length > 0) throw failures[0];
    },
  };
  return self;
}

/** Removes a kubelet's whole cgroup hierarchy (kubepods, QoS tiers, pod cgroups), deepest first, in every controller. */
export function removeCgroupHierarchy(root: string): void {
  const remove = (dir: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) if (entry.isDirectory()) remove(path.join(dir, entry.name));
    try {
      rmdirSync(dir);
    } catch {
      // still busy or already gone: the runtime test environment's `down` removes the test root
    }
  };
  for (const controller of readdirSync('/sys/fs/cgroup')) remove(path.join('/sys/fs/cgroup', controller, root));
}

/** The mounts at or below `dir` right now. */
export async function mountsUnder(dir: string): Promise<MountPoint[]> {
  const mounts = parseMountInfo(await fs.readFile('/proc/self/mountinfo', 'utf8'));
  return mounts.filter((m) => m.mountPoint === dir || m.mountPoint.startsWith(dir + path.sep));
}

/** Unmounts everything at or below `dir`, deepest first (lazily when busy), ignoring failures. */
export async function unmountAllUnder(dir: string): Promise<void> {
  const mounts = (await mountsUnder(dir)).sort((a, b) => b.mountPoint.length - a.mountPoint.length);
  for (const m of mounts) {
    await execFileAsync('umount', [m.mountPoint]).catch(() => execFileAsync('umount', ['-l', m.mountPoint]).catch(() => undefined));
  }
}

/** Waits until the kubelet's /healthz answers ok. */
export async function waitHealthy(kubelet: KubeletUnderTest, timeoutMs = 30_000): Promise<void> {
  await eventually(
    `kubelet /healthz on :${kubelet.healthzPort}`,
    async () => {
      if (!kubelet.running()) throw new Error(`kubelet exited:\n${kubelet.output().slice(-3000)}`);
      const r = await fetch(`http://127.0.0.1:${kubelet.healthzPort}/healthz`);
      return r.status === 200;
    },
    timeoutMs,
  );
}

/** CRI containers of a static pod (all states), by the upstream pod name label. */
export async function criContainersOf(kubelet: KubeletUnderTest, podName: string) {
  const full = `${podName}-${kubelet.nodeName}`;
  const list = await kubelet.cri.runtime.listContainers({ filter: { labelSelector: { 'io.kubernetes.pod.name': full } } });
  return list.containers;
}

export async function criSandboxesOf(kubelet: KubeletUnderTest, podName: string) {
  const full = `${podName}-${kubelet.nodeName}`;
  const list = await kubelet.cri.runtime.listPodSandbox({ filter: { labelSelector: { 'io.kubernetes.pod.name': full } } });
  return list.items;
}

export async function runtimeScript(command: string): Promise<void> {
  await execFileAsync('bash', [path.join(REPO_ROOT, 'scripts/test-runtime.sh'), command], { timeout: 120_000 });
}

export function containerState(pod: ApiPod | undefined, name: string): ApiContainerStatus | undefined {
  return pod?.status?.containerStatuses?.find((c) => c.name === name);
}

export function condition(pod: ApiPod | undefined, type: string): string | undefined {
  return pod?.status?.conditions?.find((c) => c.type === type)?.status;
}

export function busyboxPod(
  name: string,
  containers: Array<Record<string, unknown>>,
  spec: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { terminationGracePeriodSeconds: 2, ...spec, containers: containers.map((c) => ({ image: BUSYBOX(), ...c })) },
  };
}

/** One HTTPS GET (status and body): the tests' direct calls to the API server and the kubelet's port. */
export function httpsGet(options: https.RequestOptions): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ method: 'GET', ...options }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Registers a CSI driver with the kubelet as node-driver-registrar does: a registration socket in
 * `<root-dir>/plugins_registry` that names the driver's endpoint. Resolves once the kubelet said it
 * registered the plugin; the server stays up (its `stop` deregisters the driver).
 */
export async function registerCsiDriver(kubelet: KubeletUnderTest, name: string, endpoint: string): Promise<FakeRegistrationServer> {
  const dir = path.join(kubelet.rootDir, 'plugins_registry');
  await fs.mkdir(dir, { recursive: true });
  const registration = createFakeRegistrationServer({
    socketPath: path.join(dir, `${name}-reg.sock`),
    name,
    endpoint,
    supportedVersions: ['1.0.0'],
  });
  await registration.start();
  await eventually('the kubelet registered the driver', async () => registration.statuses.some((s) => s.pluginRegistered), 30_000, 100);
  return registration;
}

/**
 * A `launcher` (CreateKubeletOptions) that runs the kubelet in a mount namespace of its own in which
 * `file` is bind-mounted over `hostPath` (`unshare -m`, private propagation): the kubelet reads and
 * writes the host path it always does and sees the test's file.
 */
export const bindOver = (file: string, hostPath: string): string[] => [
  'unshare',
  '-m',
  '--propagation',
  'private',
  'sh',
  '-c',
  `mount --bind "${file}" "${hostPath}" && exec "$@"`,
  'sh',
];
