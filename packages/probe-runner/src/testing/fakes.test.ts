import { FakeExec } from './fake-exec.js';
import { FakeProbeManager } from './fake-probe-manager.js';

describe('FakeProbeManager', () => {
  it('answers from results set by hand, announces changes, and treats unknown containers as healthy', () => {
    const fake = new FakeProbeManager();
    const changes: string[] = [];
    fake.onResultChange((c) => changes.push(`${c.probeType}/${c.containerId}=${c.result}`));
    expect([fake.readiness.isReady('a'), fake.startup.isStarted('a'), fake.probeResults.livenessFailed('a')]).toEqual([true, true, false]);
    fake.setResult('readiness', 'a', 'failure');
    fake.setResult('liveness', 'a', 'failure');
    fake.setResult('startup', 'b', 'unknown');
    expect(fake.readiness.isReady('a')).toBe(false);
    expect(fake.probeResults.livenessFailed('a')).toBe(true);
    expect(fake.startup.isStarted('b')).toBe(false);
    expect(fake.probeResults.startupSucceeded('b')).toBe(false);
    expect(changes).toEqual(['readiness/a=failure', 'liveness/a=failure', 'startup/b=unknown']);
  });
});

describe('FakeExec', () => {
  it('records calls and answers results, timeouts and errors', async () => {
    const fake = new FakeExec();
    const signal = new AbortController().signal;
    expect(await fake.exec('c1', ['true'], 1, signal)).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    fake.setHandler((_id, cmd) => (cmd[0] === 'slow' ? 'timeout' : new Error('gone')));
    await expect(fake.exec('c1', ['slow'], 2, signal)).rejects.toMatchObject({ code: 'EXEC_TIMEOUT', message: 'command "slow" timed out' });
    await expect(fake.exec('c1', ['x'], 3, signal)).rejects.toThrow('gone');
    expect(fake.calls.map((c) => `${c.containerId}:${c.cmd.join(' ')}:${c.timeoutSeconds}`)).toEqual(['c1:true:1', 'c1:slow:2', 'c1:x:3']);
  });
});
