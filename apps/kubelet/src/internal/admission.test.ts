import type { Node } from '@kubelet-ts/api';
import { FakeClock, RecordingLogger } from '@kubelet-ts/common/testing';
import { createAdmissionNode } from './admission.js';

const node = (name: string): Node => ({ metadata: { name } });

describe('createAdmissionNode', () => {
  it('answers the API Node when the informer has it, and then never builds the local one (no repeated node events)', async () => {
    let builds = 0;
    const informer: { node?: Node } = {};
    const admission = createAdmissionNode({
      apiNode: () => informer.node,
      localNode: async () => {
        builds++;
        return node(`local-${builds}`);
      },
      refreshMs: 10_000,
      clock: new FakeClock(),
      logger: new RecordingLogger(),
    });
    await admission.refresh();
    expect(admission.get()?.metadata.name).toBe('local-1');
    informer.node = node('from-api');
    await admission.refresh();
    expect(builds).toBe(1);
    expect(admission.get()?.metadata.name).toBe('from-api');
  });

  it('standalone: rebuilds the local node every period and keeps the last one when a build fails', async () => {
    const clock = new FakeClock();
    const logger = new RecordingLogger();
    let builds = 0;
    const admission = createAdmissionNode({
      localNode: async () => {
        builds++;
        if (builds === 2) throw new Error('runtime away');
        return node(`local-${builds}`);
      },
      refreshMs: 10_000,
      clock,
      logger,
    });
    const controller = new AbortController();
    const running = admission.run(controller.signal);
    await clock.advance(0);
    expect(admission.get()?.metadata.name).toBe('local-1');
    await clock.advance(10_000);
    expect(admission.get()?.metadata.name).toBe('local-1');
    expect(logger.records.map((r) => r.msg)).toContain('Cannot build the node for pod admission, keeping the last one');
    await clock.advance(10_000);
    expect(admission.get()?.metadata.name).toBe('local-3');
    controller.abort();
    await running;
  });
});
