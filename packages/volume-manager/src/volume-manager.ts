import { lstat, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Container, Pod, Volume } from '@kubelet-ts/api';
import { quantityValue } from '@kubelet-ts/api';
import type { Clock, Logger } from '@kubelet-ts/common';
import { createBackoff, errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import type { ContainerMount } from '@kubelet-ts/container-runtime';
import type { CsiNodeClient, CsiNodeClientOptions } from './csi-client.js';
import { createCsiNodeClient } from './csi-client.js';
import { VolumeError } from './errors.js';
import { csiPlugin } from './internal/csi-plugin.js';
import { diskUsage } from './internal/disk-usage.js';
import { defaultNodeAllocatable } from './internal/payloads.js';
import type { PluginContext, VolumePlugin } from './internal/plugins.js';
import { configMapPlugin, downwardAPIPlugin, emptyDirPlugin, hostPathPlugin, projectedPlugin, removeVolumeDir, secretPlugin, unmountAllUnder } from './internal/plugins.js';
import type { Mounter } from './mounter.js';
import { createSystemMounter, isMountPoint } from './mounter.js';
import { PLUGIN_NAMES, podDir, podVolumesDir, subPathMountDir, unescapePluginName } from './paths.js';
import { openSubPath } from './subpath.js';
import type { ConfigMapSecretSource, CsiDriverRegistry, MountedVolume, NodeAllocatable, TokenSource, VolumeManager, VolumeUsage } from './types.js';

export interface VolumeManagerOptions {
  /** The kubelet's --root-dir (`/var/lib/kubelet`). */
  rootDir: string;
  /** The mount syscalls; the real one (util-linux + mountinfo) by default. */
  mounter?: Mounter;
  /** ConfigMaps and Secrets for configMap/secret/projected volumes and CSI nodePublishSecretRefs. */
  sources?: ConfigMapSecretSource;
  /** Service account tokens for projected serviceAccountToken sources. */
  tokenSource?: TokenSource;
  /** CSI drivers by name (createStaticCsiDriverRegistry). */
  csiDrivers?: CsiDriverRegistry;
  /** Builds the CSI client of a driver (tests inject one); createCsiNodeClient by default. */
  csiClientFactory?: (options: CsiNodeClientOptions) => CsiNodeClient;
  /** resourceFieldRef fallbacks when a container sets no limit; from the host by default. */
  nodeAllocatable?: NodeAllocatable;
  clock?: Clock;
  logger?: Logger;
  /** How long waitForAttachAndMount retries before failing (upstream: 2m3s). */
  waitTimeoutMs?: number;
  /** How often configMap/secret/downwardAPI/projected contents are re-synced by run() (upstream: on each pod sync, ~1 min). */
  resyncPeriodMs?: number;
  /** The reconciler's tick (upstream: 100 ms). Default 1 s. */
  reconcilePeriodMs?: number;
  /** Retry back-off of failed operations (upstream exponential backoff: 500 ms doubling to 2m2s). */
  backoff?: { initialMs: number; maxMs: number };
}

const PROPAGATION: Record<string, ContainerMount['propagation']> = {
  None: 'private',
  HostToContainer: 'host-to-container',
  Bidirectional: 'bidirectional',
};

function volumeType(volume: Volume): string {
  for (const [key, value] of Object.entries(volume)) if (key !== 'name' && value !== undefined) return key;
  return 'unknown';
}

/** `$(VAR)` expansion of subPathExpr from the container's literal env values (upstream expand.Expand semantics: unknown stays). */
function expandSubPathExpr(expr: string, container: Container): string {
  const env = new Map<string, string>();
  for (const e of container.env ?? []) if (e.value !== undefined) env.set(e.name, e.value);
  return expr.replace(/\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (whole, name: string) => env.get(name) ?? whole);
}

interface AswEntry extends MountedVolume {
  lastSyncMs: number;
}

/**
 * createVolumeManager: the desired state (pods added by waitForAttachAndMount, removed by
 * teardownPod), the actual state (what is set up, rebuilt from disk after a restart), and the
 * reconciler between them (upstream pkg/kubelet/volumemanager).
 */
export function createVolumeManager(options: VolumeManagerOptions): VolumeManager {
  const rootDir = options.rootDir;
  const mounter = options.mounter ?? createSystemMounter();
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? noopLogger;
  const waitTimeoutMs = options.waitTimeoutMs ?? 123_000;
  const resyncPeriodMs = options.resyncPeriodMs ?? 60_000;
  const reconcilePeriodMs = options.reconcilePeriodMs ?? 1_000;
  const backoff = createBackoff({ initialMs: options.backoff?.initialMs ?? 500, maxMs: options.backoff?.maxMs ?? 122_000, clock });
  const clientFactory = options.csiClientFactory ?? createCsiNodeClient;

  const csiClients = new Map<string, CsiNodeClient>();
  const ctx: PluginContext = {
    rootDir,
    mounter,
    source: options.sources,
    tokenSource: options.tokenSource,
    nodeAllocatable: options.nodeAllocatable ?? defaultNodeAllocatable(),
    now: () => clock.now(),
  };
  const csi = csiPlugin({
    ...ctx,
    drivers: options.csiDrivers,
    clientFor(driverName, endpoint) {
      // Keyed by endpoint too: a driver that registers again on another socket gets a new client.
      const key = `${driverName}\n${endpoint}`;
      let client = csiClients.get(key);
      if (client === undefined) {
        client = clientFactory({ endpoint });
        csiClients.set(key, client);
      }
      return client;
    },
  });
  const plugins: Record<string, VolumePlugin> = {
    emptyDir: emptyDirPlugin(ctx),
    hostPath: hostPathPlugin(),
    configMap: configMapPlugin(ctx),
    secret: secretPlugin(ctx),
    downwardAPI: downwardAPIPlugin(ctx),
    projected: projectedPlugin(ctx),
    csi,
  };
  const pluginFor = (volume: Volume): VolumePlugin => {
    const type = volumeType(volume);
    const plugin = plugins[type];
    if (plugin === undefined) throw new VolumeError('INVALID_VOLUME', `volume type ${type} is not supported`);
    return plugin;
  };

  // Desired state of the world: pods by UID. Actual state: set-up volumes by UID and name.
  const desired = new Map<string, Pod>();
  const actual = new Map<string, Map<string, AswEntry>>();
  const lastFailure = new Map<string, { atMs: number; message: string }>();
  // Pods whose teardown failed: run() retries them with back-off (upstream: the reconciler keeps unmounting).
  const teardownRetry = new Map<string, number>();
  const reconstructedUIDs = new Set<string>();
  let reconstructed: Promise<void> | undefined;

  // Operations on one pod never overlap (upstream nestedpendingoperations, per pod).
  const locks = new Map<string, Promise<unknown>>();
  const withPodLock = <T>(uid: string, fn: () => Promise<T>): Promise<T> => {
    const previous = locks.get(uid) ?? Promise.resolve();
    const next = previous.then(fn, fn);
    const settled = next.catch(() => undefined);
    locks.set(uid, settled);
    void settled.then(() => {
      if (locks.get(uid) === settled) locks.delete(uid);
    });
    return next;
  };

  const podLog = (pod: Pod): Logger => logger.child({ pod: `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`, podUID: pod.metadata.uid });

  /** Sets up (or re-syncs) the volumes that need it; returns the FailedMount messages of those that failed. */
  const syncPodVolumes = async (pod: Pod, force: boolean): Promise<Map<string, string>> => {
    const uid = pod.metadata.uid;
    const failures = new Map<string, string>();
    let entries = actual.get(uid);
    if (entries === undefined) {
      entries = new Map();
      actual.set(uid, entries);
    }
    for (const volume of pod.spec.volumes ?? []) {
      const key = `${uid}/${volume.name}`;
      const existing = entries.get(volume.name);
      let plugin: VolumePlugin;
      try {
        plugin = pluginFor(volume);
      } catch (err) {
        failures.set(volume.name, `MountVolume.SetUp failed for volume ${JSON.stringify(volume.name)} : ${errorMessage(err)}`);
        continue;
      }
      const due = existing === undefined || existing.reconstructed || (plugin.requiresRemount && (force || clock.now() - existing.lastSyncMs >= resyncPeriodMs));
      if (!due) continue;
      const failed = lastFailure.get(key);
      if (!force && failed !== undefined && backoff.isInBackoffSince(key, failed.atMs)) {
        if (existing === undefined || existing.reconstructed) failures.set(volume.name, failed.message);
        continue;
      }
      try {
        await plugin.setUp(pod, volume);
        entries.set(volume.name, { podUID: uid, volumeName: volume.name, pluginName: plugin.name, path: plugin.path(pod, volume), reconstructed: false, lastSyncMs: clock.now() });
        backoff.reset(key);
        lastFailure.delete(key);
        if (existing === undefined) podLog(pod).debug('MountVolume.SetUp succeeded', { volume: volume.name, plugin: plugin.name });
      } catch (err) {
        const message = `MountVolume.SetUp failed for volume ${JSON.stringify(volume.name)} : ${errorMessage(err)}`;
        backoff.next(key);
        lastFailure.set(key, { atMs: clock.now(), message });
        podLog(pod).warn('MountVolume.SetUp failed', { volume: volume.name, err: errorMessage(err) });
        // A volume that was set up before keeps serving its last content and does not hold the
        // pod back (upstream: a failed remount is only an event).
        if (existing === undefined || existing.reconstructed) failures.set(volume.name, message);
      }
    }
    return failures;
  };

  const reconstruct = (): Promise<void> => {
    reconstructed ??= (async () => {
      // A failed rebuild (mountinfo unreadable…) is tried again by the next caller.
      try {
        await rebuildFromDisk();
      } catch (err) {
        reconstructed = undefined;
        throw VolumeError.from(err);
      }
    })();
    return reconstructed;
  };

  const rebuildFromDisk = async (): Promise<void> => {
    const uids = await readdir(join(rootDir, 'pods')).catch(() => [] as string[]);
    const mounts = await mounter.list();
    for (const uid of uids) {
      const pluginDirs = await readdir(podVolumesDir(rootDir, uid)).catch(() => [] as string[]);
      for (const pluginDir of pluginDirs) {
        const names = await readdir(join(podVolumesDir(rootDir, uid), pluginDir)).catch(() => [] as string[]);
        for (const name of names) {
          let entries = actual.get(uid);
          if (entries === undefined) {
            entries = new Map();
            actual.set(uid, entries);
          }
          if (entries.has(name)) continue;
          const dir = join(podVolumesDir(rootDir, uid), pluginDir, name);
          const pluginName = unescapePluginName(pluginDir);
          const path = pluginName === PLUGIN_NAMES.csi ? join(dir, 'mount') : dir;
          entries.set(name, { podUID: uid, volumeName: name, pluginName, path, reconstructed: true, lastSyncMs: 0 });
          reconstructedUIDs.add(uid);
          logger.debug('Volume reconstructed from disk', { podUID: uid, volume: name, plugin: pluginName, mounted: isMountPoint(mounts, path) });
        }
      }
    }
  };

  /** Marks reconstructed entries that are still intact as set up, so that nothing is mounted again. */
  const adoptReconstructed = async (pod: Pod): Promise<void> => {
    const entries = actual.get(pod.metadata.uid);
    // Every pod sync passes here: read mountinfo only while something is still left to adopt.
    if (entries === undefined || ![...entries.values()].some((e) => e.reconstructed)) return;
    const mounts = await mounter.list();
    for (const volume of pod.spec.volumes ?? []) {
      const entry = entries.get(volume.name);
      if (entry === undefined || !entry.reconstructed) continue;
      let plugin: VolumePlugin;
      try {
        plugin = pluginFor(volume);
      } catch {
        continue;
      }
      const mountBacked = plugin === csi || plugin.name === PLUGIN_NAMES.secret || plugin.name === PLUGIN_NAMES.projected || (plugin.name === PLUGIN_NAMES.emptyDir && volume.emptyDir?.medium === 'Memory');
      const intact = mountBacked ? isMountPoint(mounts, entry.path) : await lstat(entry.path).then(() => true, () => false);
      if (intact && entry.pluginName === plugin.name) {
        entry.reconstructed = false;
        // Content volumes still get re-synced on this pod's first sync (atomically, if it changed).
        entry.lastSyncMs = plugin.requiresRemount ? 0 : clock.now();
      }
    }
  };

  const waitForAttachAndMount = async (pod: Pod, signal?: AbortSignal): Promise<void> => {
    await reconstruct();
    const uid = pod.metadata.uid;
    desired.set(uid, pod);
    await withPodLock(uid, () => adoptReconstructed(pod));
    const deadline = clock.now() + waitTimeoutMs;
    let force = true;
    for (;;) {
      if (signal?.aborted) throw new VolumeError('ABORTED', `waiting for volumes of pod ${pod.metadata.name} aborted`, { cause: signal.reason });
      const failures = await withPodLock(uid, () => syncPodVolumes(pod, force));
      force = false;
      if (failures.size === 0) return;
      const remaining = deadline - clock.now();
      if (remaining <= 0) throw new VolumeError('SETUP_FAILED', [...failures.values()].join('; '));
      const waits = [...failures.keys()].map((name) => Math.max(1, backoff.get(`${uid}/${name}`)));
      try {
        await clock.sleep(Math.min(remaining, ...waits), signal);
      } catch (err) {
        throw new VolumeError('ABORTED', `waiting for volumes of pod ${pod.metadata.name} aborted: ${[...failures.values()].join('; ')}`, { cause: err });
      }
    }
  };

  const getMountsForContainer = async (pod: Pod, container: Container): Promise<ContainerMount[]> => {
    const uid = pod.metadata.uid;
    const mounts: ContainerMount[] = [];
    for (const [index, vm] of (container.volumeMounts ?? []).entries()) {
      const volume = pod.spec.volumes?.find((v) => v.name === vm.name);
      if (volume === undefined) throw new VolumeError('INVALID_VOLUME', `cannot find volume ${JSON.stringify(vm.name)} to mount into container ${JSON.stringify(container.name)}`);
      const plugin = pluginFor(volume);
      let hostPath = plugin.path(pod, volume);
      const readOnly = vm.readOnly === true || plugin.readOnly(volume);
      const subPath = vm.subPathExpr !== undefined && vm.subPathExpr !== '' ? expandSubPathExpr(vm.subPathExpr, container) : (vm.subPath ?? '');
      if (subPath !== '') {
        hostPath = await withPodLock(uid, () => bindSubPath(uid, vm.name, container.name, index, hostPath, subPath, readOnly));
      }
      const propagation = vm.mountPropagation !== undefined ? PROPAGATION[vm.mountPropagation] : undefined;
      mounts.push({ containerPath: vm.mountPath, hostPath, readOnly, ...(propagation !== undefined ? { propagation } : {}) });
    }
    return mounts;
  };

  /** Upstream doSafeMakeDir + doBindSubPath: open the subPath safely and bind-mount its fd to a kubelet-owned path. */
  const bindSubPath = async (uid: string, volumeName: string, containerName: string, index: number, volumePath: string, subPath: string, readOnly: boolean): Promise<string> => {
    const target = subPathMountDir(rootDir, uid, volumeName, containerName, index);
    if (isMountPoint(await mounter.list(), target)) return target;
    const opened = await openSubPath(volumePath, subPath);
    try {
      await mkdir(join(target, '..'), { recursive: true, mode: 0o750 });
      const existing = await lstat(target).catch(() => undefined);
      if (existing === undefined) {
        if (opened.isDirectory) await mkdir(target, { mode: 0o750 });
        else await writeFile(target, '', { mode: 0o640 });
      }
      await mounter.mount(opened.fdPath, target, '', readOnly ? ['bind', 'ro'] : ['bind']);
    } finally {
      await opened.handle.close();
    }
    return target;
  };

  const teardownPod = async (uid: string): Promise<void> => {
    await reconstruct();
    desired.delete(uid);
    await withPodLock(uid, async () => {
      const errors: string[] = [];
      // 1. subPath bind mounts.
      const subpaths = join(podDir(rootDir, uid), 'volume-subpaths');
      try {
        await unmountAllUnder(mounter, subpaths);
        await removeVolumeDir(mounter, subpaths);
      } catch (err) {
        errors.push(`cleaning subpaths of pod ${uid}: ${errorMessage(err)}`);
      }
      // 2. Every volume on disk (whatever the pod spec says now: after a restart only the disk knows).
      const volumesDir = podVolumesDir(rootDir, uid);
      for (const pluginDir of await readdir(volumesDir).catch(() => [] as string[])) {
        const pluginName = unescapePluginName(pluginDir);
        for (const name of await readdir(join(volumesDir, pluginDir)).catch(() => [] as string[])) {
          const dir = join(volumesDir, pluginDir, name);
          try {
            if (pluginName === PLUGIN_NAMES.csi) await csi.tearDown(dir);
            else {
              await unmountAllUnder(mounter, dir);
              await removeVolumeDir(mounter, dir);
            }
            actual.get(uid)?.delete(name);
            lastFailure.delete(`${uid}/${name}`);
            backoff.reset(`${uid}/${name}`);
          } catch (err) {
            errors.push(`UnmountVolume.TearDown failed for volume ${JSON.stringify(name)} (UniqueName: ${JSON.stringify(`${pluginName}/${uid}-${name}`)}) pod ${JSON.stringify(uid)} : ${errorMessage(err)}`);
          }
        }
        await rm(join(volumesDir, pluginDir), { recursive: false, force: true }).catch(() => undefined);
      }
      if (errors.length > 0) {
        backoff.next(`teardown/${uid}`);
        teardownRetry.set(uid, clock.now());
        throw new VolumeError('MOUNT_FAILED', errors.join('; '));
      }
      teardownRetry.delete(uid);
      backoff.reset(`teardown/${uid}`);
      await rm(volumesDir, { recursive: true, force: true }).catch(() => undefined);
      actual.delete(uid);
      reconstructedUIDs.delete(uid);
    });
  };

  const getVolumeUsage = async (uid: string): Promise<VolumeUsage[]> => {
    const pod = desired.get(uid);
    const usage: VolumeUsage[] = [];
    for (const volume of pod?.spec.volumes ?? []) {
      if (volume.emptyDir === undefined) continue;
      const path = plugins.emptyDir?.path(pod as Pod, volume) ?? '';
      const usedBytes = await diskUsage(path);
      const limit = volume.emptyDir.sizeLimit !== undefined ? quantityValue(volume.emptyDir.sizeLimit) : undefined;
      usage.push({
        volumeName: volume.name,
        pluginName: PLUGIN_NAMES.emptyDir,
        path,
        usedBytes,
        ...(limit !== undefined ? { limitBytes: limit } : {}),
        exceeded: limit !== undefined && usedBytes > limit,
      });
    }
    return usage;
  };

  const run = async (signal: AbortSignal): Promise<void> => {
    await reconstruct();
    while (!signal.aborted) {
      for (const pod of [...desired.values()]) {
        if (signal.aborted) break;
        try {
          await withPodLock(pod.metadata.uid, () => syncPodVolumes(pod, false));
        } catch (err) {
          podLog(pod).error('Reconciler failed', { err: errorMessage(err) });
        }
      }
      for (const [uid, failedAt] of [...teardownRetry]) {
        if (signal.aborted || desired.has(uid) || backoff.isInBackoffSince(`teardown/${uid}`, failedAt)) continue;
        await teardownPod(uid).catch((err: unknown) => logger.warn('Volume teardown failed, will retry', { podUID: uid, err: errorMessage(err) }));
      }
      await clock.sleep(reconcilePeriodMs, signal).catch(() => undefined);
    }
    for (const client of csiClients.values()) client.close();
    csiClients.clear();
  };

  return {
    waitForAttachAndMount,
    getMountsForContainer,
    teardownPod,
    getVolumeUsage,
    reconstruct,
    run,
    getMountedVolumes(uid) {
      const out: MountedVolume[] = [];
      for (const [podUID, entries] of actual) {
        if (uid !== undefined && podUID !== uid) continue;
        for (const e of entries.values()) out.push({ podUID: e.podUID, volumeName: e.volumeName, pluginName: e.pluginName, path: e.path, reconstructed: e.reconstructed });
      }
      return out;
    },
    getReconstructedPodUIDs: () => [...reconstructedUIDs].filter((uid) => !desired.has(uid)),
  };
}
