import { promises as fs, readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { FakeClock, RecordingLogger } from '@kubelet-ts/common/testing';
import { FakeRuntimeService } from '@kubelet-ts/cri-client/testing';
import { createContainerLogManager, newLogOptions, readLogs } from './index.js';
import { numberedLines, writeCriLog } from './testing/index.js';
import { readmeSnippet } from '@kubelet-ts/test-support';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('runs the usage snippet, which is the README block verbatim, on the fake runtime and a temp dir', async () => {
    const dir = await fs.mkdtemp(join(os.tmpdir(), 'container-logs-readme-'));
    const clock = new FakeClock();
    const logger = new RecordingLogger();
    const runtime = new FakeRuntimeService({ clock });
    const { podSandboxId } = await runtime.runPodSandbox({
      config: { metadata: { name: 'p', uid: 'u', namespace: 'n' }, logDirectory: dir },
    });
    const { containerId } = await runtime.createContainer({
      podSandboxId,
      config: { metadata: { name: 'c' }, image: { image: 'busybox' }, logPath: '0.log' },
    });
    await runtime.startContainer({ containerId });
    const logPath = join(dir, '0.log');
    await writeCriLog(`${logPath}.20251231-235959`, numberedLines(1, 3));
    await writeCriLog(logPath, numberedLines(4, 5), { startMs: Date.UTC(2026, 0, 1) + 3 });
    const controller = new AbortController();
    const signal = controller.signal;
    try {
      // README:begin
      // Rotation: every 10 s, each running container whose log reached 10Mi is rotated.
      const manager = createContainerLogManager({
        runtime, // a CRI RuntimeService (listContainers, containerStatus, reopenContainerLog)
        maxSize: 10 * 1024 * 1024, // containerLogMaxSize
        maxFiles: 5, // containerLogMaxFiles
        maxWorkers: 1, // containerLogMaxWorkers
        monitorIntervalMs: 10_000, // containerLogMonitorInterval
        clock,
        logger,
      });
      const rotating = manager.run(signal); // or one pass: await manager.rotateLogs()

      // Reading: the last 2 lines with timestamps, from the rotated files and the current one.
      const options = newLogOptions({ tailLines: 2, timestamps: true }, clock.now());
      let text = '';
      for await (const chunk of readLogs({ logPath, options, containerId, runtime })) text += chunk.data.toString();
      // text === '2026-01-01T00:00:00.003000000Z line 4\n2026-01-01T00:00:00.004000000Z line 5\n'
      // README:end

      expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));
      expect(text).toBe('2026-01-01T00:00:00.003000000Z line 4\n2026-01-01T00:00:00.004000000Z line 5\n');
      controller.abort();
      await rotating;
      expect(runtime.callsOf('listContainers').length).toBeGreaterThanOrEqual(1);
    } finally {
      controller.abort();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
