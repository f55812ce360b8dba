import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCheckpointManager } from './index.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kts-checkpoints-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('createCheckpointManager', () => {
  it('writes atomically (0600, no temporary file left), reads, lists and removes', async () => {
    const store = createCheckpointManager({ dir });
    await store.write('cpu_manager_state', Buffer.from('one'));
    await store.write('cpu_manager_state', Buffer.from('two'));
    expect((await store.read('cpu_manager_state')).toString()).toBe('two');
    expect(statSync(join(dir, 'cpu_manager_state')).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['cpu_manager_state']);
    // A temporary file left by a crash is not a checkpoint.
    writeFileSync(join(dir, '.memory_manager_state.1.x'), 'partial');
    expect(await store.list()).toEqual(['cpu_manager_state']);
    await store.remove('cpu_manager_state');
    await store.remove('cpu_manager_state');
    await expect(store.read('cpu_manager_state')).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'checkpoint is not found' });
  });

  it('refuses names the upstream store refuses', async () => {
    const store = createCheckpointManager({ dir });
    await expect(store.write('../escape', Buffer.from('x'))).rejects.toMatchObject({ code: 'INVALID' });
    await expect(store.read('a//b')).rejects.toMatchObject({ code: 'INVALID' });
  });
});
