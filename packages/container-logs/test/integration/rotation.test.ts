/**
 * Issue 7 acceptance on the real containerd: a container printing numbered lines fast is rotated at the
 * configured size with CRI ReopenContainerLog, at most maxFiles files remain (older ones gzipped), and
 * neither a follower started before the first rotation nor a reader of the files afterwards loses or
 * doubles a line. The kubelet-ts-logs binary reads the same log through CRI.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { createCriClient } from '@kubelet-ts/cri-client';
import { SUITE_LABEL, runTestSandbox, runtimeEnv as env, testSandbox, useRuntimeSuite, waitFor } from '@kubelet-ts/test-support';
import { createContainerLogManager, newLogOptions, readLogs } from '../../src/index.js';
import type { LogChunk } from '../../src/index.js';

const execFileAsync = promisify(execFile);
const MAX_SIZE = 32 * 1024;
const MAX_FILES = 3;
const SUITE = { [SUITE_LABEL]: 'container-logs' };

const suite = useRuntimeSuite({ connect: () => createCriClient({ endpoint: env('KUBELET_TS_CRI_ENDPOINT') }) });

async function numberPrinter(): Promise<{ containerId: string; logPath: string }> {
  const { client, cleanup } = suite;
  const sandbox = testSandbox('logs', { suite: 'container-logs', hostNetwork: true });
  const podSandboxId = await runTestSandbox(client.runtime, sandbox, cleanup);
  // ~500 numbered lines every 20 ms: tens of KiB a tick, so the 32 KiB limit is crossed between checks.
  const script = "trap 'exit 0' TERM; i=0; while true; do seq $((i+1)) $((i+500)); i=$((i+500)); sleep 0.02; done";
  const { containerId } = await client.runtime.createContainer({
    podSandboxId,
    sandboxConfig: sandbox.config,
    config: {
      metadata: { name: 'printer' },
      image: { image: env('KUBELET_TS_BUSYBOX_IMAGE') },
      command: ['sh', '-c', script],
      logPath: 'printer/0.log',
      labels: SUITE,
    },
  });
  await client.runtime.startContainer({ containerId });
  return { containerId, logPath: path.join(sandbox.logDirectory, 'printer/0.log') };
}

/** The numbers in the text, checked to be consecutive; returns [first, last]. */
function consecutive(text: string): [number, number] {
  const numbers = text
    .split('\n')
    .filter((l) => l !== '')
    .map(Number);
  expect(numbers.length).toBeGreaterThan(0);
  const first = numbers[0] ?? 0;
  numbers.forEach((n, i) => {
    if (n !== first + i) throw new Error(`line ${i}: expected ${first + i}, got ${n} (a line was lost or doubled)`);
  });
  return [first, numbers.at(-1) ?? 0];
}

test('rotation at maxSize with ReopenContainerLog keeps maxFiles files and loses or doubles no line', async () => {
  const { containerId, logPath } = await numberPrinter();
  const manager = createContainerLogManager({
    runtime: suite.client.runtime,
    maxSize: MAX_SIZE,
    maxFiles: MAX_FILES,
    labelSelector: SUITE,
  });
  // A follower from the start sees every line exactly once, across every rotation.
  const followed: Buffer[] = [];
  const following = (async () => {
    const chunks: AsyncIterable<LogChunk> = readLogs({
      logPath,
      options: newLogOptions({ follow: true }, Date.now()),
      containerId,
      runtime: suite.client.runtime,
      pollIntervalMs: 20,
    });
    for await (const chunk of chunks) followed.push(chunk.data);
  })();

  const rotatedTo: string[] = [];
  for (let round = 0; round < 5; round++) {
    await waitFor(`log over ${MAX_SIZE} bytes`, () => fs.existsSync(logPath) && fs.statSync(logPath).size >= MAX_SIZE, 10_000, 20);
    const results = await manager.rotateLogs();
    const ours = results.find((r) => r.containerId === containerId);
    expect(ours?.error).toBeUndefined();
    rotatedTo.push(ours?.rotatedTo ?? '');
    const files = fs.readdirSync(path.dirname(logPath)).sort();
    expect(files.length).toBeLessThanOrEqual(MAX_FILES);
    // Two rotations may not share a second (the rotated name has second precision).
    await new Promise((resolve) => setTimeout(resolve, 1_050));
  }
  expect(new Set(rotatedTo).size).toBe(5);

  await suite.client.runtime.stopContainer({ containerId, timeout: 2 });
  await following;

  const files = fs.readdirSync(path.dirname(logPath)).sort();
  expect(files).toHaveLength(MAX_FILES);
  expect(files[0]).toBe('0.log');
  expect(files[1]).toMatch(/^0\.log\.\d{8}-\d{6}\.gz$/);
  expect(files[2]).toMatch(/^0\.log\.\d{8}-\d{6}$/);
  for (const f of files) expect(f.endsWith('.tmp')).toBe(false);

  const [firstFollowed, lastFollowed] = consecutive(Buffer.concat(followed).toString());
  expect(firstFollowed).toBe(1);

  const kept: Buffer[] = [];
  for await (const chunk of readLogs({ logPath, options: newLogOptions({}, Date.now()) })) kept.push(chunk.data);
  const [firstKept, lastKept] = consecutive(Buffer.concat(kept).toString());
  expect(firstKept).toBeGreaterThan(1); // the oldest rotated files were removed
  expect(lastKept).toBe(lastFollowed);

  // The CLI resolves the log path through CRI and reads the same files.
  const cli = path.resolve(__dirname, '../../dist/cli.js');
  const { stdout } = await execFileAsync(process.execPath, [cli, 'logs', '--tail', '3', containerId], {
    env: { ...process.env, KUBELET_TS_CRI_ENDPOINT: env('KUBELET_TS_CRI_ENDPOINT') },
  });
  expect(stdout).toBe(`${lastKept - 2}\n${lastKept - 1}\n${lastKept}\n`);
  await suite.client.runtime.removeContainer({ containerId });
});
