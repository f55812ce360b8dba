import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Pod } from '@kubelet-ts/api';
import { createBackoff, systemClock } from '@kubelet-ts/common';
import type { Backoff } from '@kubelet-ts/common';
import { hashContainer } from '@kubelet-ts/container-runtime';
import type { ContainerRuntime, RuntimePodStatus } from '@kubelet-ts/container-runtime';
import { createRuntimeManager } from '../../src/index.js';
import { TestRuntimeHelper, env, newClient, removeTestPod, testPod, useRuntimeSuite, waitFor } from './helpers.js';

const BUSYBOX = env('KUBELET_TS_BUSYBOX_IMAGE');
const HTTP = env('KUBELET_TS_HTTP_IMAGE');
const LOGS = env('KUBELET_TS_POD_LOGS_DIR');
const REGISTRY = env('KUBELET_TS_REGISTRY');
// The container log symlinks go to a temp dir, never the machine's /var/log/containers.
const CONTAINER_LOGS = fs.mkdtempSync(path.join(os.tmpdir(), 'kts-rm-it-containers-'));
afterAll(() => fs.rmSync(CONTAINER_LOGS, { recursive: true, force: true }));

/** Removes image names pulled by a test with ctr (never CRI RemoveImage: it would drop every tag of the shared image ID). */
function removeImageNames(repo: string): void {
  const socket = env('KUBELET_TS_CRI_ENDPOINT').replace(/^unix:\/\//, '');
  const ctr = (...args: string[]) =>
    execFileSync(process.env.KUBELET_TS_CTR ?? 'ctr', ['-a', socket, '-n', 'k8s.io', ...args], { encoding: 'utf8' });
  const names = ctr('images', 'ls', '-q')
    .split('\n')
    .filter((name) => name === repo || name.startsWith(`${repo.replace(/:[^:/]+$/, '')}@`));
  if (names.length > 0) ctr('images', 'rm', ...names);
}

const suite = useRuntimeSuite({ connect: newClient, tempPrefix: 'kts-rm-it-' });
let helper: TestRuntimeHelper;

function manager(options: { seccompDefault?: boolean } = {}): ContainerRuntime {
  return createRuntimeManager({
    ...options,
    runtimeService: suite.client.runtime,
    imageService: suite.client.image,
    helper,
    podLogsDir: LOGS,
    containerLogsDir: CONTAINER_LOGS,
    clock: systemClock,
  });
}

function shortBackoff(): Backoff {
  return createBackoff({ initialMs: 1000, maxMs: 2000, clock: systemClock });
}

async function status(rm: ContainerRuntime, pod: Pod): Promise<RuntimePodStatus> {
  return rm.getPodStatus(pod.metadata.uid, pod.metadata.name, pod.metadata.namespace);
}

async function syncOnce(rm: ContainerRuntime, pod: Pod, backoff: Backoff) {
  return rm.syncPod(pod, await status(rm, pod), backoff);
}

function httpGet(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { timeout: 2000 }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve(body));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

beforeEach(() => {
  helper = new TestRuntimeHelper(suite.root);
});

describe('runtime-manager against containerd', () => {
  it('syncs a two-container pod to running: sandbox IP, decodable labels, CRI logs at the upstream path', async () => {
    const rm = manager();
    const pod = testPod('two', {
      containers: [
        {
          name: 'main',
          image: BUSYBOX,
          command: ['sh', '-c', 'echo hello-$(WHO); exec sleep 3600'],
          env: [{ name: 'WHO', value: 'main' }],
        },
        { name: 'web', image: HTTP, ports: [{ containerPort: 8080, protocol: 'TCP' }] },
      ],
    });
    suite.track(pod);
    const result = await syncOnce(rm, pod, shortBackoff());
    expect(result.error).toBeUndefined();
    expect(result.results.filter((r) => r.action === 'StartContainer').map((r) => r.target)).toEqual(['main', 'web']);

    const st = await waitFor('both containers running', async () => {
      const s = await status(rm, pod);
      return s.containers.filter((c) => c.state === 'running').length === 2 ? s : undefined;
    });
    // an address of the test CNI network (a /16)
    const subnetPrefix = env('KUBELET_TS_CNI_SUBNET').split('.').slice(0, 2).join('.');
    expect(st.ips[0]?.startsWith(`${subnetPrefix}.`)).toBe(true);
    expect(st.sandboxes).toMatchObject([{ state: 'ready', attempt: 0, hostNetwork: false }]);
    expect(st.containers.find((c) => c.name === 'main')?.image).toContain('busybox');
    expect(st.containers.find((c) => c.name === 'main')?.imageRef).toMatch(/^sha256:/);
    expect(st.containers.map((c) => [c.name, c.restartCount, c.hash]).sort()).toEqual([
      ['main', 0, hashContainer(pod.spec.containers[0]!)],
      ['web', 0, hashContainer(pod.spec.containers[1]!)],
    ]);

    const listed = (await rm.getPods(false)).find((p) => p.uid === pod.metadata.uid);
    expect(listed).toMatchObject({ name: pod.metadata.name, namespace: 'kts-test' });
    expect(listed?.containers.map((c) => c.name).sort()).toEqual(['main', 'web']);

    const logFile = path.join(LOGS, `kts-test_${pod.metadata.name}_${pod.metadata.uid}`, 'main', '0.log');
    const line = await waitFor('the log line', async () => {
      const text = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '';
      return text.includes('hello-main') ? text : undefined;
    });
    expect(line).toMatch(/^\S+Z stdout F hello-main$/m);
    // The legacy symlink <pod>_<namespace>_<container>-<id>.log points at the log containerd writes.
    const mainId = st.containers.find((c) => c.name === 'main')?.id ?? '';
    expect(fs.readlinkSync(path.join(CONTAINER_LOGS, `${pod.metadata.name}_kts-test_main-${mainId}.log`))).toBe(logFile);

    expect(await waitFor('HTTP from the pod', () => httpGet(`http://${st.ips[0]}:8080/`).catch(() => undefined))).toContain('ok');
    // converged
    expect((await syncOnce(rm, pod, shortBackoff())).results).toEqual([]);
  });

  it('restarts an exiting container with restartCount + 1 after back-off; a fresh manager sees the same state; GC keeps the newest dead one', async () => {
    const rm = manager();
    const backoff = shortBackoff();
    const pod = testPod('crash', {
      containers: [
        {
          name: 'crash',
          image: BUSYBOX,
          command: ['sh', '-c', 'echo bye > /dev/termination-log; exit 3'],
          terminationMessagePath: '/dev/termination-log',
        },
      ],
    });
    suite.track(pod);
    await syncOnce(rm, pod, backoff);
    const exited = async (count: number) =>
      waitFor(`instance ${count} exited`, async () => {
        const s = await status(rm, pod);
        const c = s.containers[0];
        return c?.state === 'exited' && c.restartCount === count ? s : undefined;
      });
    let st = await exited(0);
    expect(st.containers[0]).toMatchObject({ exitCode: 3, reason: 'Error', message: 'bye\n' });

    // first restart: no back-off yet
    let result = await rm.syncPod(pod, st, backoff);
    expect(result.results).toEqual([{ action: 'StartContainer', target: 'crash' }]);
    st = await exited(1);
    // it exited again at once: back-off of 1 s
    result = await rm.syncPod(pod, st, backoff);
    expect(result.results[0]).toMatchObject({
      reason: 'CrashLoopBackOff',
      message: expect.stringContaining('back-off 1s restarting failed container=crash'),
    });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    result = await syncOnce(rm, pod, backoff);
    expect(result.results).toEqual([{ action: 'StartContainer', target: 'crash' }]);
    st = await exited(2);
    expect(st.containers.map((c) => c.restartCount)).toEqual([2, 1, 0]);

    // a restarted kubelet (a fresh manager) reads the same IDs, restart counts and hashes from CRI
    const fresh = await status(manager(), pod);
    expect(fresh.containers.map((c) => [c.id, c.restartCount, c.hash])).toEqual(st.containers.map((c) => [c.id, c.restartCount, c.hash]));
    expect(fresh.sandboxes.map((s) => s.id)).toEqual(st.sandboxes.map((s) => s.id));

    const podLogs = path.join(LOGS, `kts-test_${pod.metadata.name}_${pod.metadata.uid}`, 'crash');
    expect(fs.readdirSync(podLogs).sort()).toEqual(['0.log', '1.log', '2.log']);
    await rm.garbageCollect({ minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 }, true, () => false);
    const after = await status(rm, pod);
    expect(after.containers.map((c) => c.restartCount)).toEqual([2]);
    expect(fs.readdirSync(podLogs)).toEqual(['2.log']);
  });

  it('KillPod runs the preStop hook (observable on the host), stops the containers and the sandbox', async () => {
    const rm = manager();
    const hostDir = path.join(suite.root, 'shared');
    fs.mkdirSync(hostDir);
    const pod = testPod('kill', {
      volumes: [{ name: 'shared', hostPath: { path: hostDir } }],
      containers: [
        {
          name: 'app',
          image: BUSYBOX,
          command: ['sh', '-c', "trap 'exit 0' TERM; while true; do sleep 0.2; done"],
          volumeMounts: [{ name: 'shared', mountPath: '/shared' }],
          lifecycle: { preStop: { exec: { command: ['sh', '-c', 'echo stopped-by-prestop > /shared/prestop'] } } },
        },
      ],
    });
    suite.track(pod);
    expect((await syncOnce(rm, pod, shortBackoff())).error).toBeUndefined();
    await waitFor('running', async () => ((await status(rm, pod)).containers[0]?.state === 'running' ? true : undefined));

    const running = (await rm.getPods(false)).find((p) => p.uid === pod.metadata.uid);
    expect(running).toBeDefined();
    const started = Date.now();
    const result = await rm.killPod(pod, running!);
    expect(result.error).toBeUndefined();
    expect(fs.readFileSync(path.join(hostDir, 'prestop'), 'utf8')).toBe('stopped-by-prestop\n');
    // the container honoured SIGTERM: no wait for the 5 s grace period
    expect(Date.now() - started).toBeLessThan(4000);
    const st = await status(rm, pod);
    expect(st.containers[0]).toMatchObject({ state: 'exited', exitCode: 0 });
    expect(st.sandboxes[0]?.state).toBe('notready');
    expect(await rm.getPods(false)).not.toContainEqual(expect.objectContaining({ uid: pod.metadata.uid }));

    // once the pod is deleted, GC removes its containers, sandbox and log directory
    await rm.garbageCollect({ minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 }, true, (uid) => uid === pod.metadata.uid);
    const gone = await status(rm, pod);
    expect(gone.containers).toEqual([]);
    expect(gone.sandboxes).toEqual([]);
    expect(fs.existsSync(path.join(LOGS, `kts-test_${pod.metadata.name}_${pod.metadata.uid}`))).toBe(false);
  });

  it('applies resources and security settings to the real container: cgroup values, capabilities, read-only rootfs', async () => {
    const rm = manager();
    const pod = testPod('res', {
      containers: [
        {
          name: 'limited',
          image: BUSYBOX,
          command: ['sh', '-c', 'exec sleep 3600'],
          resources: { requests: { cpu: '250m', memory: '32Mi' }, limits: { cpu: '500m', memory: '64Mi' } },
          securityContext: { readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } },
        },
      ],
    });
    suite.track(pod);
    expect((await syncOnce(rm, pod, shortBackoff())).error).toBeUndefined();
    const st = await waitFor('running', async () => {
      const s = await status(rm, pod);
      return s.containers[0]?.state === 'running' ? s : undefined;
    });
    const id = st.containers[0]!.id;
    const cgroup = (controller: string, file: string) =>
      fs
        .readFileSync(path.join('/sys/fs/cgroup', controller, `${env('KUBELET_TS_CGROUP_ROOT')}/pod${pod.metadata.uid}`, id, file), 'utf8')
        .trim();
    expect(cgroup('cpu', 'cpu.shares')).toBe('256');
    expect(cgroup('cpu', 'cpu.cfs_period_us')).toBe('100000');
    expect(cgroup('cpu', 'cpu.cfs_quota_us')).toBe('50000');
    expect(cgroup('memory', 'memory.limit_in_bytes')).toBe(String(64 * 1024 * 1024));

    const exec = async (cmd: string[]) => suite.client.runtime.execSync({ containerId: id, cmd, timeout: 10 });
    const write = await exec(['sh', '-c', 'touch /rootfs-write 2>&1; echo rc=$?']);
    expect(write.stdout.toString()).toMatch(/Read-only file system[\s\S]*rc=1/);
    const caps = (await exec(['sh', '-c', 'grep CapEff /proc/self/status'])).stdout.toString();
    // only CAP_NET_BIND_SERVICE (bit 10) is effective
    expect(caps.trim()).toBe('CapEff:\t0000000000000400');
  });

  it('seccompDefault: a container with no profile in its spec runs under a seccomp filter only when it is set', async () => {
    const seccompOf = async (seccompDefault: boolean): Promise<string> => {
      const rm = manager({ seccompDefault });
      const pod = testPod(`seccomp-${seccompDefault ? 'on' : 'off'}`, {
        containers: [{ name: 'plain', image: BUSYBOX, command: ['sh', '-c', 'exec sleep 3600'] }],
      });
      suite.track(pod);
      expect((await syncOnce(rm, pod, shortBackoff())).error).toBeUndefined();
      const st = await waitFor('running', async () => {
        const s = await status(rm, pod);
        return s.containers[0]?.state === 'running' ? s : undefined;
      });
      const out = await suite.client.runtime.execSync({
        containerId: st.containers[0]!.id,
        cmd: ['grep', '^Seccomp:', '/proc/self/status'],
        timeout: 10,
      });
      return out.stdout.toString().trim();
    };
    // 2 = SECCOMP_MODE_FILTER (the runtime's default profile), 0 = unconfined.
    expect(await seccompOf(true)).toBe('Seccomp:\t2');
    expect(await seccompOf(false)).toBe('Seccomp:\t0');
  });

  it('runs init containers, then a postStart hook whose effect the container sees; a crashing container with FallbackToLogsOnError reports its log tail', async () => {
    const rm = manager();
    const backoff = shortBackoff();
    const pod = testPod('init', {
      restartPolicy: 'OnFailure',
      volumes: [{ name: 'work', emptyDir: {} }],
      initContainers: [
        {
          name: 'prepare',
          image: BUSYBOX,
          command: ['sh', '-c', 'echo prepared > /work/init'],
          volumeMounts: [{ name: 'work', mountPath: '/work' }],
        },
      ],
      containers: [
        {
          name: 'main',
          image: BUSYBOX,
          command: ['sh', '-c', 'while [ ! -f /work/hook ]; do sleep 0.1; done; cat /work/init /work/hook; exec sleep 3600'],
          volumeMounts: [{ name: 'work', mountPath: '/work' }],
          lifecycle: { postStart: { exec: { command: ['sh', '-c', 'echo hooked > /work/hook'] } } },
        },
        {
          name: 'fails',
          image: BUSYBOX,
          command: ['sh', '-c', 'echo first; echo last words; exit 7'],
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'FallbackToLogsOnError',
        },
      ],
    });
    suite.track(pod);
    let result = await syncOnce(rm, pod, backoff);
    expect(result.results.map((r) => `${r.action}:${r.target}`)).toContain('InitContainer:prepare');
    await waitFor('init done', async () =>
      (await status(rm, pod)).containers.find((c) => c.name === 'prepare')?.state === 'exited' ? true : undefined,
    );
    result = await syncOnce(rm, pod, backoff);
    expect(result.results).toEqual([
      { action: 'StartContainer', target: 'main' },
      { action: 'StartContainer', target: 'fails' },
    ]);
    const logFile = path.join(LOGS, `kts-test_${pod.metadata.name}_${pod.metadata.uid}`, 'main', '0.log');
    await waitFor('main saw the init and hook files', async () => {
      const text = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '';
      return text.includes('prepared') && text.includes('hooked') ? true : undefined;
    });
    const failed = await waitFor('fails exited', async () => {
      const c = (await status(rm, pod)).containers.find((x) => x.name === 'fails');
      return c?.state === 'exited' ? c : undefined;
    });
    expect(failed).toMatchObject({ exitCode: 7, reason: 'Error', message: 'first\nlast words\n' });
  });

  it('pulls from the registry with pullPolicy Always; a missing image is ErrImagePull, then ImagePullBackOff', async () => {
    const pulled = `${REGISTRY}/kubelet-ts/busybox:test`;
    const rm = createRuntimeManager({
      runtimeService: suite.client.runtime,
      imageService: suite.client.image,
      helper,
      podLogsDir: LOGS,
      containerLogsDir: CONTAINER_LOGS,
      clock: systemClock,
      imageBackoff: createBackoff({ initialMs: 60_000, maxMs: 120_000, clock: systemClock }),
    });
    const pod = testPod('pull', {
      containers: [
        { name: 'pulled', image: pulled, imagePullPolicy: 'Always', command: ['sh', '-c', 'exec sleep 3600'] },
        { name: 'missing', image: `${REGISTRY}/kubelet-ts/does-not-exist:1`, imagePullPolicy: 'IfNotPresent' },
      ],
    });
    suite.track(pod);
    try {
      let result = await syncOnce(rm, pod, shortBackoff());
      expect(result.results.find((r) => r.target === 'pulled')).toEqual({ action: 'StartContainer', target: 'pulled' });
      expect(result.results.find((r) => r.target === 'missing')).toMatchObject({
        reason: 'ErrImagePull',
        message: expect.stringContaining(`Failed to pull image "${REGISTRY}/kubelet-ts/does-not-exist:1"`),
      });
      result = await syncOnce(rm, pod, shortBackoff());
      expect(result.results).toEqual([
        {
          action: 'StartContainer',
          target: 'missing',
          reason: 'ImagePullBackOff',
          message: `Back-off pulling image "${REGISTRY}/kubelet-ts/does-not-exist:1"`,
        },
      ]);
      const st = await waitFor('pulled running', async () => {
        const s = await status(rm, pod);
        return s.containers.find((c) => c.name === 'pulled' && c.state === 'running');
      });
      // a pulled image is reported by its repo digest
      expect(st.imageRef.startsWith(`${REGISTRY}/kubelet-ts/busybox@sha256:`)).toBe(true);
    } finally {
      await removeTestPod(suite.client.runtime, pod);
      removeImageNames(pulled);
    }
  });

  it('reports runtime conditions', async () => {
    const conditions = await manager().status();
    expect(conditions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'RuntimeReady', status: true }),
        expect.objectContaining({ type: 'NetworkReady', status: true }),
      ]),
    );
  });
});
