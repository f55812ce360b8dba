import type { MountedVolume } from '../types.js';

/** One volume of the actual state, with when its content was last synced. */
export interface AswEntry extends MountedVolume {
  /** ms; 0 for a reconstructed entry (or one whose content must be re-synced at once). */
  lastSyncMs: number;
}

/** Upstream ActualStateOfWorld: the volumes set up (or rebuilt from disk), by pod UID and volume name. */
export interface ActualState {
  readonly pods: Map<string, Map<string, AswEntry>>;
  /** Pods found on disk with volumes after a restart. */
  readonly reconstructedUIDs: Set<string>;
  /** The pod's entries, made empty on first use. */
  entriesOf(uid: string): Map<string, AswEntry>;
  /** Copies of the entries of the pod, or of every pod. */
  mountedVolumes(uid?: string): MountedVolume[];
}

export function createActualState(): ActualState {
  const pods = new Map<string, Map<string, AswEntry>>();
  return {
    pods,
    reconstructedUIDs: new Set(),
    entriesOf(uid) {
      let entries = pods.get(uid);
      if (entries === undefined) {
        entries = new Map();
        pods.set(uid, entries);
      }
      return entries;
    },
    mountedVolumes(uid) {
      const out: MountedVolume[] = [];
      for (const [podUID, entries] of pods) {
        if (uid !== undefined && podUID !== uid) continue;
        for (const e of entries.values())
          out.push({ podUID: e.podUID, volumeName: e.volumeName, pluginName: e.pluginName, path: e.path, reconstructed: e.reconstructed });
      }
      return out;
    },
  };
}
