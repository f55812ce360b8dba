import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { FakeClock } from '@kubelet-ts/common/testing';
import { FakeRuntimeService } from '@kubelet-ts/cri-client/testing';
import { formatCriLogLine } from '@kubelet-ts/cri-client';
import { formatEpochMs } from './cri-log.js';
import { newLogOptions } from './options.js';
import type { PodLogOptions } from './options.js';
import { readLogs } from './reader.js';
import type { LogChunk, ReadLogsOptions } from './reader.js';
import { numberedLines, writeCriLog } from './testing/index.js';

const T0 = Date.UTC(2026, 0, 1);
let dir: string;
let log: string;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'container-logs-read-'));
  log = path.join(dir, '0.log');
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function collect(chunks: AsyncIterable<LogChunk>): Promise<{ all: string; stdout: string; stderr: string; chunks: LogChunk[] }> {
  const list: LogChunk[] = [];
  for await (const c of chunks) list.push(c);
  const join = (s?: string): string => Buffer.concat(list.filter((c) => s === undefined || c.stream === s).map((c) => c.data)).toString();
  return { all: join(), stdout: join('stdout'), stderr: join('stderr'), chunks: list };
}

function read(api: PodLogOptions = {}, extra: Partial<ReadLogsOptions> = {}, now = T0 + 3_600_000): AsyncGenerator<LogChunk> {
  return readLogs({ logPath: log, options: newLogOptions(api, now), ...extra });
}

const lines = (from: number, to: number): string =>
  numberedLines(from, to)
    .map((l) => `${l}\n`)
    .join('');

/** Three files: 1-10 gzipped, 11-20 rotated plain, 21-30 current; one second per line. */
async function threeFiles(): Promise<void> {
  await writeCriLog(`${log}.20260101-000010`, numberedLines(1, 10), { startMs: T0 + 1_000, stepMs: 1_000 });
  await fs.writeFile(`${log}.20260101-000010.gz`, gzipSync(await fs.readFile(`${log}.20260101-000010`)));
  await fs.rm(`${log}.20260101-000010`);
  await writeCriLog(`${log}.20260101-000020`, numberedLines(11, 20), { startMs: T0 + 11_000, stepMs: 1_000 });
  await writeCriLog(log, numberedLines(21, 30), { startMs: T0 + 21_000, stepMs: 1_000 });
}

