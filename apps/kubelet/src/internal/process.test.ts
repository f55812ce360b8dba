import { RecordingLogger } from '@kubelet-ts/common/testing';
import { unlessStopped } from './process.js';

class Exited extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}
const exit = (code: number): never => {
  throw new Exited(code);
};

describe('unlessStopped', () => {
  it('exits 0 with a log line when the signal stopped the step (no unhandled rejection)', async () => {
    const controller = new AbortController();
    const logger = new RecordingLogger();
    const step = new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(controller.signal.reason)));
    controller.abort(new Error('received SIGTERM'));
    await expect(unlessStopped(step, controller.signal, logger, exit)).rejects.toEqual(new Exited(0));
    expect(logger.records.map((e) => [e.msg, e.fields['reason']])).toContainEqual([
      'kubelet-ts stopped before it started',
      'received SIGTERM',
    ]);
  });

  it('passes the value through, and any failure not caused by the signal', async () => {
    const signal = new AbortController().signal;
    const logger = new RecordingLogger();
    await expect(unlessStopped(Promise.resolve(7), signal, logger, exit)).resolves.toBe(7);
    await expect(unlessStopped(Promise.reject(new Error('bad kubeconfig')), signal, logger, exit)).rejects.toThrow('bad kubeconfig');
  });
});
