import { UsageError } from '@kubelet-ts/common';
import { DEFAULT_RUNTIME_ENDPOINT, labelSelector, parseArgs } from './args.js';

describe('parseArgs', () => {
  it('takes global flags before or after the command, with the env endpoint as fallback', () => {
    const a = parseArgs(['-r', 'unix:///a.sock', 'ps', '-a', '-o', 'json']);
    expect(a).toMatchObject({ command: 'ps', flags: { all: true }, global: { runtimeEndpoint: 'unix:///a.sock', output: 'json' } });
    const b = parseArgs(['pods', '--runtime-endpoint=/b.sock'], { CONTAINER_RUNTIME_ENDPOINT: '/env.sock' });
    expect(b.global.runtimeEndpoint).toBe('/b.sock');
    expect(parseArgs(['pods'], { CONTAINER_RUNTIME_ENDPOINT: '/env.sock', IMAGE_SERVICE_ENDPOINT: '/img.sock' }).global).toMatchObject({
      runtimeEndpoint: '/env.sock',
      imageEndpoint: '/img.sock',
    });
    expect(parseArgs(['pods']).global.runtimeEndpoint).toBe(DEFAULT_RUNTIME_ENDPOINT);
  });

  it('passes everything after the container ID to exec, with or without --', () => {
    expect(parseArgs(['exec', 'abc', '--', 'sh', '-c', 'echo -n hi']).positionals).toEqual(['abc', 'sh', '-c', 'echo -n hi']);
    expect(parseArgs(['exec', '--timeout', '5', 'abc', 'ls', '-l']).positionals).toEqual(['abc', 'ls', '-l']);
    expect(parseArgs(['exec', '--timeout', '5', 'abc', 'ls', '-l']).flags.timeout).toBe('5');
  });

  it('accumulates repeated labels into a selector', () => {
    const args = parseArgs(['ps', '--label', 'a=1', '--label=b=2=x']);
    expect(labelSelector(args.flags)).toEqual({ a: '1', b: '2=x' });
  });

  it('reads logs flags and pull credentials', () => {
    expect(parseArgs(['logs', '--tail', '10', '-f', 'abc'])).toMatchObject({
      command: 'logs',
      flags: { tail: '10', follow: true },
      positionals: ['abc'],
    });
    expect(parseArgs(['pull', '--creds', 'user:pa:ss', 'busybox']).flags.creds).toBe('user:pa:ss');
  });

  it.each([
    [['nope'], /unknown command "nope"/],
    [['ps', '--bogus'], /unknown flag --bogus for "ps"/],
    [['logs'], /needs a container ID/],
    [['logs', '--tail', 'x', 'abc'], /--tail must be an integer/],
    [['exec', 'abc'], /needs a container ID and a command/],
    [['pull', '--creds', 'nocolon', 'x'], /USERNAME:PASSWORD/],
    [['-o', 'yaml', 'ps'], /--output must be "table" or "json"/],
    [['ps', '--label', 'novalue'], /KEY=VALUE/],
    [['--timeout', '0', 'ps'], /positive number of seconds/],
  ])('rejects %j', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(UsageError);
    expect(() => parseArgs(argv)).toThrow(message);
  });

  it('shows help without a command or with -h', () => {
    expect(parseArgs([]).command).toBe('help');
    expect(parseArgs(['ps', '-h']).command).toBe('help');
  });
});
