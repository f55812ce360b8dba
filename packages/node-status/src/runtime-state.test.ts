import { FakeClock } from '@kubelet-ts/common/testing';
import type { Node } from '@kubelet-ts/api';
import { BASE_RUNTIME_SYNC_THRESHOLD_MS, createRuntimeState } from './runtime-state.js';
import { nodeFeatures, runtimeHandlers } from './setters.js';

const ready = [
  { type: 'RuntimeReady', status: true },
  { type: 'NetworkReady', status: true },
];

describe('runtime state (upstream runtimeState)', () => {
  it('reports the runtime not yet checked, then nothing once ready, then down after the threshold', async () => {
    const clock = new FakeClock();
    const state = createRuntimeState({ clock });
    expect(state.runtimeErrors()).toEqual(['container runtime status check may not have completed yet']);
    expect(state.everReady).toBe(false);
    state.setRuntimeStatus(ready);
    expect(state.runtimeErrors()).toEqual([]);
    expect(state.networkErrors()).toEqual([]);
    expect(state.everReady).toBe(true);
    await clock.advance(BASE_RUNTIME_SYNC_THRESHOLD_MS - 1);
    expect(state.runtimeErrors()).toEqual([]);
    await clock.advance(1);
    expect(state.runtimeErrors()).toEqual(['container runtime is down']);
  });

  it("words the runtime's and the network's conditions as Go prints them, <nil> when missing", () => {
    const state = createRuntimeState({ clock: new FakeClock() });
    state.setRuntimeStatus([
      { type: 'RuntimeReady', status: true },
      { type: 'NetworkReady', status: false, reason: 'NetworkPluginNotReady', message: 'cni plugin not initialized' },
    ]);
    expect(state.networkErrors()).toEqual([
      'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:cni plugin not initialized',
    ]);
    state.setRuntimeStatus([]);
    expect(state.runtimeErrors()).toContain('container runtime not ready: <nil>');
    expect(state.networkErrors()).toEqual(['container runtime network not ready: <nil>']);
  });

  it('adds failing health checks as "<name> is not healthy: <reason>"', () => {
    const state = createRuntimeState({ clock: new FakeClock() });
    state.setRuntimeStatus(ready);
    let healthy = true;
    state.addHealthCheck({
      name: 'PLEG',
      check: () => {
        if (!healthy) throw new Error('pleg was last seen active 3m0s ago; threshold is 3m0s');
      },
    });
    expect(state.runtimeErrors()).toEqual([]);
    healthy = false;
    expect(state.runtimeErrors()).toEqual(['PLEG is not healthy: pleg was last seen active 3m0s ago; threshold is 3m0s']);
  });
});

describe('runtime handlers and features', () => {
  it('keeps those of the last ready reply, and sets them on the node as upstream', async () => {
    const state = createRuntimeState({ clock: new FakeClock() });
    expect(state.runtimeFeatures()).toBeUndefined();
    state.setRuntimeStatus([{ type: 'RuntimeReady', status: false }], { runtimeHandlers: [{ name: 'ignored' }] });
    expect(state.runtimeHandlers()).toEqual([]);
    state.setRuntimeStatus(ready, {
      runtimeHandlers: [{ name: '', features: { recursiveReadOnlyMounts: true } }, { name: 'runc' }],
      features: { supplementalGroupsPolicy: true },
    });
    const node: Node = { metadata: { name: 'n' } };
    await runtimeHandlers(() => state.runtimeHandlers()).set(node);
    await nodeFeatures(() => state.runtimeFeatures()).set(node);
    expect(node.status?.runtimeHandlers).toEqual([
      { name: '', features: { recursiveReadOnlyMounts: true, userNamespaces: false } },
      { name: 'runc', features: { recursiveReadOnlyMounts: false, userNamespaces: false } },
    ]);
    expect(node.status?.features).toEqual({ supplementalGroupsPolicy: true });
    const before: Node = { metadata: { name: 'n' } };
    await nodeFeatures(() => undefined).set(before);
    expect(before.status?.features).toBeUndefined();
  });
});
