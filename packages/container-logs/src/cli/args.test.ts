import { UsageError } from '@kubelet-ts/common';
import { DEFAULT_RUNTIME_ENDPOINT, parseLogsArgs } from './args.js';

describe('parseLogsArgs', () => {
  it('turns every flag into PodLogOptions', () => {
    const args = parseLogsArgs(['logs', '-f', '--tail', '5', '--timestamps', '--limit-bytes=100', '-p', '--stream', 'All', 'abc123'], {});
    expect(args).toEqual({
      help: false,
      containerId: 'abc123',
      endpoint: DEFAULT_RUNTIME_ENDPOINT,
      options: { follow: true, timestamps: true, previous: true, tailLines: 5, limitBytes: 100, stream: 'All' },
    });
    expect(parseLogsArgs(['logs', '--since', '1m30s', 'x']).options).toEqual({ sinceSeconds: 90 });
    expect(parseLogsArgs(['logs', '--since', '500ms', 'x']).options).toEqual({ sinceSeconds: 1 });
    expect(parseLogsArgs(['logs', '--since-time', '2026-01-01T00:00:00Z', 'x']).options).toEqual({ sinceTime: '2026-01-01T00:00:00Z' });
    expect(parseLogsArgs(['logs', '--tail=-1', 'x']).options).toEqual({});
  });

  it('takes the endpoint from the flag, then KUBELET_TS_CRI_ENDPOINT, then CONTAINER_RUNTIME_ENDPOINT', () => {
    const env = { KUBELET_TS_CRI_ENDPOINT: 'unix:///a.sock', CONTAINER_RUNTIME_ENDPOINT: 'unix:///b.sock' };
    expect(parseLogsArgs(['logs', 'x', '-r', 'unix:///c.sock'], env).endpoint).toBe('unix:///c.sock');
    expect(parseLogsArgs(['logs', 'x'], env).endpoint).toBe('unix:///a.sock');
    expect(parseLogsArgs(['logs', 'x'], { CONTAINER_RUNTIME_ENDPOINT: 'unix:///b.sock' }).endpoint).toBe('unix:///b.sock');
  });

  it('shows help without arguments or with -h', () => {
    expect(parseLogsArgs([]).help).toBe(true);
    expect(parseLogsArgs(['logs', '-h']).help).toBe(true);
  });

  it.each([
    [['logs'], 'exactly one container ID'],
    [['logs', 'a', 'b'], 'exactly one container ID'],
    [['cat', 'a'], 'unknown command'],
    [['logs', '--bogus', 'a'], 'unknown flag --bogus'],
    [['logs', 'a', '--tail'], 'needs a value'],
    [['logs', 'a', '--tail', 'x'], '--tail must be an integer'],
    [['logs', 'a', '--limit-bytes', '0'], '--limit-bytes: must be greater than 0'],
    [['logs', 'a', '--since', '10'], 'invalid duration'],
    [['logs', 'a', '--since', '1s', '--since-time', '2026-01-01T00:00:00Z'], 'at most one of'],
    [['logs', 'a', '--follow=yes'], 'takes no value'],
  ])('rejects %j', (argv, message) => {
    expect(() => parseLogsArgs(argv)).toThrow(message);
  });
});

describe('--since', () => {
  it("takes any Go duration (the grammar is @kubelet-ts/common's), rounded up to whole seconds", () => {
    const since = (text: string): unknown => parseLogsArgs(['logs', '--since', text, 'x']).options.sinceSeconds;
    expect(since('1h30m')).toBe(5_400);
    expect(since('1.5s')).toBe(2);
    expect(since('.5s')).toBe(1);
    expect(since('1500μs')).toBe(1);
    expect(() => since('')).toThrow(UsageError);
    expect(() => since('')).toThrow('invalid duration');
    expect(() => since('5d')).toThrow('invalid duration');
    expect(() => since('0')).toThrow('--since must be greater than 0');
    expect(() => since('-5s')).toThrow('--since must be greater than 0');
  });
});
