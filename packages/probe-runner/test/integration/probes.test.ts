/**
 * Probes against the real containerd of scripts/test-runtime.sh: exec probes through CRI ExecSync
 * (success, failure with output, timeout), httpGet and tcpSocket probes to a pod IP, and a probe
 * manager driving a readiness probe end to end.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Pod, PodStatus } from '@kubelet-ts/api';
import { newPod } from '@kubelet-ts/api/testing';
import { createCriClient } from '@kubelet-ts/cri-client';
import type { CriClient, PodSandboxConfig } from '@kubelet-ts/cri-client';
import { createCriExecFn, createProbeManager, createProber } from '../../src/index.js';
import type { ProbeResultChange, ProbeTarget } from '../../src/index.js';

function env(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set: start the runtime with bash scripts/test-runtime.sh up`);
  return value;
}

async function waitFor<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

let client: CriClient;
let sandboxId = '';
let execContainerId = '';
let podIP = '';
const uid = randomUUID();
const name = `probe-runner-${uid.slice(0, 8)}`;
const logDirectory = path.join(env('KUBELET_TS_POD_LOGS_DIR'), `kts-test_${name}_${uid}`);
const cgroupParent = `${env('KUBELET_TS_CGROUP_ROOT')}/pod${uid}`;

beforeAll(async () => {
  client = createCriClient({ endpoint: env('KUBELET_TS_CRI_ENDPOINT') });
  fs.mkdirSync(logDirectory, { recursive: true });
  const config: PodSandboxConfig = {
    metadata: { name, uid, namespace: 'kts-test', attempt: 0 },
    hostname: name,
    logDirectory,
    labels: { 'io.kubernetes.pod.uid': uid, 'kubelet-ts.test/suite': 'probe-runner' },
    linux: { cgroupParent, securityContext: { namespaceOptions: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' } } },
  };
  ({ podSandboxId: sandboxId } = await client.runtime.runPodSandbox({ config }));
  podIP = (await client.runtime.podSandboxStatus({ podSandboxId: sandboxId })).status?.network?.ip ?? '';
  const start = async (container: string, image: string, command: string[]): Promise<string> => {
    const { containerId } = await client.runtime.createContainer({
      podSandboxId: sandboxId,
      config: { metadata: { name: container, attempt: 0 }, image: { image }, command, logPath: `${container}.log` },
      sandboxConfig: config,
    });
    await client.runtime.startContainer({ containerId });
    return containerId;
  };
  execContainerId = await start('app', env('KUBELET_TS_BUSYBOX_IMAGE'), ['sleep', '3600']);
  await start('web', env('KUBELET_TS_HTTP_IMAGE'), ['/http-echo']);
});

afterAll(async () => {
  if (sandboxId !== '') {
    await client.runtime.stopPodSandbox({ podSandboxId: sandboxId }, { ignoreNotFound: true });
    const { containers } = await client.runtime.listContainers({ filter: { podSandboxId: sandboxId } });
    for (const c of containers) await client.runtime.removeContainer({ containerId: c.id }, { ignoreNotFound: true });
    await client.runtime.removePodSandbox({ podSandboxId: sandboxId }, { ignoreNotFound: true });
  }
  client.close();
  fs.rmSync(logDirectory, { recursive: true, force: true });
  for (const controller of fs.readdirSync('/sys/fs/cgroup')) {
    const dir = path.join('/sys/fs/cgroup', controller, cgroupParent);
    if (!fs.existsSync(dir)) continue;
    for (const child of fs.readdirSync(dir, { withFileTypes: true })) if (child.isDirectory()) fs.rmdirSync(path.join(dir, child.name));
    fs.rmdirSync(dir);
  }
});

function target(pod: Pod, containerId: string): ProbeTarget {
  const container = pod.spec.containers[0];
  if (container === undefined) throw new Error('no container');
  return { probeType: 'liveness', pod, container, containerId, podIP };
}

const signal = new AbortController().signal;

test('exec probes through CRI ExecSync: success, failure with the output, and a timeout that counts as a failure', async () => {
  const prober = createProber({ exec: createCriExecFn(client.runtime) });
  const exec = (command: string[], timeoutSeconds = 2) =>
    prober(target(newPod({ containers: [{ name: 'app', livenessProbe: { exec: { command }, timeoutSeconds } }] }), execContainerId), signal);

  expect(await exec(['true'])).toEqual({ result: 'success', output: '' });
  expect(await exec(['sh', '-c', 'echo out; echo err >&2; exit 3'])).toEqual({ result: 'failure', output: 'out\nerr\n' });
  const started = Date.now();
  expect(await exec(['sleep', '5'], 1)).toEqual({ result: 'failure', output: 'command "sleep 5" timed out' });
  const tookMs = Date.now() - started;
  process.stdout.write(`exec probe timeout (1 s) answered after ${tookMs} ms\n`);
  expect(tookMs).toBeLessThan(4_000);
});

test('httpGet and tcpSocket probes reach the pod IP', async () => {
  expect(podIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
  const prober = createProber({ exec: createCriExecFn(client.runtime) });
  const web = (probe: Pod['spec']['containers'][number]['livenessProbe']) =>
    prober(target(newPod({ containers: [{ name: 'web', ports: [{ name: 'http', containerPort: 8080 }], livenessProbe: probe }] }), ''), signal);
  await waitFor('http-echo answering', async () => ((await web({ tcpSocket: { port: 'http' }, timeoutSeconds: 1 })).result === 'success' ? true : undefined), 15_000);
  expect(await web({ httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' }, timeoutSeconds: 1 })).toEqual({ result: 'success', output: 'ok' });
  expect((await web({ tcpSocket: { port: 9 }, timeoutSeconds: 1 })).result).toBe('failure');
});

test('a probe manager flips readiness when a file appears in the container', async () => {
  const manager = createProbeManager({ exec: createCriExecFn(client.runtime) });
  const changes: ProbeResultChange[] = [];
  manager.onResultChange((c) => changes.push(c));
  const pod = newPod({
    name,
    uid,
    containers: [{ name: 'app', readinessProbe: { exec: { command: ['test', '-f', '/tmp/ready'] }, periodSeconds: 1, failureThreshold: 1 } }],
  });
  const status: PodStatus = {
    phase: 'Running',
    podIP,
    containerStatuses: [
      { name: 'app', containerID: `containerd://${execContainerId}`, state: { running: { startedAt: new Date().toISOString() } }, ready: false, restartCount: 0, image: '', imageID: '' },
    ],
  };
  try {
    manager.updatePodStatus(pod, status);
    await waitFor('a few failed readiness runs', () => ((manager.workers()[0]?.runs ?? 0) >= 2 ? true : undefined), 10_000);
    expect(manager.readiness.isReady(execContainerId, { pod, containerName: 'app' })).toBe(false);
    await client.runtime.execSync({ containerId: execContainerId, cmd: ['touch', '/tmp/ready'], timeout: 5 });
    await waitFor('ready', () => (manager.readiness.isReady(execContainerId) ? true : undefined), 10_000);
    expect(changes.map((c) => [c.probeType, c.result])).toEqual([
      ['readiness', 'failure'],
      ['readiness', 'success'],
    ]);
    expect(manager.metrics().probeTotal.find((s) => s.labels.result === 'successful')?.labels).toMatchObject({ probe_type: 'Readiness', container: 'app', pod_uid: uid });
  } finally {
    await manager.stop();
  }
});
