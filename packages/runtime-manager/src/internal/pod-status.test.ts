import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Container } from '@kubelet-ts/api';
import { hashContainer } from '@kubelet-ts/container-runtime';
import { createRuntimeManager } from '../runtime-manager.js';
import { app, side, makePod, sync, created, setup } from './test-env.js';

describe('getPodStatus / getPods', () => {
  it('a fresh manager reads back the same IDs, restart counts and hashes; termination messages come from the file or the log', async () => {
    const env = setup();
    const fallback: Container = {
      name: 'fb',
      image: 'busybox:1.36',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'FallbackToLogsOnError',
    };
    const pod = makePod({ containers: [app, fallback] });
    await sync(env, pod);
    const before = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    const appStatus = before.containers.find((c) => c.name === 'app');
    const fbStatus = before.containers.find((c) => c.name === 'fb');

    // app writes its termination message; fb writes only to its log (CRI format)
    const appMount = created(env, 'app')[0]?.mounts?.find((m) => m.containerPath === '/dev/termination-log');
    await writeFile(appMount?.hostPath ?? '', 'all done');
    const fbLog = path.join(env.logsDir, 'prod_web_uid-1', 'fb', '0.log');
    await writeFile(
      fbLog,
      [
        '2026-01-01T00:00:00.000000000Z stdout F line one',
        '2026-01-01T00:00:00.100000000Z stderr P part ',
        '2026-01-01T00:00:00.200000000Z stderr F two',
        '',
      ].join('\n'),
    );
    env.runtime.exitContainer(appStatus?.id ?? '', 0);
    env.runtime.exitContainer(fbStatus?.id ?? '', 2);

    const fresh = createRuntimeManager({
      runtimeService: env.runtime,
      imageService: env.images,
      helper: env.helper,
      podLogsDir: env.logsDir,
      containerLogsDir: env.containerLogsDir,
      clock: env.clock,
    });
    const after = await fresh.getPodStatus('uid-1', 'web', 'prod');
    expect(after.sandboxes.map((s) => s.id)).toEqual(before.sandboxes.map((s) => s.id));
    expect(after.ips).toEqual(before.ips);
    expect(after.containers.find((c) => c.name === 'app')).toMatchObject({
      id: appStatus?.id,
      state: 'exited',
      exitCode: 0,
      restartCount: 0,
      hash: hashContainer(app),
      reason: 'Completed',
      message: 'all done',
      image: 'busybox:1.36',
    });
    expect(after.containers.find((c) => c.name === 'fb')).toMatchObject({ exitCode: 2, reason: 'Error', message: 'line one\npart two\n' });
  });

  it('getPods groups by the pod UID label, filters to running when asked, and ignores foreign sandboxes', async () => {
    const env = setup();
    await sync(env, makePod({ containers: [side] }, 'uid-a'));
    await sync(env, makePod({ containers: [side] }, 'uid-b'));
    // a sandbox someone else made, without our labels
    await env.runtime.runPodSandbox({ config: { metadata: { name: 'x', namespace: 'y', uid: 'z', attempt: 0 }, labels: {} } });
    const all = await env.manager.getPods(true);
    expect(all.map((p) => p.uid).sort()).toEqual(['uid-a', 'uid-b']);
    const a = all.find((p) => p.uid === 'uid-a');
    expect(a).toMatchObject({
      name: 'web',
      namespace: 'prod',
      sandboxes: [{ state: 'ready' }],
      containers: [{ name: 'side', state: 'running', hash: hashContainer(side) }],
    });
    expect(a?.containers[0]?.sandboxId).toBe(a?.sandboxes[0]?.id);

    const st = await env.manager.getPodStatus('uid-a', 'web', 'prod');
    env.runtime.exitContainer(st.containers[0]?.id ?? '', 0);
    const runningOnly = await env.manager.getPods(false);
    expect(runningOnly.find((p) => p.uid === 'uid-a')?.containers).toEqual([]);
  });

  it('status maps CRI conditions', async () => {
    const env = setup();
    env.runtime.setCondition('NetworkReady', false, 'NetworkPluginNotReady', 'cni config uninitialized');
    const conditions = await env.manager.status();
    expect(conditions).toEqual(
      expect.arrayContaining([
        { type: 'RuntimeReady', status: true, reason: '', message: '' },
        { type: 'NetworkReady', status: false, reason: 'NetworkPluginNotReady', message: 'cni config uninitialized' },
      ]),
    );
  });
});
