import { CriError } from '@kubelet-ts/cri-client';
import { FakeRuntimeService } from '@kubelet-ts/cri-client/testing';
import { FakeClock, flushMicrotasks, RecordingLogger } from '@kubelet-ts/common/testing';
import { createRuntimeState } from '@kubelet-ts/node-status';
import { RUNTIME_STATUS_PERIOD_MS, runtimeStatusRunnable, waitForRuntime } from './runtime-ready.js';

describe('waitForRuntime', () => {
  it('logs a clear error naming the endpoint and retries with back-off until the runtime answers', async () => {
    const clock = new FakeClock();
    const logger = new RecordingLogger();
    const runtime = new FakeRuntimeService({ clock, runtimeName: 'fake' });
    const unavailable = new CriError('UNAVAILABLE', 'RuntimeService/Version: UNAVAILABLE: connect ENOENT /run/x.sock', {
      method: 'RuntimeService/Version',
    });
    runtime.injectError('version', unavailable, { times: 3 });
    const controller = new AbortController();
    const ready = waitForRuntime(runtime, { endpoint: 'unix:///run/x.sock', clock, logger, signal: controller.signal });
    await clock.advance(500 + 1000 + 2000);
    await expect(ready).resolves.toBe('fake');
    const errors = logger.records.filter((r) => r.level === 'error');
    expect(errors).toHaveLength(3);
    expect(errors[0]?.msg).toContain('unix:///run/x.sock');
    expect(errors.map((r) => r.msg.match(/retrying in ([\d.]+)s/)?.[1])).toEqual(['0.5', '1', '2']);
  });
});

describe('runtimeStatusRunnable', () => {
  it("hands the runtime's conditions to the runtime state every period, and logs a failed Status without touching it", async () => {
    const clock = new FakeClock();
    const logger = new RecordingLogger();
    const runtime = new FakeRuntimeService({ clock });
    const state = createRuntimeState({ clock });
    const controller = new AbortController();
    runtime.injectError('status', new CriError('UNAVAILABLE', 'RuntimeService/Status: UNAVAILABLE'), { times: 1 });
    const running = runtimeStatusRunnable(runtime, state, { clock, logger }).run(controller.signal);
    await flushMicrotasks();
    expect(logger.records.filter((r) => r.msg === 'Container runtime sanity check failed')).toHaveLength(1);
    expect(state.everReady).toBe(false);
    await clock.advance(RUNTIME_STATUS_PERIOD_MS);
    await flushMicrotasks();
    expect(state.everReady).toBe(true);
    expect(state.runtimeErrors()).toEqual([]);
    controller.abort();
    await running;
  });
});