describe('readLogs without follow', () => {
  it('reads rotated (.gz and plain) files oldest first, then the current one, skipping unused files', async () => {
    await threeFiles();
    await fs.writeFile(`${log}.20260101-000030.tmp`, 'garbage\n');
    await writeCriLog(`${log}.20251231-000000`, ['older-plain']); // a plain rotated file without a .gz is in use
    await writeCriLog(path.join(dir, '1.log'), ['another attempt']);
    const { all } = await collect(read());
    expect(all).toBe(`older-plain\n${lines(1, 30)}`);
  });

  it('skips a plain rotated file whose .gz exists (interrupted compression)', async () => {
    await threeFiles();
    await writeCriLog(`${log}.20260101-000010`, ['duplicate']);
    expect((await collect(read())).all).toBe(lines(1, 30));
  });

  it('tailLines counts lines across files; 0 gives nothing', async () => {
    await threeFiles();
    expect((await collect(read({ tailLines: 12 }))).all).toBe(lines(19, 30));
    expect((await collect(read({ tailLines: 100 }))).all).toBe(lines(1, 30));
    expect((await collect(read({ tailLines: 1 }))).all).toBe(lines(30, 30));
    expect((await collect(read({ tailLines: 7, stream: 'All' }))).all).toBe(lines(24, 30));
    expect((await collect(read({ tailLines: 0 }))).all).toBe('');
  });

  it('sinceTime and sinceSeconds skip older lines; the later bound wins', async () => {
    await threeFiles();
    expect((await collect(read({ sinceTime: formatEpochMs(T0 + 25_000) }))).all).toBe(lines(25, 30));
    expect((await collect(read({ sinceSeconds: 8 }, {}, T0 + 30_000))).all).toBe(lines(22, 30));
    expect((await collect(read({ sinceTime: new Date(T0 + 5_000), sinceSeconds: 8 }, {}, T0 + 30_000))).all).toBe(lines(22, 30));
  });

  it('timestamps prefixes RFC3339 with nine fraction digits', async () => {
    await writeCriLog(log, ['a', 'b'], { startMs: T0 + 1_500, stepMs: 1 });
    expect((await collect(read({ timestamps: true }))).all).toBe('2026-01-01T00:00:01.500000000Z a\n2026-01-01T00:00:01.501000000Z b\n');
  });

  it('limitBytes cuts the output, timestamps included, across streams', async () => {
    await writeCriLog(log, ['12345', 'abcde']);
    await writeCriLog(log, ['err'], { append: true, stream: 'stderr', startMs: T0 + 10 });
    expect((await collect(read({ limitBytes: 8 }))).all).toBe('12345\nab');
    const both = await collect(read({ limitBytes: 14 }));
    expect(both.stdout).toBe('12345\nabcde\n');
    expect(both.stderr).toBe('er');
    expect((await collect(read({ limitBytes: 5, timestamps: true }))).all).toBe('2026-');
  });

  it('keeps stdout and stderr apart and selects one stream', async () => {
    await writeCriLog(log, ['out1', 'out2']);
    await writeCriLog(log, ['err1'], { append: true, stream: 'stderr', startMs: T0 + 5 });
    const both = await collect(read());
    expect(both.stdout).toBe('out1\nout2\n');
    expect(both.stderr).toBe('err1\n');
    expect((await collect(read({ stream: 'Stderr' }))).all).toBe('err1\n');
    expect((await collect(read({ stream: 'Stdout' }))).all).toBe('out1\nout2\n');
  });

  it('joins partial lines, also across a rotated file and the current one, and skips malformed lines', async () => {
    const ts = (ms: number): string => formatEpochMs(T0 + ms);
    await fs.writeFile(
      `${log}.20260101-000001`,
      Buffer.concat([
        formatCriLogLine({ timestamp: ts(1), stream: 'stdout', partial: true, content: 'a long ' }),
        formatCriLogLine({ timestamp: ts(2), stream: 'stderr', content: 'interleaved' }),
        Buffer.from('not a cri line\n'),
        formatCriLogLine({ timestamp: ts(3), stream: 'stdout', partial: true, content: 'line ' }),
      ]),
    );
    await fs.writeFile(log, formatCriLogLine({ timestamp: ts(4), stream: 'stdout', content: 'ends here' }));
    const { stdout, stderr } = await collect(read({ timestamps: true }));
    expect(stdout).toBe(`${formatEpochMs(T0 + 1)} a long line ends here\n`);
    expect(stderr).toBe(`${formatEpochMs(T0 + 2)} interleaved\n`);
  });

  it('lets out an unfinished last line (container ended mid-line) without a newline', async () => {
    await fs.writeFile(
      log,
      Buffer.concat([
        formatCriLogLine({ timestamp: formatEpochMs(T0), stream: 'stdout', content: 'done' }),
        formatCriLogLine({ timestamp: formatEpochMs(T0 + 1), stream: 'stdout', partial: true, content: 'half' }),
      ]),
    );
    expect((await collect(read())).all).toBe('done\nhalf');
    expect((await collect(read({ tailLines: 1 }))).all).toBe('half');
  });

  it('reads the rotated files when the current one is missing, and only the current one with includeRotated false', async () => {
    await threeFiles();
    expect((await collect(read({}, { includeRotated: false }))).all).toBe(lines(21, 30));
    await fs.rm(log);
    expect((await collect(read())).all).toBe(lines(1, 20));
  });
});

