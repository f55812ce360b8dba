/**
 * Issue 7 acceptance through the real kubelet: with containerLogMaxSize 64Ki, containerLogMaxFiles 3 and
 * containerLogMonitorInterval 3s, a static pod printing numbered lines fast has its log rotated (CRI
 * ReopenContainerLog), keeps at most 3 files with the older ones gzipped, and the kept files hold
 * consecutive numbers: no line lost or doubled across rotations.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { newLogOptions, readLogs } from '@kubelet-ts/container-logs';
import { busyboxPod, createKubelet, criContainersOf, eventually, waitHealthy } from './harness.js';
import type { KubeletUnderTest } from './harness.js';

let kubelet: KubeletUnderTest;

beforeAll(async () => {
  // containerLogMonitorInterval has no flag upstream: config file lines.
  kubelet = await createKubelet('logs', {
    config: ['containerLogMaxSize: 64Ki', 'containerLogMaxFiles: 3', 'containerLogMonitorInterval: 3s'],
  });
  await kubelet.start();
  await waitHealthy(kubelet);
});

afterAll(async () => {
  await kubelet.cleanup();
});

function consecutive(text: string): { first: number; last: number } {
  const numbers = text
    .split('\n')
    .filter((l) => l !== '')
    .map(Number);
  const first = numbers[0] ?? Number.NaN;
  numbers.forEach((n, i) => {
    if (n !== first + i) throw new Error(`line ${i} of the kept logs: expected ${first + i}, got ${n} (a line was lost or doubled)`);
  });
  return { first, last: numbers.at(-1) ?? Number.NaN };
}

test('a container printing fast is rotated at 64Ki, keeps at most 3 files (older ones gzipped), and loses or doubles no line', async () => {
  // ~4000 numbered lines a second: several times 64Ki between two checks.
  const script = 'i=0; while true; do seq $((i+1)) $((i+200)); i=$((i+200)); sleep 0.05; done';
  await kubelet.writeManifest('printer.yaml', busyboxPod('printer', [{ name: 'printer', command: ['sh', '-c', script] }]));
  const containerId = await eventually(
    'printer running',
    async () => (await criContainersOf(kubelet, 'printer')).find((c) => c.state === 'CONTAINER_RUNNING')?.id,
    30_000,
  );
  const { status } = await kubelet.cri.runtime.containerStatus({ containerId });
  const logPath = status?.logPath ?? '';
  expect(logPath).toBe(
    path.join(
      kubelet.podLogsDir,
      `default_printer-${kubelet.nodeName}_${status?.labels['io.kubernetes.pod.uid'] ?? ''}`,
      'printer',
      '0.log',
    ),
  );

  // Watch the rotated names go by until four rotations happened.
  const seen = new Set<string>();
  await eventually(
    'four rotations',
    async () => {
      for (const name of await fs.readdir(path.dirname(logPath))) {
        const stamp = /^0\.log\.(\d{8}-\d{6})(\.gz)?$/.exec(name)?.[1];
        if (stamp !== undefined) seen.add(stamp);
      }
      return seen.size >= 4;
    },
    40_000,
    200,
  );
  // Stop rotating (the pod keeps running) so that the files hold still for the checks.
  await kubelet.stop();
  const files = (await fs.readdir(path.dirname(logPath))).sort();
  expect(files).toHaveLength(3);
  expect(files[0]).toBe('0.log');
  expect(files[1]).toMatch(/^0\.log\.\d{8}-\d{6}\.gz$/);
  expect(files[2]).toMatch(/^0\.log\.\d{8}-\d{6}$/);

  const chunks: Buffer[] = [];
  for await (const chunk of readLogs({ logPath, options: newLogOptions({}, Date.now()) })) chunks.push(chunk.data);
  const { first, last } = consecutive(Buffer.concat(chunks).toString());
  expect(first).toBeGreaterThan(1); // the oldest files were removed
  expect(last - first).toBeGreaterThan(1_000);
  expect(kubelet.output()).toContain('Rotated container log');
});
