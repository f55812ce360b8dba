import { FakeClock, flushMicrotasks, RecordingLogger } from '@kubelet-ts/common/testing';
import { supervise, until } from './supervise.js';
import type { Runnable } from './supervise.js';

/** A runnable that fails its first `failures` runs, then runs until aborted; records each run's signal. */
function flaky(failures: number): Runnable & { runs: AbortSignal[] } {
  const runs: AbortSignal[] = [];
  return {
    runs,
    run(signal) {
      runs.push(signal);
      if (runs.length <= failures) return Promise.reject(new Error('mountinfo unreadable'));
      return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    },
  };
}

describe('supervise', () => {
  it('runs until the signal aborts, with that signal', async () => {
    const controller = new AbortController();
    const runnable = flaky(0);
    const running = supervise('Volume manager', runnable, controller.signal, { clock: new FakeClock(), logger: new RecordingLogger() });
    await flushMicrotasks();
    expect(runnable.runs).toEqual([controller.signal]);
    controller.abort();
    await expect(running).resolves.toBeUndefined();
  });

  it('with restartMs, logs a failure and starts the runnable again after that long', async () => {
    const clock = new FakeClock();
    const logger = new RecordingLogger();
    const controller = new AbortController();
    const runnable = flaky(1);
    const running = supervise('Volume manager', runnable, controller.signal, { clock, logger, restartMs: 5_000 });
    await flushMicrotasks();
    expect(runnable.runs).toHaveLength(1);
    expect(logger.find('Volume manager failed; restarting it')[0]?.fields).toEqual({ err: 'mountinfo unreadable', retryAfterMs: 5_000 });
    await clock.advance(4_999);
    expect(runnable.runs).toHaveLength(1);
    await clock.advance(1);
    await flushMicrotasks();
    expect(runnable.runs).toHaveLength(2);
    controller.abort();
    await expect(running).resolves.toBeUndefined();
    expect(runnable.runs).toHaveLength(2);
  });

  it('without restartMs, logs the stop with its consequence and never rejects', async () => {
    const logger = new RecordingLogger();
    const runnable = flaky(1);
    await expect(
      supervise('Plugin watcher', runnable, new AbortController().signal, {
        clock: new FakeClock(),
        logger,
        consequence: 'CSI drivers will not register',
      }),
    ).resolves.toBeUndefined();
    await supervise('Container log manager', flaky(1), new AbortController().signal, { clock: new FakeClock(), logger });
    expect(logger.records.map((r) => [r.msg, r.fields.err])).toEqual([
      ['Plugin watcher stopped; CSI drivers will not register', 'mountinfo unreadable'],
      ['Container log manager stopped', 'mountinfo unreadable'],
    ]);
    expect(runnable.runs).toHaveLength(1);
  });

  it('starts only once its precondition holds, and not at all when the signal aborts first', async () => {
    const clock = new FakeClock();
    const controller = new AbortController();
    let ready = false;
    const runnable = flaky(0);
    const running = supervise('Eviction manager', runnable, controller.signal, {
      clock,
      logger: new RecordingLogger(),
      after: (signal) => until(() => ready, clock, signal),
    });
    await clock.advance(2_000);
    expect(runnable.runs).toHaveLength(0);
    ready = true;
    await clock.advance(500);
    await flushMicrotasks();
    expect(runnable.runs).toHaveLength(1);
    controller.abort();
    await running;

    const never = flaky(0);
    const aborted = new AbortController();
    const waiting = supervise('Eviction manager', never, aborted.signal, {
      clock,
      logger: new RecordingLogger(),
      after: (signal) => until(() => false, clock, signal),
    });
    aborted.abort();
    await expect(waiting).resolves.toBeUndefined();
    expect(never.runs).toHaveLength(0);
  });

  it('does not log a failure that comes from the shutdown itself', async () => {
    const logger = new RecordingLogger();
    const controller = new AbortController();
    const running = supervise(
      'Eviction manager',
      { run: (signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))) },
      controller.signal,
      { clock: new FakeClock(), logger },
    );
    controller.abort();
    await running;
    expect(logger.records).toEqual([]);
  });
});
