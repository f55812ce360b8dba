import { nodeStatusHasChanged, semanticEqual } from './node-equality.js';

describe('nodeStatusHasChanged', () => {
  const ready = (status: string, heartbeat: string) => ({ type: 'Ready', status, lastHeartbeatTime: heartbeat, lastTransitionTime: 't0' });

  it('ignores heartbeat times and the order of conditions', () => {
    expect(
      nodeStatusHasChanged(
        { conditions: [ready('True', 'a'), { type: 'MemoryPressure', status: 'False' }] },
        { conditions: [{ type: 'MemoryPressure', status: 'False' }, ready('True', 'b')] },
      ),
    ).toBe(false);
    expect(nodeStatusHasChanged({ conditions: [ready('True', 'a')] }, { conditions: [ready('False', 'a')] })).toBe(true);
    expect(nodeStatusHasChanged({ conditions: [ready('True', 'a')] }, { conditions: [] })).toBe(true);
  });

  it('compares quantities by value and empty lists as absent, as Go semantic equality does', () => {
    expect(nodeStatusHasChanged({ capacity: { cpu: '1', memory: '1Gi' } }, { capacity: { cpu: '1000m', memory: '1073741824' } })).toBe(
      false,
    );
    expect(nodeStatusHasChanged({ capacity: { cpu: '1' } }, { capacity: { cpu: '2' } })).toBe(true);
    expect(nodeStatusHasChanged({ images: [] }, {})).toBe(false);
    expect(
      nodeStatusHasChanged({ addresses: [{ type: 'Hostname', address: 'a' }] }, { addresses: [{ type: 'Hostname', address: 'b' }] }),
    ).toBe(true);
    expect(semanticEqual({ a: undefined, b: {} }, {})).toBe(true);
  });
});
