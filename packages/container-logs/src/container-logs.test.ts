import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { FakeClock } from '@kubelet-ts/common/testing';
import { FakeRuntimeService } from '@kubelet-ts/cri-client/testing';
import { createCriContainerLocator, pipeLogs, previousLogPath, streamContainerLogs } from './container-logs.js';
import { ContainerLogsError } from './errors.js';
import { parsePodLogOptions, podLogOptionsFromQuery } from './options.js';
import { createFakeLocator, numberedLines, writeCriLog } from './testing/index.js';

const T0 = Date.UTC(2026, 0, 1);
let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'container-logs-stream-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** A pod with two attempts of container "app" (0 exited, 1 running), labelled as the kubelet does. */
async function podWithRestart(clock: FakeClock): Promise<{ runtime: FakeRuntimeService; first: string; second: string }> {
  const runtime = new FakeRuntimeService({ clock });
  const { podSandboxId } = await runtime.runPodSandbox({
    config: { metadata: { name: 'web', uid: 'u1', namespace: 'prod' }, logDirectory: dir },
  });
  const labels = { 'io.kubernetes.pod.name': 'web', 'io.kubernetes.pod.namespace': 'prod', 'io.kubernetes.container.name': 'app' };
  const ids: string[] = [];
  for (const attempt of [0, 1]) {
    const { containerId } = await runtime.createContainer({
      podSandboxId,
      config: { metadata: { name: 'app', attempt }, image: { image: 'busybox' }, logPath: `app/${attempt}.log`, labels },
    });
    await runtime.startContainer({ containerId });
    if (attempt === 0) runtime.exitContainer(containerId, 1);
    ids.push(containerId);
    await clock.advance(1_000);
  }
  await fs.mkdir(path.join(dir, 'app'));
  await writeCriLog(path.join(dir, 'app/0.log'), ['first attempt']);
  await writeCriLog(path.join(dir, 'app/1.log'), numberedLines(1, 3));
  return { runtime, first: ids[0] ?? '', second: ids[1] ?? '' };
}

async function text(chunks: AsyncIterable<{ data: Buffer }>): Promise<string> {
  const out: Buffer[] = [];
  for await (const c of chunks) out.push(c.data);
  return Buffer.concat(out).toString();
}

describe('streamContainerLogs', () => {
  it('finds the current and the previous container through CRI labels and reads their logs', async () => {
    const clock = new FakeClock(T0);
    const { runtime } = await podWithRestart(clock);
    const locate = createCriContainerLocator(runtime);
    const base = { namespace: 'prod', pod: 'web', container: 'app', locate, runtime, clock };
    expect(await text(await streamContainerLogs({ ...base, options: { tailLines: 2 } }))).toBe('line 2\nline 3\n');
    expect(await text(await streamContainerLogs({ ...base, options: { previous: true } }))).toBe('first attempt\n');
  });

  it('rejects with NOT_FOUND before streaming when the container or its previous instance does not exist', async () => {
    const clock = new FakeClock(T0);
    const { runtime, first } = await podWithRestart(clock);
    const locate = createFakeLocator([
      { namespace: 'prod', pod: 'web', container: 'app', previous: false, target: { containerId: first } },
    ]);
    const base = { namespace: 'prod', pod: 'web', locate, runtime, clock };
    await expect(streamContainerLogs({ ...base, container: 'nope', options: {} })).rejects.toThrow(
      'container "nope" in pod "prod/web" not found',
    );
    const previous = streamContainerLogs({ ...base, container: 'app', options: { previous: true } });
    await expect(previous).rejects.toThrow('previous terminated container "app" in pod "prod/web" not found');
    expect(ContainerLogsError.is(await previous.catch((e: unknown) => e), 'NOT_FOUND')).toBe(true);
    expect(locate.requests.at(-1)).toEqual({ namespace: 'prod', pod: 'web', container: 'app', previous: true });
    await runtime.removeContainer({ containerId: first });
    const gone = await streamContainerLogs({ ...base, container: 'app', options: {} }).catch((e: unknown) => e);
    expect(ContainerLogsError.is(gone, 'NOT_FOUND')).toBe(true);
  });

  it('uses a log path the locator gives without asking CRI', async () => {
    const clock = new FakeClock(T0);
    const runtime = new FakeRuntimeService({ clock });
    const logPath = path.join(dir, 'x.log');
    await writeCriLog(logPath, ['direct']);
    const locate = createFakeLocator([
      { namespace: 'a', pod: 'b', container: 'c', previous: false, target: { containerId: 'abc', logPath } },
    ]);
    expect(await text(await streamContainerLogs({ namespace: 'a', pod: 'b', container: 'c', options: {}, locate, runtime, clock }))).toBe(
      'direct\n',
    );
    expect(runtime.calls).toEqual([]);
  });

  it('rejects invalid options with INVALID_OPTIONS naming the field', async () => {
    const runtime = new FakeRuntimeService();
    const err = await streamContainerLogs({
      namespace: 'a',
      pod: 'b',
      container: 'c',
      options: { tailLines: -1 },
      locate: createFakeLocator([]),
      runtime,
    }).catch((e: unknown) => e);
    expect(ContainerLogsError.is(err) && err.code).toBe('INVALID_OPTIONS');
    expect((err as Error).message).toContain('tailLines: must be greater than or equal to 0');
  });
});