describe('readLogs with follow', () => {
  async function runningContainer(clock: FakeClock): Promise<{ runtime: FakeRuntimeService; containerId: string }> {
    const runtime = new FakeRuntimeService({ clock });
    const { podSandboxId } = await runtime.runPodSandbox({
      config: { metadata: { name: 'p', uid: 'u', namespace: 'n' }, logDirectory: dir },
    });
    const { containerId } = await runtime.createContainer({
      podSandboxId,
      config: { metadata: { name: 'c' }, image: { image: 'busybox' }, logPath: '0.log' },
    });
    await runtime.startContainer({ containerId });
    return { runtime, containerId };
  }

  /**
   * Lets real file I/O finish until the follower sleeps on the fake clock. Bounded by real time, not by
   * event-loop turns: on a loaded machine the file system's thread pool takes many turns to answer.
   */
  async function untilSleeping(clock: FakeClock): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (clock.pendingTimers === 0 && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
    expect(clock.pendingTimers).toBeGreaterThan(0);
  }

  function consume(chunks: AsyncIterable<LogChunk>): { text: () => string; done: Promise<void> } {
    const got: Buffer[] = [];
    const done = (async () => {
      for await (const c of chunks) got.push(c.data);
    })();
    return { text: () => Buffer.concat(got).toString(), done };
  }

  it('follows new lines through a rotation (rename + new file) and stops when the container exits', async () => {
    const clock = new FakeClock(T0 + 100_000);
    const { runtime, containerId } = await runningContainer(clock);
    await writeCriLog(`${log}.20260101-000001`, numberedLines(1, 3));
    await writeCriLog(log, numberedLines(4, 5));
    const reader = consume(read({ follow: true }, { runtime, containerId, clock, pollIntervalMs: 100 }));
    await untilSleeping(clock);
    expect(reader.text()).toBe(lines(1, 5));

    await writeCriLog(log, numberedLines(6, 7), { append: true });
    await clock.advance(100);
    await untilSleeping(clock);
    expect(reader.text()).toBe(lines(1, 7));

    // Rotation as the manager does it: lines land in the old file up to the reopen, then in a new file.
    await fs.rename(log, `${log}.20260101-000100`);
    await writeCriLog(`${log}.20260101-000100`, numberedLines(8, 9), { append: true });
    await writeCriLog(log, numberedLines(10, 11));
    await clock.advance(100);
    await untilSleeping(clock);
    expect(reader.text()).toBe(lines(1, 11));

    await writeCriLog(log, numberedLines(12, 12), { append: true });
    runtime.exitContainer(containerId, 0);
    await clock.advance(100);
    await reader.done;
    expect(reader.text()).toBe(lines(1, 12));
    expect(runtime.callsOf('containerStatus').length).toBeGreaterThan(0);
  });

  it('with tailLines starts from the last lines, then follows', async () => {
    const clock = new FakeClock(T0 + 100_000);
    const { runtime, containerId } = await runningContainer(clock);
    await writeCriLog(log, numberedLines(1, 10));
    const reader = consume(read({ follow: true, tailLines: 2 }, { runtime, containerId, clock }));
    await untilSleeping(clock);
    expect(reader.text()).toBe(lines(9, 10));
    await writeCriLog(log, numberedLines(11, 11), { append: true });
    runtime.exitContainer(containerId, 1);
    await clock.advance(250);
    await reader.done;
    expect(reader.text()).toBe(lines(9, 11));
  });

  it('with tailLines 0 prints only new lines', async () => {
    const clock = new FakeClock(T0 + 100_000);
    const { runtime, containerId } = await runningContainer(clock);
    await writeCriLog(log, numberedLines(1, 10));
    const reader = consume(read({ follow: true, tailLines: 0 }, { runtime, containerId, clock }));
    await untilSleeping(clock);
    expect(reader.text()).toBe('');
    await writeCriLog(log, numberedLines(11, 12), { append: true });
    runtime.exitContainer(containerId, 0);
    await clock.advance(250);
    await reader.done;
    expect(reader.text()).toBe(lines(11, 12));
  });

  it('waits for a log that does not exist yet, and ends when the signal aborts', async () => {
    const clock = new FakeClock(T0);
    const { runtime, containerId } = await runningContainer(clock);
    const controller = new AbortController();
    const reader = consume(read({ follow: true }, { runtime, containerId, clock, signal: controller.signal }));
    await untilSleeping(clock);
    await writeCriLog(log, ['hello']);
    await clock.advance(250);
    await untilSleeping(clock);
    expect(reader.text()).toBe('hello\n');
    controller.abort();
    await reader.done;
  });

  it('ends at once for a container that is not running (after reading everything)', async () => {
    const clock = new FakeClock(T0);
    const { runtime, containerId } = await runningContainer(clock);
    runtime.exitContainer(containerId, 0);
    await writeCriLog(log, numberedLines(1, 3));
    expect((await collect(read({ follow: true }, { runtime, containerId, clock }))).all).toBe(lines(1, 3));
    await runtime.removeContainer({ containerId });
    expect((await collect(read({ follow: true, tailLines: 1 }, { runtime, containerId, clock }))).all).toBe(lines(3, 3));
  });
});
