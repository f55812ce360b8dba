import { abortable } from './index.js';

describe('abortable', () => {
  it('answers the promise when the signal stays quiet, or when there is none', async () => {
    await expect(abortable(Promise.resolve(1), new AbortController().signal)).resolves.toBe(1);
    await expect(abortable(Promise.reject(new Error('failed')), new AbortController().signal)).rejects.toThrow('failed');
    await expect(abortable(Promise.resolve(2), undefined)).resolves.toBe(2);
  });

  it("rejects with the signal's reason as soon as it aborts, without waiting for the promise", async () => {
    const controller = new AbortController();
    const never = new Promise<number>(() => undefined);
    const waiting = abortable(never, controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
  });

  it('rejects at once for an aborted signal, with the given reason when there is one', async () => {
    const signal = AbortSignal.abort(new Error('stopped'));
    let started = false;
    const work = new Promise<number>((resolve) => {
      started = true;
      resolve(3);
    });
    await expect(abortable(work, signal, () => new RangeError('cancelled'))).rejects.toThrow(RangeError);
    expect(started).toBe(true);
    await expect(abortable(work, signal)).rejects.toThrow('stopped');
  });

  it('stops listening to the signal once the promise settled', async () => {
    const controller = new AbortController();
    const remove = jest.spyOn(controller.signal, 'removeEventListener');
    await abortable(Promise.resolve(1), controller.signal);
    expect(remove).toHaveBeenCalledWith('abort', expect.any(Function));
  });
});
