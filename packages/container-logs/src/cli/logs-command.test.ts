import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FakeClock } from '@kubelet-ts/common/testing';
import { FakeRuntimeService } from '@kubelet-ts/cri-client/testing';
import { numberedLines, writeCriLog } from '../testing/index.js';
import { parseLogsArgs } from './args.js';
import { runLogsCommand } from './logs-command.js';

const T0 = Date.UTC(2026, 0, 1);
let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'kubelet-ts-logs-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function container(
  attempt: number,
  state: 'running' | 'exited' = 'exited',
): Promise<{ runtime: FakeRuntimeService; containerId: string; clock: FakeClock }> {
  const clock = new FakeClock(T0 + 60_000);
  const runtime = new FakeRuntimeService({ clock });
  const { podSandboxId } = await runtime.runPodSandbox({
    config: { metadata: { name: 'p', uid: 'u', namespace: 'n' }, logDirectory: dir },
  });
  const { containerId } = await runtime.createContainer({
    podSandboxId,
    config: { metadata: { name: 'app', attempt }, image: { image: 'busybox' }, logPath: `app/${attempt}.log` },
  });
  await runtime.startContainer({ containerId });
  if (state === 'exited') runtime.exitContainer(containerId, 0);
  await fs.mkdir(path.join(dir, 'app'), { recursive: true });
  return { runtime, containerId, clock };
}

async function run(
  argv: string[],
  c: { runtime: FakeRuntimeService; clock: FakeClock },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runLogsCommand(parseLogsArgs(argv), {
    runtime: c.runtime,
    clock: c.clock,
    stdout: { write: (d) => out.push(d.toString()) > 0 },
    stderr: { write: (d) => err.push(d.toString()) > 0 },
  });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

describe('kubelet-ts-logs logs', () => {
  it('prints the log through the CRI log path, rotated files first, stderr apart', async () => {
    const c = await container(0);
    const log = path.join(dir, 'app/0.log');
    await writeCriLog(`${log}.20260101-000000`, numberedLines(1, 2), { startMs: T0 });
    await writeCriLog(log, numberedLines(3, 4), { startMs: T0 + 10_000 });
    await writeCriLog(log, ['oops'], { append: true, stream: 'stderr', startMs: T0 + 20_000 });
    expect(await run(['logs', c.containerId.slice(0, 12)], c)).toEqual({
      code: 0,
      stdout: 'line 1\nline 2\nline 3\nline 4\n',
      stderr: 'oops\n',
    });
    expect((await run(['logs', '--tail', '2', '--timestamps', c.containerId], c)).stdout).toBe('2026-01-01T00:00:10.001000000Z line 4\n');
    expect(await run(['logs', '--since', '55s', c.containerId], c)).toEqual({ code: 0, stdout: 'line 3\nline 4\n', stderr: 'oops\n' });
    expect((await run(['logs', '--since-time', '2026-01-01T00:00:10Z', '--limit-bytes', '9', c.containerId], c)).stdout).toBe('line 3\nli');
  });

  it('--previous reads <attempt-1>.log, and fails for attempt 0', async () => {
    const c = await container(2);
    await writeCriLog(path.join(dir, 'app/1.log'), ['before the restart']);
    await writeCriLog(path.join(dir, 'app/2.log'), ['now']);
    expect((await run(['logs', '-p', c.containerId], c)).stdout).toBe('before the restart\n');
    const first = await container(0);
    await expect(run(['logs', '--previous', first.containerId], first)).rejects.toThrow('previous terminated container');
  });

  it('--follow ends when the container is not running; an unknown container is NOT_FOUND', async () => {
    const c = await container(0);
    await writeCriLog(path.join(dir, 'app/0.log'), ['only']);
    expect((await run(['logs', '-f', c.containerId], c)).stdout).toBe('only\n');
    await expect(run(['logs', 'nope'], c)).rejects.toThrow('container "nope" not found');
  });

  it('prints the usage with --help', async () => {
    const c = await container(0);
    expect((await run(['--help'], c)).stdout).toContain('Usage: kubelet-ts-logs logs');
  });
});
