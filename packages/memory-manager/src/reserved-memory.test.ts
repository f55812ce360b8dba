import { formatGoQuantity, goQuantity } from './internal/go-quantity.js';
import { nodeAllocatableReservation, validateReservedMemory } from './index.js';
import { memoryTopology } from './testing/index.js';

const notEqual = (reserved: string, type: string, allocatable: string): string =>
  `the total amount "${reserved}" of type "${type}" is not equal to the value "${allocatable}" determined by Node Allocatable feature`;

describe('validateReservedMemory (upstream TestValidateReservedMemory)', () => {
  const machine = memoryTopology(3, 8);

  it('accepts reservations that add up to node allocatable, per resource', () => {
    expect(() => validateReservedMemory(machine, { memory: '0' }, [{ numaNode: 0, limits: { memory: '0' } }])).not.toThrow();
    expect(() =>
      validateReservedMemory(machine, { memory: '17', 'hugepages-2Mi': '77', 'hugepages-1Gi': '13' }, [
        { numaNode: 0, limits: { memory: '12', 'hugepages-2Mi': '70', 'hugepages-1Gi': '13' } },
        { numaNode: 1, limits: { memory: '5', 'hugepages-2Mi': '7' } },
      ]),
    ).not.toThrow();
  });

  it("refuses a total that differs, with upstream's message", () => {
    expect(() => validateReservedMemory(machine, {}, [{ numaNode: 0, limits: { memory: '12' } }])).toThrow(notEqual('12', 'memory', '0'));
    expect(() => validateReservedMemory(machine, { 'hugepages-2Mi': '5' }, [])).toThrow(notEqual('0', 'hugepages-2Mi', '5'));
    expect(() =>
      validateReservedMemory(machine, { memory: '17', 'hugepages-2Mi': '14', 'hugepages-1Gi': '13' }, [
        { numaNode: 0, limits: { memory: '12', 'hugepages-2Mi': '70', 'hugepages-1Gi': '13' } },
        { numaNode: 1, limits: { memory: '5', 'hugepages-2Mi': '7' } },
      ]),
    ).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION', message: notEqual('77', 'hugepages-2Mi', '14') }));
    // Quantities print as Go's do: in the format they were written in.
    expect(() => validateReservedMemory(machine, { memory: '600Mi' }, [{ numaNode: 0, limits: { memory: '1Gi' } }])).toThrow(
      notEqual('1Gi', 'memory', '600Mi'),
    );
  });

  it('refuses a NUMA node the machine does not have', () => {
    expect(() => validateReservedMemory(machine, { memory: '1Gi' }, [{ numaNode: 7, limits: { memory: '1Gi' } }])).toThrow(
      'the reserved memory configuration references a NUMA node 7 that does not exist on this machine',
    );
  });
});

describe('nodeAllocatableReservation', () => {
  it('adds system-, kube-reserved and the hard eviction threshold of memory.available, as Go prints the sum', () => {
    const topology = memoryTopology(1, 8, [{ pageSizeKiB: 2048, numPages: 0 }]);
    expect(
      nodeAllocatableReservation({
        kubeReserved: { memory: '412Mi' },
        evictionHard: { 'memory.available': '100Mi' },
        memoryCapacityBytes: 8 << 30,
        topology,
      }),
    ).toEqual({ memory: '512Mi' });
    expect(
      nodeAllocatableReservation({
        systemReserved: { memory: '1G', 'hugepages-2Mi': '4Mi' },
        kubeReserved: { memory: '500M' },
        memoryCapacityBytes: 8 << 30,
        topology,
      }),
    ).toEqual({ memory: '1500M', 'hugepages-2Mi': '4Mi' });
    expect(nodeAllocatableReservation({ memoryCapacityBytes: 8 << 30, topology })).toEqual({});
  });
});

describe("Go's Quantity.String()", () => {
  it('prints whole amounts in their format, canonically', () => {
    const cases: [string | number, string][] = [
      ['1Gi', '1Gi'],
      ['1536Mi', '1536Mi'],
      ['1024', '1024'],
      ['1Ki', '1Ki'],
      ['1023Ki', '1023Ki'],
      ['1500000', '1500k'],
      ['1.5G', '1500M'],
      ['1e3', '1e3'],
      ['0', '0'],
      [12, '12'],
    ];
    for (const [input, printed] of cases) expect(formatGoQuantity(goQuantity(input))).toBe(printed);
    // BinarySI below 1 Ki prints as DecimalSI.
    expect(formatGoQuantity({ value: 512n, format: 'BinarySI' })).toBe('512');
    expect(formatGoQuantity({ value: 1536n, format: 'BinarySI' })).toBe('1536');
  });
});
