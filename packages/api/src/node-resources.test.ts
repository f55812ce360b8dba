import { quantityMilliValue, quantityValue } from './quantity.js';
import { containerResourceValue, nodeResourceList } from './node-resources.js';
import type { Container } from './schemas.js';

describe('nodeResourceList', () => {
  it('writes cpu in millicores and memory in bytes, so that the quantities read back as the same amounts', () => {
    const list = nodeResourceList({ cpuMilli: 1500, memoryBytes: 2 * 1024 ** 3, pids: 4096 });
    expect(list).toEqual({ cpu: '1500m', memory: String(2 * 1024 ** 3) });
    // 1500 millicores are 1.5 cores, not 1500 cores.
    expect(quantityMilliValue(list.cpu)).toBe(1500);
    expect(quantityValue(list.memory)).toBe(2 * 1024 ** 3);
  });

  it('lists ephemeral storage only when it is known', () => {
    expect(nodeResourceList({ cpuMilli: 4000, memoryBytes: 1, ephemeralStorageBytes: 10 })).toEqual({
      cpu: '4000m',
      memory: '1',
      'ephemeral-storage': '10',
    });
  });
});

describe('containerResourceValue', () => {
  const allocatable = { cpuMilli: 1500, memoryBytes: 3 * 1024 ** 2, ephemeralStorageBytes: 10 * 1024 ** 3 };
  const container: Container = {
    name: 'app',
    image: 'busybox',
    resources: { limits: { cpu: '250m', memory: '64Mi', 'hugepages-2Mi': '4Mi' }, requests: { cpu: '100m' } },
  };
  const bare: Container = { name: 'bare', image: 'busybox' };

  it.each([
    ['limits.cpu', undefined, container, '1'],
    ['limits.cpu', '1m', container, '250'],
    ['requests.cpu', '1m', container, '100'],
    ['requests.cpu', undefined, container, '1'],
    ['limits.memory', '1Mi', container, '64'],
    ['limits.hugepages-2Mi', '1Mi', container, '4'],
    ['requests.memory', undefined, container, '0'],
    // A limit the container does not set is node allocatable's: 1500 millicores, not 1500 cores.
    ['limits.cpu', '1m', bare, '1500'],
    ['limits.cpu', undefined, bare, '2'],
    ['limits.memory', '1Mi', bare, '3'],
    ['limits.ephemeral-storage', '1Gi', bare, '10'],
    ['limits.hugepages-2Mi', undefined, bare, '0'],
    // The API server writes an unset divisor as "0" (a zero Quantity): it counts as 1.
    ['limits.cpu', '0', container, '1'],
    ['limits.memory', '0', container, String(64 * 1024 ** 2)],
    ['requests.cpu', 0, container, '1'],
  ])('%s in %s of %s is %s', (resource, divisor, c, expected) => {
    expect(containerResourceValue(resource, divisor, c, allocatable)).toBe(expected);
  });

  it('knows no other resource', () => {
    for (const resource of ['limits.gpu', 'limits', 'spec.cpu', 'foo.memory'])
      expect(containerResourceValue(resource, undefined, container, allocatable)).toBeUndefined();
  });
});
