import fs from 'node:fs';
import path from 'node:path';
import type { Pod } from '@kubelet-ts/api';
import type { Kubelet } from './helpers.js';
import { env, newClient, startKubelet, testPod, useRuntimeSuite, waitFor } from './helpers.js';

const BUSYBOX = env('KUBELET_TS_BUSYBOX_IMAGE');

const suite = useRuntimeSuite({ connect: newClient, tempPrefix: 'kts-pl-it-' });

/** A kubelet on the test's root dir, stopped after the test before its pods are removed. */
function kubelet(): Kubelet {
  const k = startKubelet(suite.client, suite.root);
  suite.cleanup.add(() => k.stop());
  return k;
}

async function runningContainerIds(pod: Pod): Promise<string[]> {
  const { containers } = await suite.client.runtime.listContainers({
    filter: { labelSelector: { 'io.kubernetes.pod.uid': pod.metadata.uid } },
  });
  return containers.filter((c) => c.state === 'CONTAINER_RUNNING').map((c) => c.id);
}

describe('pod lifecycle against containerd', () => {
  it('runs a pod with env, emptyDir and the managed /etc/hosts, reports it Running, and cleans it all up on REMOVE', async () => {
    const k = kubelet();
    const pod = testPod('web', {
      volumes: [{ name: 'data', emptyDir: {} }],
      containers: [
        {
          name: 'main',
          image: BUSYBOX,
          command: ['sh', '-c', 'echo "$POD_NAME $POD_IP $GREETING" > /data/out; cat /etc/hosts > /data/hosts; exec sleep 3600'],
          env: [
            { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
            { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
            { name: 'GREETING', value: 'hi-$(POD_NAME)' },
          ],
          volumeMounts: [{ name: 'data', mountPath: '/data' }],
        },
      ],
    });
    suite.track(pod);
    const uid = pod.metadata.uid;
    k.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    k.lifecycle.setSourcesReady();

    const status = await waitFor('the pod Running and Ready', () => {
      const s = k.lifecycle.getPodStatus(uid);
      return s?.phase === 'Running' && s.conditions?.find((c) => c.type === 'Ready')?.status === 'True' ? s : undefined;
    });
    const podIP = status.podIP ?? '';
    expect(podIP.split('.').slice(0, 2)).toEqual(env('KUBELET_TS_CNI_SUBNET').split('.').slice(0, 2));
    expect(status.hostIP).toBe('127.0.0.1');
    const [id] = await runningContainerIds(pod);
    expect(status.containerStatuses).toEqual([
      expect.objectContaining({
        name: 'main',
        ready: true,
        started: true,
        restartCount: 0,
        containerID: `containerd://${id}`,
        state: { running: { startedAt: expect.any(String) } },
      }),
    ]);

    const dataDir = path.join(suite.root, 'pods', uid, 'volumes', 'kubernetes.io~empty-dir', 'data');
    const out = await waitFor('the container output', () => {
      const file = path.join(dataDir, 'out');
      return fs.existsSync(file) && fs.readFileSync(file, 'utf8') !== '' ? fs.readFileSync(file, 'utf8') : undefined;
    });
    expect(out).toBe(`${pod.metadata.name} ${podIP} hi-${pod.metadata.name}\n`);
    const hosts = await waitFor('the hosts file seen by the container', () => {
      const file = path.join(dataDir, 'hosts');
      return fs.existsSync(file) && fs.readFileSync(file, 'utf8') !== '' ? fs.readFileSync(file, 'utf8') : undefined;
    });
    expect(hosts).toContain('# Kubernetes-managed hosts file.');
    expect(hosts).toContain(`${podIP}\t${pod.metadata.name}\n`);

    k.lifecycle.handlePodUpdate({ op: 'REMOVE', source: 'file', pods: [pod] });
    await waitFor('the pod forgotten', () => (k.podWorkers.isPodKnown(uid) ? undefined : true), 30_000);
    // Stopped, then removed from the runtime altogether (the manifest is gone).
    await waitFor('containers and sandbox removed', async () => {
      const selector = { labelSelector: { 'io.kubernetes.pod.uid': uid } };
      const { containers } = await suite.client.runtime.listContainers({ filter: selector });
      const { items } = await suite.client.runtime.listPodSandbox({ filter: selector });
      return containers.length === 0 && items.length === 0 ? true : undefined;
    });
    await waitFor('the pod dir removed', () => (fs.existsSync(path.join(suite.root, 'pods', uid)) ? undefined : true));
    expect(k.lifecycle.getPods()).toEqual([]);
  });

  it('shows CrashLoopBackOff for a crashing container and Succeeded for a run-to-completion pod', async () => {
    const k = kubelet();
    const crash = testPod('crash', { containers: [{ name: 'crash', image: BUSYBOX, command: ['sh', '-c', 'exit 3'] }] });
    const once = testPod('once', { restartPolicy: 'Never', containers: [{ name: 'job', image: BUSYBOX, command: ['true'] }] });
    suite.track(crash);
    suite.track(once);
    k.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [crash, once] });

    const crashing = await waitFor('CrashLoopBackOff', () => {
      const cs = k.lifecycle.getPodStatus(crash.metadata.uid)?.containerStatuses?.[0];
      return cs?.state?.waiting?.reason === 'CrashLoopBackOff' ? cs : undefined;
    });
    expect(crashing.state?.waiting?.message).toMatch(/^back-off \ds restarting failed container=crash pod=/);
    expect(crashing.lastState?.terminated).toMatchObject({ exitCode: 3, reason: 'Error' });
    expect(crashing.restartCount).toBeGreaterThanOrEqual(1);
    expect(k.lifecycle.getPodStatus(crash.metadata.uid)?.phase).toBe('Running');

    const done = await waitFor('Succeeded', () => {
      const s = k.lifecycle.getPodStatus(once.metadata.uid);
      return s?.phase === 'Succeeded' ? s : undefined;
    });
    expect(done.containerStatuses?.[0]?.state?.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
    expect(done.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'PodCompleted' });
    await waitFor('the sandbox of the finished pod stopped', async () => {
      const { items } = await suite.client.runtime.listPodSandbox({
        filter: { labelSelector: { 'io.kubernetes.pod.uid': once.metadata.uid } },
      });
      return items.length > 0 && items.every((s) => s.state === 'SANDBOX_NOTREADY') ? true : undefined;
    });
  });

  it('after a restart keeps running containers of wanted pods and kills the others once sources are ready', async () => {
    const first = kubelet();
    const kept = testPod('kept', { containers: [{ name: 'main', image: BUSYBOX, command: ['sleep', '3600'] }] });
    const orphan = testPod('orphan', { containers: [{ name: 'main', image: BUSYBOX, command: ['sleep', '3600'] }] });
    suite.track(kept);
    suite.track(orphan);
    first.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [kept, orphan] });
    await waitFor('both pods Running', () =>
      [kept, orphan].every((p) => first.lifecycle.getPodStatus(p.metadata.uid)?.phase === 'Running') ? true : undefined,
    );
    const [keptId] = await runningContainerIds(kept);
    await first.stop();
    expect(await runningContainerIds(kept)).toEqual([keptId]);

    // A new kubelet whose sources only have `kept`.
    const second = kubelet();
    second.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [kept] });
    await waitFor('kept Running in the new kubelet', () =>
      second.lifecycle.getPodStatus(kept.metadata.uid)?.phase === 'Running' ? true : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // Before the sources are ready nothing is killed.
    expect((await runningContainerIds(orphan)).length).toBe(1);
    second.lifecycle.setSourcesReady();
    await waitFor('the orphan stopped', async () => ((await runningContainerIds(orphan)).length === 0 ? true : undefined));
    expect(await runningContainerIds(kept)).toEqual([keptId]);
    expect(second.lifecycle.getPodStatus(kept.metadata.uid)?.containerStatuses?.[0]?.containerID).toBe(`containerd://${keptId}`);
  });
});
