import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { FakeClock, RecordingLogger } from '@kubelet-ts/common/testing';
import { FakeRuntimeService } from '@kubelet-ts/cri-client/testing';
import { ContainerLogsError } from './errors.js';
import { createContainerLogManager } from './log-manager.js';
import type { ContainerLogManagerOptions } from './log-manager.js';

const START = Date.UTC(2026, 0, 1, 12, 0, 0);
const STAMP = /\.\d{8}-\d{6}$/;

interface Setup {
  dir: string;
  clock: FakeClock;
  runtime: FakeRuntimeService;
  logPath: string;
  containerId: string;
}

let dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })));
  dirs = [];
});

async function setup(name = 'app', state: 'running' | 'created' = 'running', existing?: Setup): Promise<Setup> {
  const dir = existing?.dir ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'container-logs-rot-')));
  if (existing === undefined) dirs.push(dir);
  const clock = existing?.clock ?? new FakeClock(START);
  const runtime = existing?.runtime ?? new FakeRuntimeService({ clock });
  const { podSandboxId } = await runtime.runPodSandbox({
    config: { metadata: { name: `pod-${name}`, uid: `uid-${name}`, namespace: 'ns' }, logDirectory: dir },
  });
  const { containerId } = await runtime.createContainer({
    podSandboxId,
    config: { metadata: { name }, image: { image: 'busybox' }, logPath: `${name}/0.log` },
  });
  if (state === 'running') await runtime.startContainer({ containerId });
  await fs.mkdir(path.join(dir, name), { recursive: true });
  return { dir, clock, runtime, logPath: path.join(dir, name, '0.log'), containerId };
}

function manager(s: Setup, options: Partial<ContainerLogManagerOptions> = {}) {
  return createContainerLogManager({ runtime: s.runtime, maxSize: 100, maxFiles: 3, clock: s.clock, ...options });
}

/** Lets real file I/O finish until `count` timers wait on the fake clock (bounded; no time passes). */
async function untilTimers(clock: FakeClock, count = 1): Promise<void> {
  // Bounded by real time, not event-loop turns: a loaded machine's file I/O takes many turns.
  for (const deadline = Date.now() + 10_000; clock.pendingTimers < count && Date.now() < deadline;)
    await new Promise((resolve) => setImmediate(resolve));
  expect(clock.pendingTimers).toBeGreaterThanOrEqual(count);
}

async function ls(dir: string): Promise<string[]> {
  return (await fs.readdir(dir)).sort();
}

describe('createContainerLogManager', () => {
  it.each([
    [{ maxFiles: 1 }, 'invalid MaxFiles 1, must be > 1'],
    [{ monitorIntervalMs: 2_999 }, 'at least 3s'],
    [{ maxWorkers: 0 }, 'must be >= 1'],
    [{ maxSize: Number.NaN }, 'invalid max log size'],
  ])('rejects %j as upstream validation does', async (bad, message) => {
    const s = await setup();
    try {
      manager(s, bad);
      throw new Error('accepted');
    } catch (err) {
      expect(ContainerLogsError.is(err) && err.code).toBe('INVALID_CONFIG');
      expect((err as Error).message).toContain(message);
    }
  });

  it('uses the upstream defaults: 10Mi, 5 files, 1 worker, 10s', async () => {
    const s = await setup();
    await fs.writeFile(s.logPath, Buffer.alloc(10 * 1024 * 1024 - 1));
    const m = createContainerLogManager({ runtime: s.runtime, clock: s.clock });
    expect(await m.rotateLogs()).toEqual([]);
    await fs.appendFile(s.logPath, 'x');
    expect((await m.rotateLogs())[0]?.rotatedTo).toMatch(STAMP);
  });
});

