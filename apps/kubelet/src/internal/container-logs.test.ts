import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FakeClock, RecordingLogger } from '@kubelet-ts/common/testing';
import { FakeRuntimeService } from '@kubelet-ts/cri-client/testing';
import { createKubeletContainerLogManager } from './container-logs.js';

const defaults = { containerLogMaxSize: '10Mi', containerLogMaxFiles: 5, containerLogMaxWorkers: 1, containerLogMonitorInterval: '10s' };

describe('createKubeletContainerLogManager', () => {
  it('rotates at containerLogMaxSize given as a quantity (1Ki = 1024 bytes)', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'kubelet-logs-'));
    try {
      const clock = new FakeClock();
      const runtime = new FakeRuntimeService({ clock });
      const { podSandboxId } = await runtime.runPodSandbox({
        config: { metadata: { name: 'p', uid: 'u', namespace: 'n' }, logDirectory: dir },
      });
      const { containerId } = await runtime.createContainer({
        podSandboxId,
        config: { metadata: { name: 'c' }, image: { image: 'busybox' }, logPath: '0.log' },
      });
      await runtime.startContainer({ containerId });
      await fs.writeFile(path.join(dir, '0.log'), Buffer.alloc(1023));
      const manager = createKubeletContainerLogManager({
        config: { ...defaults, containerLogMaxSize: '1Ki', containerLogMaxFiles: 3, containerLogMonitorInterval: '3s' },
        runtime,
        clock,
        logger: new RecordingLogger(),
      });
      expect(await manager.rotateLogs()).toEqual([]);
      await fs.appendFile(path.join(dir, '0.log'), 'x');
      expect((await manager.rotateLogs())[0]?.rotatedTo).toMatch(/0\.log\.\d{8}-\d{6}$/);
      expect(runtime.callsOf('reopenContainerLog')).toHaveLength(1);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('rejects what upstream rejects: a fractional size, one file, an interval under 3s; a negative size disables rotation', () => {
    const runtime = new FakeRuntimeService();
    const make = (over: Partial<typeof defaults>) =>
      createKubeletContainerLogManager({
        config: { ...defaults, ...over },
        runtime,
        clock: new FakeClock(),
        logger: new RecordingLogger(),
      });
    expect(() => make({ containerLogMaxSize: '100m' })).toThrow('invalid max log size');
    expect(() => make({ containerLogMaxFiles: 1 })).toThrow('must be > 1');
    expect(() => make({ containerLogMonitorInterval: '2s' })).toThrow('at least 3s');
    expect(make({ containerLogMaxSize: '-1' }).enabled).toBe(false);
    expect(make({}).enabled).toBe(true);
  });
});
