import { Readable } from 'node:stream';
import { FakeClock } from '@kubelet-ts/common/testing';
import { createKubeletHttpServer } from './http-server.js';
import type { KubeletHttpServer } from './http-server.js';
import {
  installDebugFlags,
  installDebugFlagsDisabled,
  installProfiling,
  installProfilingDisabled,
  type CpuProfiler,
  type ProfilingOptions,
} from './profiling-routes.js';
import { createRouter } from './router.js';

const open: KubeletHttpServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function start(install: (router: ReturnType<typeof createRouter>) => void): Promise<string> {
  const router = createRouter();
  install(router);
  const server = createKubeletHttpServer({ router });
  open.push(server);
  return `http://127.0.0.1:${(await server.listen('127.0.0.1', 0)).port}`;
}

/** Lets the server's I/O and promise callbacks run until `done` holds (no timers involved). */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !done(); i++) await new Promise((resolve) => setImmediate(resolve));
  if (!done()) throw new Error('condition never held');
}

/** A profiler that records its runs; `stop` resolves with a marker profile. */
function fakeProfiler(): CpuProfiler & { started: number; stopped: number } {
  const p = {
    started: 0,
    stopped: 0,
    start() {
      p.started++;
      return Promise.resolve({
        stop: () => {
          p.stopped++;
          return Promise.resolve({ fake: true });
        },
      });
    },
  };
  return p;
}

