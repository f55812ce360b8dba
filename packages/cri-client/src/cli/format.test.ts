import { ago, formatTable, humanDuration, humanSize, splitRepoTag, stateName, toJson, truncateId } from './format.js';

describe('crictl-like formatting', () => {
  it('aligns table columns with three spaces of padding', () => {
    expect(
      formatTable(
        ['POD ID', 'NAME'],
        [
          ['abc', 'web'],
          ['abcdefghijklm', 'x'],
        ],
      ),
    ).toBe('POD ID          NAME\nabc             web\nabcdefghijklm   x\n');
  });

  it('truncates IDs to 13 characters without sha256:', () => {
    expect(truncateId('sha256:26f12132c2ca124b6ab8074ebe6c1e2b')).toBe('26f12132c2ca1');
    expect(truncateId('8a07cb1cc1e205917498')).toBe('8a07cb1cc1e20');
  });

  it.each([
    [500, 'Less than a second'],
    [1_000, '1 second'],
    [42_000, '42 seconds'],
    [90_000, 'About a minute'],
    [30 * 60_000, '30 minutes'],
    [65 * 60_000, 'About an hour'],
    [5 * 3_600_000, '5 hours'],
    [3 * 86_400_000, '3 days'],
    [20 * 86_400_000, '2 weeks'],
  ])('humanDuration(%d) = %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });

  it('formats creation times relative to now from ns timestamps', () => {
    expect(ago('1700000000000000000', 1_700_000_042_000)).toBe('42 seconds ago');
  });

  it.each([
    ['697119', '697kB'],
    ['2028309', '2.03MB'],
    [512, '512B'],
    [1_500_000_000, '1.5GB'],
  ])('humanSize(%s) = %s', (bytes, text) => {
    expect(humanSize(bytes)).toBe(text);
  });

  it('names states and splits image references like crictl', () => {
    expect(stateName('CONTAINER_RUNNING')).toBe('Running');
    expect(stateName('SANDBOX_NOTREADY')).toBe('NotReady');
    expect(splitRepoTag('127.0.0.1:5000/kubelet-ts/busybox:test')).toEqual({ repo: '127.0.0.1:5000/kubelet-ts/busybox', tag: 'test' });
    expect(splitRepoTag('127.0.0.1:5000/busybox')).toEqual({ repo: '127.0.0.1:5000/busybox', tag: '<none>' });
  });

  it('prints Buffers as text in JSON', () => {
    expect(JSON.parse(toJson({ stdout: Buffer.from('hi') }))).toEqual({ stdout: 'hi' });
  });
});
