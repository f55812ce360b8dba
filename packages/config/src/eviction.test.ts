import { ConfigError } from './errors.js';
import { evictionGracePeriodError, evictionValueError, parseEvictionMap, parseEvictionThresholdValue } from './eviction.js';

describe('parseEvictionMap', () => {
  it('splits signal<value pairs like the kubelet flag', () => {
    expect(parseEvictionMap('memory.available<100Mi,nodefs.available<10%')).toEqual({
      'memory.available': '100Mi',
      'nodefs.available': '10%',
    });
    expect(parseEvictionMap(' memory.available < 1Gi ,')).toEqual({ 'memory.available': '1Gi' });
    expect(parseEvictionMap('')).toEqual({});
  });

  it('rejects a pair without <', () => {
    expect(() => parseEvictionMap('memory.available=100Mi')).toThrow(ConfigError);
  });
});

describe('threshold values', () => {
  it('parses percentages and quantities', () => {
    expect(parseEvictionThresholdValue('10%')).toEqual({ percentage: 10 });
    expect(parseEvictionThresholdValue('100Mi')).toEqual({ quantity: '100Mi', value: 100 * 2 ** 20 });
  });

  it('names what is wrong', () => {
    expect(evictionValueError('memory.availble', '100Mi')).toBe('unsupported eviction signal "memory.availble"');
    expect(evictionValueError('nodefs.available', '120%')).toBe('percentage "120%" must be >= 0% and <= 100%');
    expect(evictionValueError('memory.available', '100Mb')).toBe('invalid quantity or percentage "100Mb"');
    expect(evictionValueError('memory.available', '-1Gi')).toBe('threshold "-1Gi" must be positive');
    expect(evictionValueError('pid.available', '1000')).toBeUndefined();
    expect(evictionGracePeriodError('memory.available', '1m30s')).toBeUndefined();
    expect(evictionGracePeriodError('memory.available', '90')).toBe('invalid duration "90"');
  });
});
