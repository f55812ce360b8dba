import { createKubeletLogger, formatKlogLine } from './logging.js';

describe('kubelet logging', () => {
  it('renders klog-like text lines with level letter, time, pid and quoted fields', () => {
    const line = formatKlogLine({
      level: 40,
      time: Date.UTC(2026, 10, 29, 18, 58, 35, 123),
      pid: 42,
      msg: 'Invalid pod manifest',
      pod: 'web',
      restarts: 3,
    });
    expect(line).toBe('W1129 18:58:35.123000      42 kubelet] "Invalid pod manifest" pod="web" restarts=3\n');
  });

  it('writes debug records only from verbosity 4, and JSON lines in json format', () => {
    const quiet: string[] = [];
    const low = createKubeletLogger({ verbosity: 2, format: 'text', write: (l) => quiet.push(l) });
    low.debug('hidden');
    low.info('shown', { podUID: 'u1' });
    expect(quiet).toHaveLength(1);
    expect(quiet[0]).toMatch(/^I\d{4} .* kubelet\] "shown" podUID="u1"\n$/);

    const json: string[] = [];
    const verbose = createKubeletLogger({ verbosity: 4, format: 'json', write: (l) => json.push(l) });
    verbose.child({ component: 'pleg' }).debug('relist', { pods: 2 });
    const record = JSON.parse(json[0] ?? '{}') as Record<string, unknown>;
    expect(record).toMatchObject({ msg: 'relist', component: 'pleg', pods: 2 });
  });

  it('changes the verbosity at run time for the logger and every child, made before or after', () => {
    const lines: string[] = [];
    const root = createKubeletLogger({ verbosity: 2, format: 'json', write: (l) => lines.push(l) });
    const early = root.child({ component: 'pleg' });
    early.debug('hidden at 2');
    root.setVerbosity(4);
    expect(root.verbosity).toBe(4);
    early.debug('shown at 4');
    root.child({ component: 'prober' }).debug('also shown');
    root.setVerbosity(0);
    early.debug('hidden again');
    root.info('info is always written');
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['shown at 4', 'also shown', 'info is always written']);
  });

  it('logs errors as their message under err', () => {
    const lines: string[] = [];
    createKubeletLogger({ verbosity: 0, format: 'json', write: (l) => lines.push(l) }).error('failed', { err: new Error('boom') });
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ err: 'boom', level: 50 });
  });
});
