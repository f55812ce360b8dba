import { quantityMilliValue, quantityValue } from './quantity.js';
import { nodeResourceList } from './node-resources.js';

describe('nodeResourceList', () => {
  it('writes cpu in millicores and memory in bytes, so that the quantities read back as the same amounts', () => {
    const list = nodeResourceList({ cpuMilli: 1500, memoryBytes: 2 * 1024 ** 3, pids: 4096 });
    expect(list).toEqual({ cpu: '1500m', memory: String(2 * 1024 ** 3) });
    // 1500 millicores are 1.5 cores, not 1500 cores.
    expect(quantityMilliValue(list.cpu)).toBe(1500);
    expect(quantityValue(list.memory)).toBe(2 * 1024 ** 3);
  });

  it('lists ephemeral storage only when it is known', () => {
    expect(nodeResourceList({ cpuMilli: 4000, memoryBytes: 1, ephemeralStorageBytes: 10 })).toEqual({ cpu: '4000m', memory: '1', 'ephemeral-storage': '10' });
  });
});