describe('parsePodLogOptions', () => {
  it.each([
    [{ limitBytes: 0 }, 'limitBytes: must be greater than 0'],
    [{ sinceSeconds: 0 }, 'sinceSeconds: must be greater than 0'],
    [{ sinceSeconds: 1, sinceTime: '2026-01-01T00:00:00Z' }, 'at most one of `sinceTime` or `sinceSeconds`'],
    [{ sinceTime: 'yesterday' }, 'sinceTime: must be an RFC3339 time'],
    [{ tailLines: 1, stream: 'Stderr' }, 'mutually exclusive'],
    [{ tail: 1 }, 'tail'],
  ])('rejects %j', (input, message) => {
    expect(() => parsePodLogOptions(input)).toThrow(message);
  });

  it('accepts every upstream field', () => {
    const all = {
      container: 'c',
      follow: true,
      previous: false,
      sinceTime: '2026-01-01T00:00:00Z',
      timestamps: true,
      tailLines: 3,
      limitBytes: 10,
      stream: 'All',
    };
    expect(parsePodLogOptions(all)).toEqual(all);
  });
});

describe('pipeLogs and previousLogPath', () => {
  it('writes both streams to one writable by default, or apart', async () => {
    const chunks = [
      { stream: 'stdout' as const, data: Buffer.from('o\n') },
      { stream: 'stderr' as const, data: Buffer.from('e\n') },
    ];
    async function* gen() {
      yield* chunks;
    }
    const one = new PassThrough();
    expect(await pipeLogs(gen(), one)).toBe(4);
    expect(one.read().toString()).toBe('o\ne\n');
    const out = new PassThrough();
    const err = new PassThrough();
    await pipeLogs(gen(), out, err);
    expect([out.read().toString(), err.read().toString()]).toEqual(['o\n', 'e\n']);
  });

  it('derives the previous attempt log as crictl does', () => {
    expect(previousLogPath('/var/log/pods/ns_p_u/app/3.log', 3)).toBe('/var/log/pods/ns_p_u/app/2.log');
    expect(previousLogPath('/var/log/pods/ns_p_u/app/0.log', 0)).toBeUndefined();
  });
});

describe('podLogOptionsFromQuery', () => {
  it('reads what the API server forwards for kubectl logs flags, booleans as Go parses them', () => {
    const query = new URLSearchParams(
      'follow=true&previous=0&timestamps=T&tailLines=10&limitBytes=500&sinceTime=2026-01-01T00:00:00Z&pretty=1',
    );
    expect(podLogOptionsFromQuery(query)).toEqual({
      follow: true,
      previous: false,
      timestamps: true,
      tailLines: 10,
      limitBytes: 500,
      sinceTime: '2026-01-01T00:00:00Z',
    });
  });

  it.each([
    ['follow=yes', 'follow: "yes" is not a boolean'],
    ['tailLines=ten', 'tailLines: "ten" is not an integer'],
    ['tailLines=-1', 'tailLines: must be greater than or equal to 0'],
    ['sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z', 'at most one of'],
  ])('refuses %s naming the parameter', (q, message) => {
    expect(() => podLogOptionsFromQuery(new URLSearchParams(q))).toThrow(message);
  });
});
