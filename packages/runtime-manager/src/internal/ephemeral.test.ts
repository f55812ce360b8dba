import { lstat, mkdir, readdir, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EphemeralContainer, Pod } from '@kubelet-ts/api';
import { CONTAINER_TYPE_ANNOTATION, ContainerType } from '@kubelet-ts/container-runtime';
import { containerIdFromLegacyLogSymlink, legacyLogSymlink } from './log-symlink.js';
import { created, makePod, setup, side, summary, sync } from './test-env.js';
import type { Env } from './test-env.js';

const dbg: EphemeralContainer = {
  name: 'dbg',
  image: 'busybox:1.36',
  command: ['sh', '-c', 'ps; sleep 3600'],
  targetContainerName: 'side',
  terminationMessagePath: '/dev/termination-log',
};

/** The pod running, then `kubectl debug` adds the ephemeral containers. */
async function runningThenDebugged(env: Env, ephemeralContainers: EphemeralContainer[], spec: Partial<Pod['spec']> = {}): Promise<Pod> {
  const pod = makePod({ containers: [side], ...spec });
  await sync(env, pod);
  return { ...pod, spec: { ...pod.spec, ephemeralContainers } };
}

const ids = async (env: Env, name: string): Promise<string[]> =>
  (await env.manager.getPodStatus('uid-1', 'web', 'prod')).containers.filter((c) => c.name === name).map((c) => c.id);

describe('syncPod: ephemeral containers', () => {
  it('starts one in the running pod, in the PID namespace of its running target (CRI TARGET + targetId)', async () => {
    const env = setup();
    const pod = await runningThenDebugged(env, [dbg]);
    const [sideId] = await ids(env, 'side');
    const result = await sync(env, pod);
    expect(result.error).toBeUndefined();
    expect(summary(result.results)).toEqual(['StartContainer:dbg']);
    const [config] = created(env, 'dbg');
    expect(config?.linux?.securityContext?.namespaceOptions).toMatchObject({ network: 'POD', ipc: 'POD', pid: 'TARGET', targetId: sideId });
    expect(config?.annotations?.[CONTAINER_TYPE_ANNOTATION]).toBe(ContainerType.Ephemeral);
    expect(config).toMatchObject({ metadata: { name: 'dbg', attempt: 0 }, command: ['sh', '-c', 'ps; sleep 3600'], logPath: 'dbg/0.log' });
    expect(await ids(env, 'dbg')).toHaveLength(1);
  });

  it('without a target keeps its own PID namespace; shareProcessNamespace keeps the pod-wide one', async () => {
    const env = setup();
    await sync(env, await runningThenDebugged(env, [{ ...dbg, targetContainerName: undefined }]));
    expect(created(env, 'dbg')[0]?.linux?.securityContext?.namespaceOptions).toMatchObject({ pid: 'CONTAINER' });
    expect(created(env, 'dbg')[0]?.linux?.securityContext?.namespaceOptions?.targetId ?? '').toBe('');

    const shared = setup();
    await sync(shared, await runningThenDebugged(shared, [dbg], { shareProcessNamespace: true }));
    expect(created(shared, 'dbg')[0]?.linux?.securityContext?.namespaceOptions).toMatchObject({ pid: 'POD' });
  });

  it('a target with no instance fails the start with CreateContainerConfigError (upstream getTargetID)', async () => {
    const env = setup();
    const pod = await runningThenDebugged(env, [{ ...dbg, targetContainerName: 'gone' }]);
    const result = await sync(env, pod);
    expect(summary(result.results)).toEqual(['StartContainer:dbg:CreateContainerConfigError']);
    expect(result.results[0]?.message).toBe('unable to find target container gone');
    expect(created(env, 'dbg')).toEqual([]);
  });

  it('is never restarted: once exited it stays exited, under restartPolicy Always', async () => {
    const env = setup();
    const pod = await runningThenDebugged(env, [dbg]);
    await sync(env, pod);
    const [dbgId] = await ids(env, 'dbg');
    env.runtime.exitContainer(dbgId ?? '', 1);
    await env.clock.advance(400_000);
    const result = await sync(env, pod);
    expect(summary(result.results)).toEqual([]);
    expect(created(env, 'dbg')).toHaveLength(1);
  });

  it('starts before the init containers (upstream step 5): a failing init container does not keep it out', async () => {
    const env = setup();
    const init = { name: 'init', image: 'busybox:1.36' };
    const pod = makePod({ initContainers: [init], containers: [side] });
    await sync(env, pod);
    // The init container failed twice: the second restart is in its back-off window, its start fails.
    const [firstId] = await ids(env, 'init');
    env.runtime.exitContainer(firstId ?? '', 1);
    await sync(env, pod);
    const [initId] = await ids(env, 'init');
    env.runtime.exitContainer(initId ?? '', 1);
    const debugged = { ...pod, spec: { ...pod.spec, ephemeralContainers: [{ ...dbg, targetContainerName: 'init' }] } };
    const result = await sync(env, debugged);
    expect(summary(result.results)).toEqual(['StartContainer:dbg', 'InitContainer:init:CrashLoopBackOff']);
    expect(created(env, 'dbg')[0]?.linux?.securityContext?.namespaceOptions).toMatchObject({ pid: 'TARGET', targetId: initId });
  });

  it('is stopped with the pod by killPod', async () => {
    const env = setup();
    const pod = await runningThenDebugged(env, [dbg]);
    await sync(env, pod);
    const running = (await env.manager.getPods(false)).find((p) => p.uid === 'uid-1');
    if (running === undefined) throw new Error('pod not running');
    const result = await env.manager.killPod(pod, running);
    expect(summary(result.results).sort()).toEqual(['KillContainer:dbg', 'KillContainer:side', 'KillPodSandbox:uid-1']);
    expect(await env.manager.getPods(false)).toEqual([]);
  });
});

