import { goChecksum } from './checksum.js';
import { CheckpointError } from './errors.js';
import { go, goJsonMap, isRecord, withChecksum } from './internal/go-values.js';

/** The CPU manager's checkpoint file in the root dir (upstream cpuManagerStateFileName). */
export const CPU_MANAGER_STATE_FILE = 'cpu_manager_state';

/** What the CPU manager keeps across restarts (upstream state.CPUManagerCheckpoint, version 2). */
export interface CpuManagerState {
  /** `none` or `static`. */
  policyName: string;
  /** The shared pool as a cpuset list (`0-3,7`); empty for the none policy. */
  defaultCpuSet: string;
  /** pod UID → container name → its exclusive cpuset. */
  entries: Record<string, Record<string, string>>;
}

/** A checkpoint in the first format (entries by container ID), which upstream still reads and migrates. */
export interface CpuManagerStateV1 {
  policyName: string;
  defaultCpuSet: string;
  /** container ID → cpuset. */
  entriesByContainerId: Record<string, string>;
}

/** The file's bytes exactly as the upstream kubelet writes them (json.Marshal with its checksum). */
export function encodeCpuManagerState(state: CpuManagerState): Buffer {
  const entries =
    Object.keys(state.entries).length === 0 ? '' : `,"entries":${goJsonMap(state.entries, (c) => goJsonMap(c, (s) => JSON.stringify(s)))}`;
  const json = `{"policyName":${JSON.stringify(state.policyName)},"defaultCpuSet":${JSON.stringify(state.defaultCpuSet)}${entries}}`;
  return Buffer.from(withChecksum(json, goChecksum(checkpointValue(state))), 'utf8');
}

/**
 * Reads a checkpoint as upstream restoreState does: the first format when it is one whose
 * checksum holds, else the current one; a non-zero checksum that does not match is CORRUPT (a
 * zero checksum is accepted, as upstream does for old files).
 */
export function decodeCpuManagerState(
  data: Uint8Array,
  source: string,
): { version: 2; state: CpuManagerState } | { version: 1; state: CpuManagerStateV1 } {
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(data).toString('utf8'));
  } catch (err) {
    throw new CheckpointError('INVALID', `${source}: not JSON`, { cause: err });
  }
  if (!isRecord(raw)) throw new CheckpointError('INVALID', `${source}: not a CPU manager checkpoint`);
  const policyName = stringField(raw, 'policyName', source);
  const defaultCpuSet = stringField(raw, 'defaultCpuSet', source);
  const checksum = raw.checksum ?? 0;
  if (typeof checksum !== 'number' || !Number.isInteger(checksum) || checksum < 0)
    throw new CheckpointError('INVALID', `${source}: checksum: not a number`);
  const entries = raw.entries ?? {};
  if (!isRecord(entries)) throw new CheckpointError('INVALID', `${source}: entries: not an object`);
  if (Object.values(entries).every((v) => typeof v === 'string')) {
    const v1 = { policyName, defaultCpuSet, entriesByContainerId: entries as Record<string, string> };
    if (checksum === 0 || checksum === goChecksum(checkpointV1Value(v1))) return { version: 1, state: v1 };
  }
  const v2: Record<string, Record<string, string>> = {};
  for (const [uid, containers] of Object.entries(entries)) {
    if (!isRecord(containers) || !Object.values(containers).every((v) => typeof v === 'string')) {
      throw new CheckpointError('INVALID', `${source}: entries.${uid}: not a map of container names to cpusets`);
    }
    v2[uid] = containers as Record<string, string>;
  }
  const state = { policyName, defaultCpuSet, entries: v2 };
  if (checksum !== 0 && checksum !== goChecksum(checkpointValue(state))) throw new CheckpointError('CORRUPT', 'checkpoint is corrupted');
  return { version: 2, state };
}

function stringField(raw: Record<string, unknown>, name: string, source: string): string {
  const value = raw[name] ?? '';
  if (typeof value !== 'string') throw new CheckpointError('INVALID', `${source}: ${name}: not a string`);
  return value;
}

// (*state.CPUManagerCheckpoint){PolicyName DefaultCPUSet Entries Checksum:0}: what upstream hashes.
function checkpointValue(state: CpuManagerState) {
  const inner = (containers: Record<string, string>) =>
    go.map(
      'map[string]string',
      Object.entries(containers).map(([name, set]) => [go.string(name), go.string(set)] as const),
    );
  return go.pointer(
    '*state.CPUManagerCheckpoint',
    go.struct('state.CPUManagerCheckpoint', [
      ['PolicyName', go.string(state.policyName)],
      ['DefaultCPUSet', go.string(state.defaultCpuSet)],
      [
        'Entries',
        go.map(
          'map[string]map[string]string',
          Object.entries(state.entries).map(([uid, c]) => [go.string(uid), inner(c)] as const),
        ),
      ],
      ['Checksum', go.number(0, 'checksum.Checksum')],
    ]),
  );
}

function checkpointV1Value(state: CpuManagerStateV1) {
  return go.pointer(
    '*state.CPUManagerCheckpointV1',
    go.struct('state.CPUManagerCheckpointV1', [
      ['PolicyName', go.string(state.policyName)],
      ['DefaultCPUSet', go.string(state.defaultCpuSet)],
      [
        'Entries',
        go.map(
          'map[string]string',
          Object.entries(state.entriesByContainerId).map(([id, set]) => [go.string(id), go.string(set)] as const),
        ),
      ],
      ['Checksum', go.number(0, 'checksum.Checksum')],
    ]),
  );
}
