/**
 * Probes against the real containerd of scripts/test-runtime.sh: exec probes through CRI ExecSync
 * (success, failure with output, timeout), httpGet and tcpSocket probes to a pod IP, and a probe
 * manager driving a readiness probe end to end.
 */
import type { Pod, PodStatus } from '@kubelet-ts/api';
import { newPod } from '@kubelet-ts/api/testing';
import { createCriClient } from '@kubelet-ts/cri-client';
import type { CriClient } from '@kubelet-ts/cri-client';
import { Cleanup, runTestSandbox, runtimeEnv as env, testSandbox, waitFor } from '@kubelet-ts/test-support';
import { createCriExecFn, createProbeManager, createProber } from '../../src/index.js';
import type { ProbeResultChange, ProbeTarget } from '../../src/index.js';

let client: CriClient;
let sandboxId = '';
let execContainerId = '';
let podIP = '';
// One sandbox for the file, removed after its last test.
const sandbox = testSandbox('probe-runner', { suite: 'probe-runner' });
const { uid, name } = sandbox;
const cleanup = new Cleanup();

beforeAll(async () => {
  client = createCriClient({ endpoint: env('KUBELET_TS_CRI_ENDPOINT') });
  sandboxId = await runTestSandbox(client.runtime, sandbox, cleanup);
  podIP = (await client.runtime.podSandboxStatus({ podSandboxId: sandboxId })).status?.network?.ip ?? '';
  const start = async (container: string, image: string, command: string[]): Promise<string> => {
    const { containerId } = await client.runtime.createContainer({
      podSandboxId: sandboxId,
      config: { metadata: { name: container, attempt: 0 }, image: { image }, command, logPath: `${container}.log` },
      sandboxConfig: sandbox.config,
    });
    await client.runtime.startContainer({ containerId });
    return containerId;
  };
  execContainerId = await start('app', env('KUBELET_TS_BUSYBOX_IMAGE'), ['sleep', '3600']);
  await start('web', env('KUBELET_TS_HTTP_IMAGE'), ['/http-echo']);
});

afterAll(async () => {
  try {
    await cleanup.run();
  } finally {
    client.close();
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
    prober(
      target(newPod({ containers: [{ name: 'app', livenessProbe: { exec: { command }, timeoutSeconds } }] }), execContainerId),
      signal,
    );

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
    prober(
      target(newPod({ containers: [{ name: 'web', ports: [{ name: 'http', containerPort: 8080 }], livenessProbe: probe }] }), ''),
      signal,
    );
  await waitFor(
    'http-echo answering',
    async () => ((await web({ tcpSocket: { port: 'http' }, timeoutSeconds: 1 })).result === 'success' ? true : undefined),
    15_000,
  );
  expect(await web({ httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' }, timeoutSeconds: 1 })).toEqual({
    result: 'success',
    output: 'ok',
  });
  expect((await web({ tcpSocket: { port: 9 }, timeoutSeconds: 1 })).result).toBe('failure');
});

test('a probe manager flips readiness when a file appears in the container', async () => {
  const manager = createProbeManager({ exec: createCriExecFn(client.runtime) });
  const changes: ProbeResultChange[] = [];
  manager.onResultChange((c) => changes.push(c));
  const pod = newPod({
    name,
    uid,
    containers: [
      { name: 'app', readinessProbe: { exec: { command: ['test', '-f', '/tmp/ready'] }, periodSeconds: 1, failureThreshold: 1 } },
    ],
  });
  const status: PodStatus = {
    phase: 'Running',
    podIP,
    containerStatuses: [
      {
        name: 'app',
        containerID: `containerd://${execContainerId}`,
        state: { running: { startedAt: new Date().toISOString() } },
        ready: false,
        restartCount: 0,
        image: '',
        imageID: '',
      },
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
    expect(manager.metrics().probeTotal.find((s) => s.labels.result === 'successful')?.labels).toMatchObject({
      probe_type: 'Readiness',
      container: 'app',
      pod_uid: uid,
    });
  } finally {
    await manager.stop();
  }
});
