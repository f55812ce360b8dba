import { RecordingLogger } from '@kubelet-ts/common/testing';
import { TEST_KNOBS, testKnobMs } from './test-knobs.js';

describe('testKnobMs', () => {
  const name = TEST_KNOBS.statsHousekeepingInterval;

  it('keeps the fallback when the knob is unset or empty, without a word', () => {
    const logger = new RecordingLogger();
    expect(testKnobMs({}, name, 10_000, logger)).toBe(10_000);
    expect(testKnobMs({ [name]: '' }, name, 10_000, logger)).toBe(10_000);
    expect(logger.records).toEqual([]);
  });

  it('takes a positive Go duration and warns that a test knob is set', () => {
    const logger = new RecordingLogger();
    expect(testKnobMs({ [name]: '1500ms' }, name, 10_000, logger)).toBe(1_500);
    expect(logger.records.map((r) => [r.level, r.msg])).toEqual([['warn', `${name} is set (test only): 1500ms instead of 10s`]]);
  });

  it('ignores zero, negative and malformed values with a warning naming the knob', () => {
    const logger = new RecordingLogger();
    for (const value of ['0s', '-1s', 'soon']) expect(testKnobMs({ [name]: value }, name, 10_000, logger)).toBe(10_000);
    expect(logger.records).toHaveLength(3);
    expect(logger.records.every((r) => r.level === 'warn' && r.msg.startsWith(`Ignoring ${name}`))).toBe(true);
  });
});
