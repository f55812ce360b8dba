import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { RecordingLogger } from '@kubelet-ts/common/testing';
import { createCriClient, CriError } from '../../src/index.js';
import { Cleanup, env, runTestSandbox, testPod, waitFor } from './helpers.js';

const run = promisify(execFile);
const repoRoot = path.resolve(__dirname, '../../../..');

describe('CRI client resilience against the real containerd', () => {
  const cleanup = new Cleanup();

  afterEach(async () => {
    await cleanup.run();
  });

  it('fails fast with UNAVAILABLE naming the endpoint when the socket does not exist', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kts-nosock-'));
    cleanup.add(() => fs.rmSync(dir, { recursive: true, force: true }));
    const endpoint = `unix://${path.join(dir, 'containerd.sock')}`;
    const client = createCriClient({ endpoint });
    cleanup.add(() => client.close());
    const started = Date.now();
    const err = await client.runtime.listPodSandbox({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CriError);
    expect(err).toMatchObject({ code: 'UNAVAILABLE', method: 'runtime.v1.RuntimeService/ListPodSandbox' });
    expect((err as Error).message).toContain(endpoint);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('keeps working with the same client after containerd is killed and restarted (containers survive)', async () => {
    const logger = new RecordingLogger();
    const client = createCriClient({ endpoint: env('KUBELET_TS_CRI_ENDPOINT'), logger });
    cleanup.add(() => client.close());
    const pod = testPod('restart', { hostNetwork: true });
    const podSandboxId = await runTestSandbox(client.runtime, pod, cleanup);
    fs.mkdirSync(path.join(pod.logDirectory, 'sleeper'), { recursive: true });
    const { containerId } = await client.runtime.createContainer({
      podSandboxId,
      sandboxConfig: pod.config,
      config: {
        metadata: { name: 'sleeper' },
        image: { image: env('KUBELET_TS_BUSYBOX_IMAGE') },
        command: ['sleep', '3600'],
        logPath: 'sleeper/0.log',
      },
    });
    cleanup.add(() => client.runtime.removeContainer({ containerId }, { ignoreNotFound: true }));
    await client.runtime.startContainer({ containerId });

    // Bounded: the script waits for its lock while another test-runtime.sh command runs.
    await run('bash', [path.join(repoRoot, 'scripts/test-runtime.sh'), 'restart-containerd'], { cwd: repoRoot, timeout: 90_000 });
    const restartedAt = Date.now();

    const status = await waitFor(
      'ContainerStatus to succeed again through the same client',
      async () => (await client.runtime.containerStatus({ containerId })).status ?? undefined,
      30_000,
      100,
    );
    expect(Date.now() - restartedAt).toBeLessThan(10_000);
    expect(status.state).toBe('CONTAINER_RUNNING');
    // The client noticed the reconnect and checked the runtime's CRI version again.
    expect(logger.find('checking the runtime version again').length).toBeGreaterThan(0);
    const exec = await client.runtime.execSync({ containerId, cmd: ['echo', 'alive'], timeout: 10 });
    expect(exec.stdout.toString()).toBe('alive\n');
  });
});
