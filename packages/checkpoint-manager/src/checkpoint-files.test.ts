import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CheckpointError,
  decodeCpuManagerState,
  decodeMemoryManagerState,
  encodeCpuManagerState,
  encodeMemoryManagerState,
} from './index.js';

// Written by the upstream kubelet's own MarshalCheckpoint (scripts/upstream/podfacts checkpoints).
const upstream = Object.fromEntries(
  (
    JSON.parse(readFileSync(join(__dirname, '..', 'test', 'fixtures', 'upstream-checkpoints.json'), 'utf8')) as {
      name: string;
      data: string;
    }[]
  ).map((f) => [f.name, f.data]),
) as Record<'cpu-none' | 'cpu-static' | 'memory-none' | 'memory-static', string>;

describe('cpu_manager_state', () => {
  it("reads the upstream kubelet's files and writes them back byte for byte (the checksum included)", () => {
    for (const name of ['cpu-none', 'cpu-static'] as const) {
      const decoded = decodeCpuManagerState(Buffer.from(upstream[name]), name);
      expect(decoded.version).toBe(2);
      if (decoded.version !== 2) continue;
      expect(encodeCpuManagerState(decoded.state).toString()).toBe(upstream[name]);
    }
    const none = decodeCpuManagerState(Buffer.from(upstream['cpu-none']), 'x');
    expect(none.state).toEqual({ policyName: 'none', defaultCpuSet: '', entries: {} });
    expect(decodeCpuManagerState(Buffer.from(upstream['cpu-static']), 'x').state).toEqual({
      policyName: 'static',
      defaultCpuSet: '0,2-3',
      entries: { 'pod-a': { app: '6' }, 'pod-b': { main: '1', side: '4-5' } },
    });
  });

  it('refuses a file whose content does not match its checksum, accepts a zero checksum, and reads the first format', () => {
    const tampered = upstream['cpu-static'].replace('"6"', '"7"');
    expect(() => decodeCpuManagerState(Buffer.from(tampered), 'x')).toThrow(
      expect.objectContaining({ code: 'CORRUPT', message: 'checkpoint is corrupted' }),
    );
    const unchecked = JSON.stringify({ policyName: 'static', defaultCpuSet: '0', entries: { 'pod-a': { app: '1' } }, checksum: 0 });
    expect(decodeCpuManagerState(Buffer.from(unchecked), 'x').version).toBe(2);
    const v1 = JSON.stringify({ policyName: 'static', defaultCpuSet: '0', entries: { 'container-id': '1' }, checksum: 0 });
    expect(decodeCpuManagerState(Buffer.from(v1), 'x')).toEqual({
      version: 1,
      state: { policyName: 'static', defaultCpuSet: '0', entriesByContainerId: { 'container-id': '1' } },
    });
    expect(() => decodeCpuManagerState(Buffer.from('{"policyName": 3}'), '/var/lib/kubelet/cpu_manager_state')).toThrow(
      new CheckpointError('INVALID', '/var/lib/kubelet/cpu_manager_state: policyName: not a string'),
    );
    expect(() => decodeCpuManagerState(Buffer.from('{'), 'f')).toThrow(expect.objectContaining({ code: 'INVALID' }));
  });
});

describe('memory_manager_state', () => {
  it("reads the upstream kubelet's files and writes them back byte for byte (the checksum included)", () => {
    for (const name of ['memory-none', 'memory-static'] as const) {
      const state = decodeMemoryManagerState(Buffer.from(upstream[name]), name);
      expect(encodeMemoryManagerState(state).toString()).toBe(upstream[name]);
    }
    expect(decodeMemoryManagerState(Buffer.from(upstream['memory-none']), 'x')).toEqual({
      policyName: 'None',
      machineState: {},
      entries: {},
    });
  });

  it('refuses a tampered file', () => {
    const tampered = upstream['memory-static'].replace('"size":536870912', '"size":536870913');
    expect(() => decodeMemoryManagerState(Buffer.from(tampered), 'x')).toThrow(expect.objectContaining({ code: 'CORRUPT' }));
  });
});