describe('/debug/pprof/', () => {
  const startProfiling = (options: ProfilingOptions) => start((router) => installProfiling(router, options));

  it('serves an index of what it offers, saying they are V8 formats and not pprof', async () => {
    const base = await startProfiling({});
    const res = await fetch(`${base}/debug/pprof/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const page = await res.text();
    expect(page).toContain('<title>/debug/pprof/</title>');
    for (const href of ['profile?seconds=30', 'heap', 'cmdline']) expect(page).toContain(`<a href="${href}">`);
    expect(page).toContain('not Go pprof');
    expect(page).toContain('.cpuprofile');
    expect(page).toContain('.heapsnapshot');
  });

  it('takes a real V8 CPU profile for the seconds asked, on the injected clock, one at a time', async () => {
    const clock = new FakeClock();
    const base = await startProfiling({ clock });
    const pending = fetch(`${base}/debug/pprof/profile?seconds=2`);
    await until(() => clock.pendingTimers === 1);
    const second = await fetch(`${base}/debug/pprof/profile?seconds=1`);
    expect([second.status, second.headers.get('x-go-pprof'), await second.text()]).toEqual([
      500,
      '1',
      'Could not enable CPU profiling: cpu profiling already in use\n',
    ]);
    await clock.advance(1_999);
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(1);
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="profile.cpuprofile"');
    const profile = (await res.json()) as { nodes: Array<{ callFrame: { functionName: string } }>; startTime: number; endTime: number };
    expect(profile.nodes[0]?.callFrame.functionName).toBe('(root)');
    expect(profile.endTime).toBeGreaterThanOrEqual(profile.startTime);
    // The profiler is free again.
    const third = fetch(`${base}/debug/pprof/profile?seconds=1`);
    await until(() => clock.pendingTimers === 1);
    await clock.advance(1_000);
    expect((await third).status).toBe(200);
  });

  it('reads seconds as Go does: 30 unless a positive integer, refused from the 4h write timeout on', async () => {
    const clock = new FakeClock();
    const profiler = fakeProfiler();
    const base = await startProfiling({ clock, cpuProfiler: profiler });
    for (const query of ['', '?seconds=0', '?seconds=-5', '?seconds=abc', '?seconds=1.5']) {
      const pending = fetch(`${base}/debug/pprof/profile${query}`);
      await until(() => clock.pendingTimers === 1);
      await clock.advance(29_999);
      expect([query, clock.pendingTimers]).toEqual([query, 1]);
      await clock.advance(1);
      expect([query, await (await pending).text()]).toEqual([query, '{"fake":true}']);
    }
    const long = await fetch(`${base}/debug/pprof/profile?seconds=14400`);
    expect([long.status, await long.text()]).toEqual([400, "profile duration exceeds server's WriteTimeout\n"]);
    const pending = fetch(`${base}/debug/pprof/profile?seconds=14399`);
    await until(() => clock.pendingTimers === 1);
    await clock.advance(14_399_000);
    expect((await pending).status).toBe(200);
    expect(profiler.started).toBe(6);
  });

  it('stops the profile when the client goes away', async () => {
    const clock = new FakeClock();
    const profiler = fakeProfiler();
    const base = await startProfiling({ clock, cpuProfiler: profiler });
    const abort = new AbortController();
    const pending = fetch(`${base}/debug/pprof/profile?seconds=60`, { signal: abort.signal }).catch(() => 'aborted');
    await until(() => clock.pendingTimers === 1);
    abort.abort();
    expect(await pending).toBe('aborted');
    await until(() => profiler.stopped === 1);
    expect(clock.pendingTimers).toBe(0);
  });

  it('answers 500 when the profiler cannot start', async () => {
    const base = await startProfiling({ cpuProfiler: { start: () => Promise.reject(new Error('inspector is not available')) } });
    const res = await fetch(`${base}/debug/pprof/profile?seconds=1`);
    expect([res.status, await res.text()]).toEqual([500, 'Could not enable CPU profiling: inspector is not available\n']);
  });

  it('streams a V8 heap snapshot', async () => {
    const base = await startProfiling({ heapSnapshot: () => Readable.from(['{"snapshot":', '{}}']) });
    const res = await fetch(`${base}/debug/pprof/heap`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="heap.heapsnapshot"');
    expect(await res.text()).toBe('{"snapshot":{}}');
    // The real one, from node:v8.
    const real = await fetch(`${await startProfiling({})}/debug/pprof/heap`);
    const reader = real.body?.getReader();
    const first = await reader?.read();
    expect(Buffer.from(first?.value ?? []).toString('utf8')).toMatch(/^\{"snapshot":\{"meta":/);
    await reader?.cancel();
  });

  it('serves the command line, 404 for any other profile, and only GET', async () => {
    const base = await startProfiling({});
    const cmdline = await fetch(`${base}/debug/pprof/cmdline`);
    expect(await cmdline.text()).toBe([process.execPath, ...process.execArgv, ...process.argv.slice(1)].join('\x00'));
    for (const name of ['goroutine', 'allocs', 'trace', 'symbol', 'heap/x']) {
      const res = await fetch(`${base}/debug/pprof/${name}`);
      expect([name, res.status, await res.text()]).toEqual([name, 404, 'Unknown profile\n']);
    }
    expect((await fetch(`${base}/debug/pprof/heap`, { method: 'POST' })).status).toBe(405);
  });

  it('answers 405 "profiling endpoint is disabled." everywhere below when off', async () => {
    const base = await start((router) => installProfilingDisabled(router));
    for (const [path, method] of [
      ['/debug/pprof/', 'GET'],
      ['/debug/pprof/profile', 'GET'],
      ['/debug/pprof/heap', 'POST'],
    ] as const) {
      const res = await fetch(`${base}${path}`, { method });
      expect([path, res.status, await res.text()]).toEqual([path, 405, 'profiling endpoint is disabled.\n']);
    }
  });
});

describe('/debug/flags/v', () => {
  const startFlags = () => {
    const levels: number[] = [];
    return start((router) =>
      installDebugFlags(router, {
        verbosity: {
          setVerbosity: (v) => {
            if (v === 13) throw new Error('unlucky verbosity');
            levels.push(v);
          },
        },
      }),
    ).then((base) => ({ base, levels }));
  };
  const put = (base: string, body: string) => fetch(`${base}/debug/flags/v`, { method: 'PUT', body });

  it('sets the verbosity from a PUT body and answers as GlogSetter does', async () => {
    const { base, levels } = await startFlags();
    const res = await put(base, '4');
    expect([res.status, res.headers.get('content-type'), await res.text()]).toEqual([
      200,
      'text/plain',
      'successfully set klog.logging.verbosity to 4\n',
    ]);
    expect(await (await put(base, '0')).text()).toBe('successfully set klog.logging.verbosity to 0\n');
    expect(levels).toEqual([4, 0]);
  });

  it("refuses what is not a uint32 with Go's parse errors, and the setter's own refusal", async () => {
    const { base, levels } = await startFlags();
    for (const [body, answer] of [
      ['abc', 'strconv.ParseUint: parsing "abc": invalid syntax'],
      ['4\n', 'strconv.ParseUint: parsing "4\\n": invalid syntax'],
      ['-1', 'strconv.ParseUint: parsing "-1": invalid syntax'],
      ['', 'strconv.ParseUint: parsing "": invalid syntax'],
      ['4294967296', 'strconv.ParseUint: parsing "4294967296": value out of range'],
      ['3000000000', 'failed set klog.logging.verbosity 3000000000: strconv.ParseInt: parsing "3000000000": value out of range'],
      ['13', 'unlucky verbosity'],
    ]) {
      const res = await put(base, body as string);
      expect([body, res.status, await res.text()]).toEqual([body, 400, `${answer}\n`]);
    }
    expect(levels).toEqual([]);
  });

  it('answers other methods 406 "unsupported http method"', async () => {
    const { base } = await startFlags();
    for (const method of ['GET', 'POST', 'DELETE']) {
      const res = await fetch(`${base}/debug/flags/v`, { method });
      expect([method, res.status, await res.text()]).toEqual([method, 406, 'unsupported http method\n']);
    }
  });

  it('answers 405 "flags endpoint is disabled." when off', async () => {
    const base = await start((router) => installDebugFlagsDisabled(router));
    const res = await put(base, '4');
    expect([res.status, await res.text()]).toEqual([405, 'flags endpoint is disabled.\n']);
  });
});