describe('rotation', () => {
  it('leaves a log under maxSize alone and reopens a missing one', async () => {
    const s = await setup();
    await fs.writeFile(s.logPath, 'x'.repeat(99));
    expect(await manager(s).rotateLogs()).toEqual([]);
    expect(s.runtime.callsOf('reopenContainerLog')).toHaveLength(0);
    await fs.rm(s.logPath);
    const results = await manager(s).rotateLogs();
    expect(s.runtime.callsOf('reopenContainerLog')).toHaveLength(1);
    // The fake runtime does not create the file: the manager reports it.
    expect(results[0]?.error).toBeDefined();
  });

  it('renames the current log to <path>.<YYYYMMDD-hhmmss> and calls ReopenContainerLog', async () => {
    const s = await setup();
    await fs.writeFile(s.logPath, 'x'.repeat(100));
    const [result] = await manager(s).rotateLogs();
    const d = new Date(START);
    const p = (n: number): string => String(n).padStart(2, '0');
    const stamp = `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
    expect(result?.rotatedTo).toBe(`${s.logPath}.${stamp}`);
    expect(await ls(path.dirname(s.logPath))).toEqual([`0.log.${stamp}`]);
    expect(s.runtime.callsOf('reopenContainerLog').map((c) => c.request)).toEqual([{ containerId: s.containerId }]);
  });

  it('keeps at most maxFiles: older rotated files gzipped, the latest rotated one plain, the oldest removed', async () => {
    const s = await setup();
    const m = manager(s, { maxFiles: 3 });
    const contents: string[] = [];
    for (let i = 0; i < 5; i++) {
      const text = `${String(i).repeat(100)}\n`;
      contents.push(text);
      await fs.writeFile(s.logPath, text); // the runtime's new file after the reopen
      const [result] = await m.rotateLogs();
      expect(result?.error).toBeUndefined();
      await s.clock.advance(10_000);
    }
    await fs.writeFile(s.logPath, 'current');
    const files = await ls(path.dirname(s.logPath));
    expect(files).toHaveLength(3);
    expect(files[0]).toMatch(/^0\.log$/);
    expect(files[1]).toMatch(/^0\.log\.\d{8}-\d{6}\.gz$/);
    expect(files[2]).toMatch(/^0\.log\.\d{8}-\d{6}$/);
    const dir = path.dirname(s.logPath);
    expect(gunzipSync(await fs.readFile(path.join(dir, files[1] ?? ''))).toString()).toBe(contents[3]);
    expect(await fs.readFile(path.join(dir, files[2] ?? ''), 'utf8')).toBe(contents[4]);
  });

  it('removes leftovers of interrupted rotations: .tmp files and plain files whose .gz exists', async () => {
    const s = await setup();
    const dir = path.dirname(s.logPath);
    await fs.writeFile(`${s.logPath}.20250101-000000`, 'compressed already');
    await fs.writeFile(`${s.logPath}.20250101-000000.gz`, 'gz');
    await fs.writeFile(`${s.logPath}.20250101-000010.tmp`, 'half');
    await fs.writeFile(s.logPath, 'x'.repeat(200));
    const [result] = await manager(s, { maxFiles: 4 }).rotateLogs();
    expect(result?.removed.sort()).toEqual([`${s.logPath}.20250101-000000`, `${s.logPath}.20250101-000010.tmp`]);
    const files = await ls(dir);
    expect(files).toContain('0.log.20250101-000000.gz');
    expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('renames the log back when ReopenContainerLog fails, and rotates on the next pass', async () => {
    const s = await setup();
    const logger = new RecordingLogger();
    await fs.writeFile(s.logPath, 'x'.repeat(150));
    s.runtime.injectError('reopenContainerLog', 'UNAVAILABLE');
    const m = manager(s, { logger });
    const [failed] = await m.rotateLogs();
    expect(ContainerLogsError.is(failed?.error) && (failed.error as { code: string }).code).toBe('RUNTIME');
    expect(await ls(path.dirname(s.logPath))).toEqual(['0.log']);
    expect(await fs.readFile(s.logPath, 'utf8')).toBe('x'.repeat(150));
    await s.clock.advance(1_000);
    const [ok] = await m.rotateLogs();
    expect(ok?.rotatedTo).toMatch(STAMP);
  });

  it('never overwrites a rotated file of the same second', async () => {
    const s = await setup();
    const m = manager(s);
    await fs.writeFile(s.logPath, 'first'.repeat(30));
    await m.rotateLogs();
    await fs.writeFile(s.logPath, 'second'.repeat(30));
    const [second] = await m.rotateLogs();
    expect((second?.error as Error).message).toContain('already exists');
    expect(await fs.readFile(s.logPath, 'utf8')).toBe('second'.repeat(30));
  });

  it('rotates only containers with the labels asked for, when asked', async () => {
    const s = await setup();
    await fs.writeFile(s.logPath, 'x'.repeat(500));
    expect(await manager(s, { labelSelector: { team: 'other' } }).rotateLogs()).toEqual([]);
    expect(s.runtime.callsOf('listContainers')[0]?.request).toEqual({
      filter: { state: { state: 'CONTAINER_RUNNING' }, labelSelector: { team: 'other' } },
    });
  });

  it('rotates only running containers', async () => {
    const s = await setup('created', 'created');
    await fs.writeFile(s.logPath, 'x'.repeat(500));
    expect(await manager(s).rotateLogs()).toEqual([]);
    expect(s.runtime.callsOf('containerStatus')).toHaveLength(0);
  });

  it('rotates up to maxWorkers containers in parallel', async () => {
    const a = await setup('a');
    const b = await setup('b', 'running', a);
    for (const s of [a, b]) await fs.writeFile(s.logPath, 'x'.repeat(500));
    a.runtime.setDelay('containerStatus', 1_000);
    const two = manager(a, { maxWorkers: 2 }).rotateLogs();
    await untilTimers(a.clock, 2);
    await a.clock.advance(1_000);
    expect((await two).map((r) => r.rotatedTo !== undefined)).toEqual([true, true]);

    for (const s of [a, b]) await fs.writeFile(s.logPath, 'x'.repeat(500));
    await a.clock.advance(2_000);
    let done = false;
    const one = manager(a, { maxWorkers: 1 })
      .rotateLogs()
      .then((r) => {
        done = true;
        return r;
      });
    await untilTimers(a.clock);
    await a.clock.advance(1_000);
    await untilTimers(a.clock);
    expect(done).toBe(false); // the single worker waits on the second container
    await a.clock.advance(1_000);
    expect(await one).toHaveLength(2);
  });

  it('asks ContainerStatus once per container and forgets containers no longer listed', async () => {
    const a = await setup('a');
    const b = await setup('b', 'running', a);
    for (const s of [a, b]) await fs.writeFile(s.logPath, 'small');
    const m = manager(a);
    const statusOf = (): string[] => a.runtime.callsOf('containerStatus').map((c) => (c.request as { containerId: string }).containerId);
    await m.rotateLogs();
    expect(statusOf().sort()).toEqual([a.containerId, b.containerId].sort());

    // A steady pass: ListContainers and file stats only, yet a grown log is still rotated.
    await fs.writeFile(a.logPath, 'x'.repeat(100));
    const [rotated] = await m.rotateLogs();
    expect(rotated?.rotatedTo).toMatch(STAMP);
    expect(statusOf()).toHaveLength(2);
    expect(a.runtime.callsOf('listContainers')).toHaveLength(2);
    await fs.writeFile(a.logPath, 'small'); // the runtime's new file after the reopen

    // b stops: its entry goes; listed again later, its path is asked for again (a's still is not).
    a.runtime.setContainerState(b.containerId, 'CONTAINER_EXITED');
    await m.rotateLogs();
    a.runtime.setContainerState(b.containerId, 'CONTAINER_RUNNING');
    await m.rotateLogs();
    expect(statusOf().slice(2)).toEqual([b.containerId]);
  });

  it('reopens a log missing under a cached path, and asks for the path again after a failure', async () => {
    const s = await setup();
    await fs.writeFile(s.logPath, 'small');
    const m = manager(s);
    await m.rotateLogs();
    await fs.rm(s.logPath);
    const [failed] = await m.rotateLogs();
    expect(s.runtime.callsOf('reopenContainerLog')).toHaveLength(1);
    expect(failed?.error).toBeDefined();
    expect(s.runtime.callsOf('containerStatus')).toHaveLength(1);
    await fs.writeFile(s.logPath, 'small');
    expect(await m.rotateLogs()).toEqual([]);
    expect(s.runtime.callsOf('containerStatus')).toHaveLength(2);
  });

  it('runs every monitor interval until the signal aborts', async () => {
    const s = await setup();
    await fs.writeFile(s.logPath, '');
    const m = manager(s, { monitorIntervalMs: 3_000 });
    const controller = new AbortController();
    const running = m.run(controller.signal);
    await untilTimers(s.clock);
    expect(s.runtime.callsOf('listContainers')).toHaveLength(1);
    await s.clock.advance(3_000);
    await untilTimers(s.clock);
    await s.clock.advance(3_000);
    await untilTimers(s.clock);
    expect(s.runtime.callsOf('listContainers')).toHaveLength(3);
    await fs.writeFile(s.logPath, 'x'.repeat(100));
    await s.clock.advance(3_000);
    await untilTimers(s.clock);
    expect(s.runtime.callsOf('reopenContainerLog')).toHaveLength(1);
    expect((await ls(path.dirname(s.logPath)))[0]).toMatch(STAMP);
    controller.abort();
    await running;
    await s.clock.advance(30_000);
    expect(s.runtime.callsOf('listContainers')).toHaveLength(4);
  });

  it('keeps running when ListContainers fails, logging the error', async () => {
    const s = await setup();
    const logger = new RecordingLogger();
    s.runtime.injectError('listContainers', 'UNAVAILABLE');
    const controller = new AbortController();
    const running = createContainerLogManager({ runtime: s.runtime, maxSize: 100, maxFiles: 2, clock: s.clock, logger }).run(
      controller.signal,
    );
    await untilTimers(s.clock);
    await s.clock.advance(10_000);
    await untilTimers(s.clock);
    controller.abort();
    await running;
    expect(s.runtime.callsOf('listContainers')).toHaveLength(2);
    expect(JSON.stringify(logger.records)).toContain('Failed to rotate container logs');
  });

  it('is disabled by a negative maxSize', async () => {
    const s = await setup();
    const m = manager(s, { maxSize: -1 });
    expect(m.enabled).toBe(false);
    await m.run(new AbortController().signal);
    expect(await m.rotateLogs()).toEqual([]);
    expect(s.runtime.calls).toHaveLength(s.runtime.calls.filter((c) => c.method !== 'listContainers').length);
  });

  it('clean removes the current and every rotated log of a container', async () => {
    const s = await setup();
    await fs.writeFile(s.logPath, 'a');
    await fs.writeFile(`${s.logPath}.20250101-000000.gz`, 'b');
    await fs.writeFile(`${s.logPath}.20250101-000001`, 'c');
    await fs.writeFile(path.join(path.dirname(s.logPath), '1.log'), 'other attempt');
    await manager(s).clean(s.containerId);
    expect(await ls(path.dirname(s.logPath))).toEqual(['1.log']);
  });
});
