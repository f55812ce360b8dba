import { errorMessage } from './logger.js';

describe('errorMessage', () => {
  it('follows the cause chain', () => {
    const err = new Error('failed to sync pod', { cause: new Error('ENOSPC: no space left') });
    expect(errorMessage(err)).toBe('failed to sync pod: ENOSPC: no space left');
  });

  it('does not repeat a cause the message already quotes', () => {
    const cause = new Error('mkdir /sys/fs/cgroup/x: ENOTDIR');
    const err = new Error(`cannot create the pod cgroup: ${cause.message}`, { cause });
    expect(errorMessage(err)).toBe('cannot create the pod cgroup: mkdir /sys/fs/cgroup/x: ENOTDIR');
  });

  it('renders non-errors as strings', () => {
    expect(errorMessage('plain')).toBe('plain');
    expect(errorMessage(42)).toBe('42');
  });
});
