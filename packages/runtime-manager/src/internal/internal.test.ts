import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Container, Pod } from '@kubelet-ts/api';
import { FakeClock, RecordingMetrics, flushMicrotasks } from '@kubelet-ts/common/testing';
import { FakeRuntimeService } from '@kubelet-ts/cri-client/testing';
import { runLifecycleHandler } from './lifecycle.js';
import { parseCriLog, readLastLogLines } from './logs.js';
import { milliCpuToQuota, milliCpuToShares } from './resources.js';

describe('cpu conversions', () => {
  it.each([
    [0, 2],
    [1, 2],
    [2, 2],
    [250, 256],
    [1000, 1024],
    [300_000, 262_144],
  ])('milliCpuToShares(%d) = %d', (m, shares) => expect(milliCpuToShares(m)).toBe(shares));
  it.each([
    [0, 0],
    [1, 1000],
    [500, 50_000],
    [2000, 200_000],
  ])('milliCpuToQuota(%d) = %d', (m, quota) => expect(milliCpuToQuota(m, 100_000)).toBe(quota));
});

describe('CRI log reading', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'rm-logs-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('joins partial lines and drops the CRI framing', () => {
    expect(
      parseCriLog('2026-01-01T00:00:00Z stdout P ab\n2026-01-01T00:00:00Z stdout F cd\n2026-01-01T00:00:00Z stderr F \nbroken\n'),
    ).toEqual(['abcd\n', '\n']);
    // Tagged records ("P:x") and lines without a valid timestamp, as cri-client's parser reads them.
    expect(parseCriLog('2026-01-01T00:00:00Z stdout P:x ab\n2026-01-01T00:00:00Z stdout F:x cd\nyesterday stdout F ef\n')).toEqual([
      'abcd\n',
    ]);
    // Output that did not end in a newline (`echo -n DONE`) keeps none: the termination message is "DONE".
    expect(parseCriLog('2026-01-01T00:00:00Z stdout F a\n2026-01-01T00:00:00Z stdout P DONE\n')).toEqual(['a\n', 'DONE']);
  });

  it('keeps the last 80 lines, at most 2 KiB', async () => {
    const file = path.join(dir, '0.log');
    const lines = Array.from({ length: 100 }, (_, i) => `2026-01-01T00:00:00.000000000Z stdout F line-${i}`);
    await writeFile(file, `${lines.join('\n')}\n`);
    const tail = await readLastLogLines(file);
    expect(tail.split('\n').filter(Boolean)).toHaveLength(80);
    expect(tail.startsWith('line-20\n')).toBe(true);
    expect(tail.endsWith('line-99\n')).toBe(true);

    const long = Array.from({ length: 10 }, (_, i) => `2026-01-01T00:00:00Z stdout F ${String(i).repeat(500)}`);
    await writeFile(file, `${long.join('\n')}\n`);
    const cut = await readLastLogLines(file);
    expect(Buffer.byteLength(cut)).toBe(2048);
    expect(cut.endsWith(`${'9'.repeat(500)}\n`)).toBe(true);
    expect(await readLastLogLines(path.join(dir, 'missing.log'))).toBe('');
  });
});

describe('lifecycle handlers', () => {
  const pod: Pod = { metadata: { name: 'p', namespace: 'ns', uid: 'u' }, spec: { containers: [] } };
  const container: Container = { name: 'c', image: 'i', ports: [{ name: 'http', containerPort: 0 }] };

  it('httpGet goes to the pod IP on a named port with the headers; a refused connection fails with the upstream message', async () => {
    const seen: Array<{ url: string; header: string | undefined }> = [];
    const server = http.createServer((req, res) => {
      seen.push({ url: req.url ?? '', header: req.headers['x-hook'] as string | undefined });
      res.writeHead(500).end('ignored');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const deps = { runtimeService: new FakeRuntimeService(), clock: new FakeClock(), httpTimeoutMs: 2000 };
      const named: Container = { ...container, ports: [{ name: 'http', containerPort: port }] };
      const message = await runLifecycleHandler(
        deps,
        'id',
        pod,
        named,
        { httpGet: { path: 'hook', port: 'http', httpHeaders: [{ name: 'X-Hook', value: 'yes' }] } },
        '127.0.0.1',
      );
      // any HTTP answer counts as delivered, as upstream
      expect(message).toBe('');
      expect(seen).toEqual([{ url: '/hook', header: 'yes' }]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    const deps = { runtimeService: new FakeRuntimeService(), clock: new FakeClock(), httpTimeoutMs: 2000 };
    const failed = await runLifecycleHandler(deps, 'id', pod, container, { httpGet: { path: '/x', port } }, '127.0.0.1');
    expect(failed).toMatch(/^HTTP lifecycle hook \(\/x\) for Container "c" in Pod "p_ns\(u\)" failed - error: .*ECONNREFUSED/);
  });

  it('sleep waits on the clock; tcpSocket is not a valid hook', async () => {
    const clock = new FakeClock();
    const deps = { runtimeService: new FakeRuntimeService({ clock }), clock, httpTimeoutMs: 1000 };
    let done = false;
    const sleeping = runLifecycleHandler(deps, 'id', pod, container, { sleep: { seconds: 5 } }, '').then((m) => {
      done = true;
      return m;
    });
    await flushMicrotasks();
    await clock.advance(4999);
    expect(done).toBe(false);
    await clock.advance(1);
    expect(await sleeping).toBe('');
    expect(await runLifecycleHandler(deps, 'id', pod, container, { tcpSocket: { port: 80 } }, '')).toMatch(
      /^Cannot run handler: invalid handler/,
    );
  });

  it('counts a sleep hook cut short by its container stopping (kubelet_sleep_action_terminated_early_total)', async () => {
    const clock = new FakeClock();
    const metrics = new RecordingMetrics();
    const sleepTerminatedEarly = metrics.counter({ name: 'kubelet_sleep_action_terminated_early_total', help: 'x' });
    const deps = { runtimeService: new FakeRuntimeService({ clock }), clock, httpTimeoutMs: 1000, sleepTerminatedEarly };
    const finished = runLifecycleHandler(deps, 'id', pod, container, { sleep: { seconds: 1 } }, '');
    await clock.advance(1000);
    expect(await finished).toBe('');
    const controller = new AbortController();
    const cut = runLifecycleHandler(deps, 'id', pod, container, { sleep: { seconds: 5 } }, '', controller.signal);
    await clock.advance(1000);
    controller.abort(new Error('grace period over'));
    expect(await cut).toMatch(/^Sleep lifecycle hook \(5\) for Container "c"/);
    expect(metrics.value('kubelet_sleep_action_terminated_early_total')).toBe(1);
  });
});
