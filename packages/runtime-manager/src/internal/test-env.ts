// Test-only: the runtime manager over the CRI fakes, shared by this package's unit tests
// (sync-pod, kill-pod, pod-status, gc). Importing it gives each test a fresh temp directory.
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Container, Pod } from '@kubelet-ts/api';
import { createBackoff } from '@kubelet-ts/common';
import type { Backoff } from '@kubelet-ts/common';
import { FakeClock } from '@kubelet-ts/common/testing';
import type { ContainerRuntime, RunContainerOptions, RuntimeHelper } from '@kubelet-ts/container-runtime';
import type { ContainerConfig } from '@kubelet-ts/cri-client';
import { FakeImageService, FakeRuntimeService } from '@kubelet-ts/cri-client/testing';
import { createRuntimeManager } from '../runtime-manager.js';
import type { RuntimeManagerOptions } from '../runtime-manager.js';

let tmp: string;
beforeEach(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'rm-unit-'));
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

export class TestHelper implements RuntimeHelper {
  fail: Error | undefined;
  extraMounts: RunContainerOptions['mounts'] = [];
  seenPodIPs: string[][] = [];
  async generateRunContainerOptions(pod: Pod, container: Container, podIPs: string[]): Promise<RunContainerOptions> {
    this.seenPodIPs.push(podIPs);
    if (this.fail !== undefined) throw this.fail;
    return {
      env: (container.env ?? []).filter((e) => e.value !== undefined).map((e) => ({ name: e.name, value: e.value ?? '' })),
      mounts: this.extraMounts,
      hostname: pod.metadata.name,
    };
  }
  getPodCgroupParent(pod: Pod): string | undefined {
    return `/kubepods/pod${pod.metadata.uid}`;
  }
  dnsCalls = 0;
  async getPodDNS(): Promise<{ servers: string[]; searches: string[]; options: string[] }> {
    this.dnsCalls++;
    return { servers: ['10.0.0.10'], searches: ['svc.cluster.local'], options: ['ndots:5'] };
  }
  getPodDir(uid: string): string {
    return path.join(tmp, 'pods', uid);
  }
}

export interface Env {
  clock: FakeClock;
  images: FakeImageService;
  runtime: FakeRuntimeService;
  helper: TestHelper;
  manager: ContainerRuntime;
  backoff: Backoff;
  logsDir: string;
  /** The containers log dir (symlinks), created empty: no unit test writes to /var/log/containers. */
  containerLogsDir: string;
}

export function setup(extra: Partial<RuntimeManagerOptions> = {}): Env {
  const clock = new FakeClock();
  const images = new FakeImageService({ clock, images: [{ ref: 'busybox:1.36' }, { ref: 'web:1' }] });
  const runtime = new FakeRuntimeService({ clock, imageService: images });
  const helper = new TestHelper();
  const logsDir = path.join(tmp, 'logs');
  const containerLogsDir = path.join(tmp, 'containers');
  mkdirSync(containerLogsDir, { recursive: true });
  const manager = createRuntimeManager({
    runtimeService: runtime,
    imageService: images,
    helper,
    podLogsDir: logsDir,
    containerLogsDir,
    clock,
    memoryCapacityBytes: 4 * 1024 ** 3,
    ...extra,
  });
  const backoff = createBackoff({ initialMs: 10_000, maxMs: 300_000, clock });
  return { clock, images, runtime, helper, manager, backoff, logsDir, containerLogsDir };
}

export const app: Container = {
  name: 'app',
  image: 'busybox:1.36',
  command: ['sh', '-c', 'echo $(GREETING) $$(HOME) $(MISSING)'],
  args: ['$(GREETING)'],
  env: [{ name: 'GREETING', value: 'hi' }],
  terminationMessagePath: '/dev/termination-log',
  terminationMessagePolicy: 'File',
  resources: { requests: { cpu: '250m', memory: '64Mi' }, limits: { cpu: '500m', memory: '128Mi' } },
  securityContext: {
    capabilities: { add: ['NET_ADMIN'], drop: ['ALL'] },
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    runAsUser: 1000,
  },
  ports: [{ containerPort: 8080, hostPort: 18080, protocol: 'TCP' }],
};
export const side: Container = { name: 'side', image: 'web:1' };

export function makePod(spec: Partial<Pod['spec']> = {}, uid = 'uid-1'): Pod {
  return {
    metadata: { name: 'web', namespace: 'prod', uid, labels: { app: 'web' }, annotations: { team: 'a' } },
    spec: { containers: [app, side], terminationGracePeriodSeconds: 30, ...spec },
  };
}

export async function sync(env: Env, pod: Pod) {
  const status = await env.manager.getPodStatus(pod.metadata.uid, pod.metadata.name, pod.metadata.namespace);
  return env.manager.syncPod(pod, status, env.backoff);
}

export function created(env: Env, name: string): ContainerConfig[] {
  return env.runtime
    .callsOf('createContainer')
    .map((c) => (c.request as { config: ContainerConfig }).config)
    .filter((c) => c.metadata?.name === name);
}

export function summary(results: Array<{ action: string; target: string; reason?: string }>): string[] {
  return results.map((r) => `${r.action}:${r.target}${r.reason === undefined ? '' : `:${r.reason}`}`);
}