describe('container log symlinks (upstream legacyLogSymlink)', () => {
  /** The runtime writes each container's log file when it starts it, as containerd does (the fake writes none). */
  function writesLogs(env: Env): void {
    const start = env.runtime.startContainer.bind(env.runtime);
    env.runtime.startContainer = async (request, options) => {
      const response = await start(request, options);
      const logPath = env.runtime.getContainer(request.containerId ?? '')?.logPath ?? '';
      await mkdir(path.dirname(logPath), { recursive: true });
      await writeFile(logPath, '');
      return response;
    };
  }
  const logOf = (env: Env, container: string, attempt = 0): string => path.join(env.logsDir, 'prod_web_uid-1', container, `${attempt}.log`);

  it('names the link <pod>_<namespace>_<container>-<id>.log, cut to 255 bytes, and reads the ID back', () => {
    expect(legacyLogSymlink('/logs', 'web', 'prod', 'app', 'abc123')).toBe('/logs/web_prod_app-abc123.log');
    const long = legacyLogSymlink('/logs', 'p'.repeat(200), 'ns', 'c', 'f'.repeat(64));
    expect(path.basename(long)).toHaveLength(255);
    expect(path.basename(long)).toBe(`${'p'.repeat(200)}_ns_c-${'f'.repeat(255 - 4 - 206)}.log`);
    expect(containerIdFromLegacyLogSymlink('web_prod_app-abc123.log')).toBe('abc123');
    expect(containerIdFromLegacyLogSymlink('web_prod_app-abc.log')).toBeUndefined();
    expect(containerIdFromLegacyLogSymlink('web_prod_app-abc123.txt')).toBeUndefined();
  });

  it('links a started container (ephemeral or not) to its log file after the start, only when the log exists', async () => {
    const env = setup();
    writesLogs(env);
    const pod = await runningThenDebugged(env, [dbg]);
    await sync(env, pod);
    const [sideId] = await ids(env, 'side');
    const [dbgId] = await ids(env, 'dbg');
    expect((await readdir(env.containerLogsDir)).sort()).toEqual([`web_prod_dbg-${dbgId}.log`, `web_prod_side-${sideId}.log`]);
    expect(await readlink(path.join(env.containerLogsDir, `web_prod_side-${sideId}.log`))).toBe(logOf(env, 'side'));
    expect(await readlink(path.join(env.containerLogsDir, `web_prod_dbg-${dbgId}.log`))).toBe(logOf(env, 'dbg'));
  });

  it('makes no link when the runtime wrote no log file: it would only dangle', async () => {
    const env = setup();
    await sync(env, makePod({ containers: [side] }));
    expect(await ids(env, 'side')).toHaveLength(1);
    expect(await readdir(env.containerLogsDir)).toEqual([]);
  });

  it('removes the link with its container (container GC)', async () => {
    const env = setup();
    writesLogs(env);
    const pod = makePod({ containers: [side] });
    await sync(env, pod);
    const [firstId] = await ids(env, 'side');
    env.runtime.exitContainer(firstId ?? '', 1);
    await env.clock.advance(400_000);
    await sync(env, pod);
    expect(await readdir(env.containerLogsDir)).toHaveLength(2);
    await env.manager.garbageCollect({ minAgeMs: 0, maxPerPodContainer: 0, maxContainers: -1 }, true, () => false);
    const [secondId] = await ids(env, 'side');
    expect(secondId).not.toBe(firstId);
    // The first instance's log file is gone too: its link went with the container, not as a dangling one.
    expect(await readdir(env.containerLogsDir)).toEqual([`web_prod_side-${secondId}.log`]);
  });

  it('GC removes dangling links of exited containers and unknown ones, keeps those of running containers and live links', async () => {
    const env = setup();
    writesLogs(env);
    const pod = await runningThenDebugged(env, [dbg]);
    await sync(env, pod);
    const [sideId] = await ids(env, 'side');
    const [dbgId] = await ids(env, 'dbg');
    // Both logs gone (for the running one: between rotation's rename and reopen); dbg exited; plus strays.
    await rm(path.join(env.logsDir, 'prod_web_uid-1'), { recursive: true });
    env.runtime.exitContainer(dbgId ?? '', 0);
    await symlink('/nowhere/0.log', path.join(env.containerLogsDir, 'old_prod_app-0123456789ab.log'));
    await symlink('/nowhere/1.log', path.join(env.containerLogsDir, 'odd-name.log'));
    await writeFile(path.join(env.containerLogsDir, 'target'), '');
    const live = path.join(env.containerLogsDir, 'live_prod_app-fedcba987654.log');
    await symlink(path.join(env.containerLogsDir, 'target'), live);
    // maxPerPodContainer 1 keeps the exited dbg container: only its link dangles.
    await env.manager.garbageCollect({ minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 }, true, () => false);
    expect(await ids(env, 'dbg')).toEqual([dbgId]);
    expect((await readdir(env.containerLogsDir)).sort()).toEqual(
      ['live_prod_app-fedcba987654.log', 'target', `web_prod_side-${sideId}.log`].sort(),
    );
    expect((await lstat(live)).isSymbolicLink()).toBe(true);
  });
});
