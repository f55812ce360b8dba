/**
 * kubelet-ts beside the upstream kubelet on the same machine, runtime and control plane (both
 * through TLS bootstrap, with the same eviction thresholds and ports):
 * - the Node each registers, compared field by field; only what must differ is masked: names, IDs,
 *   addresses, times, the kubelet version;
 * - the same pods on each, one kubelet at a time: the service environment variables they get, the
 *   admission refusals (OutOfcpu, SysctlForbidden, NodeAffinity, OutOfpods) with their messages, and
 *   what kubectl logs, exec (-it), attach, port-forward, cp, debug and the node proxy's /run show.
 * Pods run on one kubelet at a time because both use the one containerd, and a kubelet kills every
 * pod of its runtime that it does not own (upstream housekeeping): the upstream kubelet killed
 * kubelet-ts's pods within seconds when both ran pods at once (exit 137, ContainerStatusUnknown).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { controlPlaneEnv } from '@kubelet-ts/test-support';
import { BUSYBOX, createKubelet, eventually } from './harness.js';
import type { KubeletUnderTest } from './harness.js';
import { conditionOf, kubectlFor } from './kubectl.js';
import {
  observeAdmission,
  observeAttach,
  observeCp,
  observeDebug,
  observeExec,
  observeLogs,
  observePortForward,
  observeRun,
  observeTty,
  startScenarioPod,
} from './kubectl-scenarios.js';

const cp = controlPlaneEnv();
const kubectl = kubectlFor(cp);

// The upstream runner's thresholds (scripts/lib/upstream-kubelet.mjs), given to kubelet-ts too.
const EVICTION_HARD = { 'memory.available': '100Mi', 'nodefs.available': '1%', 'imagefs.available': '1%', 'nodefs.inodesFree': '1%' };
// Few pod slots, the same on both: the parity suite fills them to see each kubelet refuse one more (OutOfpods).
const MAX_PODS = 6;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type NodeObj = { metadata: Record<string, Json>; spec?: Record<string, Json>; status: Record<string, Json> };

/** What may differ between two nodes of one machine: masked so that everything else must be equal. */
function comparable(node: NodeObj, self: { name: string; ip: string }): Json {
  const n = structuredClone(node) as unknown as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  for (const k of ['name', 'uid', 'resourceVersion', 'creationTimestamp', 'managedFields']) delete n.metadata[k];
  n.metadata.labels['kubernetes.io/hostname'] = '<hostname>';
  for (const a of n.status.addresses) if (a.address === self.name || a.address === self.ip) a.address = '<own>';
  for (const c of n.status.conditions) {
    c.lastHeartbeatTime = '<time>';
    c.lastTransitionTime = '<time>';
  }
  n.status.nodeInfo.kubeletVersion = '<version>';
  // The images both see in the one containerd: the same set, in any order.
  n.status.images = [...(n.status.images ?? [])]
    .map((i: { names: string[] | null; sizeBytes: number }) => `${[...(i.names ?? [])].sort().join(',')} ${i.sizeBytes}`)
    .sort();
  for (const list of ['capacity', 'allocatable']) n.status[list] = quantities(n.status[list]);
  return n as Json;
}

const SUFFIX: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, M: 1e6, G: 1e9, m: 1e-3 };

/** Quantities by value (`8131628Ki` = `8326787072`), as the API compares them. */
function quantities(list: Record<string, string>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(list)) {
    const m = /^(\d+(?:\.\d+)?)([A-Za-z]*)$/.exec(v);
    out[k] = m ? Number(m[1]) * (SUFFIX[m[2] ?? ''] ?? 1) : NaN;
  }
  return out;
}

let ours: KubeletUnderTest;
let upstream: ChildProcess | undefined;
let upstreamName = '';
const upstreamDir = path.join(os.tmpdir(), `kubelet-ts-parity-upstream-${process.pid}`);

async function startUpstream(): Promise<string> {
  const child = spawn(
    process.execPath,
    [path.join(__dirname, 'upstream-kubelet-runner.mjs'), upstreamDir, JSON.stringify({ evictionHard: EVICTION_HARD, maxPods: MAX_PODS })],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  upstream = child;
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  return eventually(
    'the upstream kubelet healthy',
    async () => {
      if (child.exitCode !== null) throw new Error(`the upstream kubelet runner exited ${child.exitCode}:\n${err.slice(-4000)}`);
      return /^ready (\S+)$/m.exec(out)?.[1];
    },
    120_000,
    250,
  );
}

const ns = `kts-parity-${randomBytes(3).toString('hex')}`;

afterAll(async () => {
  // While both kubelets run, so that each stops its pods.
  await kubectl('delete', 'namespace', ns, '--ignore-not-found', '--timeout=120s').catch(() => undefined);
  if (upstream !== undefined && upstream.exitCode === null) {
    const exited = new Promise((r) => upstream?.once('exit', r));
    upstream.stdin?.end();
    await exited;
  }
  await ours?.cleanup();
  for (const name of [ours?.nodeName, upstreamName]) if (name) await kubectl('delete', 'node', name, '--wait=false').catch(() => undefined);
  await fs.rm(upstreamDir, { recursive: true, force: true });
});

describe('the Node of kubelet-ts and of the upstream kubelet on the same machine', () => {
  it('match field by field, except what must differ', async () => {
    ours = await createKubelet('parity', {
      apiServer: { bootstrapKubeconfig: cp.bootstrapKubeconfig, nodeIp: cp.nodeIp },
      config: [`evictionHard: ${JSON.stringify(EVICTION_HARD)}`, 'port: 10250', `maxPods: ${MAX_PODS}`],
    });
    await ours.start();
    upstreamName = await startUpstream();
    const readyNode = (name: string) =>
      eventually(
        `node ${name} Ready`,
        async () => {
          const n = await kubectl.get<NodeObj>('node', name);
          return conditionOf(n as never, 'Ready') === 'True' ? n : undefined;
        },
        90_000,
        500,
      );
    const [a, b] = await Promise.all([readyNode(ours.nodeName), readyNode(upstreamName)]);
    // The images were listed at different moments: wait for one more report of each, after both ran.
    await new Promise((r) => setTimeout(r, 12_000));
    const [a2, b2] = await Promise.all([
      kubectl.json<NodeObj>('get', 'node', ours.nodeName),
      kubectl.json<NodeObj>('get', 'node', upstreamName),
    ]);
    expect(a && b).toBeTruthy();
    expect(comparable(a2, { name: ours.nodeName, ip: cp.nodeIp })).toEqual(comparable(b2, { name: upstreamName, ip: cp.upstreamNodeIp }));
  });
});

type PodObj = { status?: { phase?: string; containerStatuses?: Array<{ state?: { terminated?: { message?: string } } }> } };

/** The environment a pod's container saw, as it wrote it to its termination message (`env`), by name. */
async function environmentOn(nodeName: string, podName: string, enableServiceLinks: boolean): Promise<Record<string, string>> {
  await kubectl.apply({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: podName, namespace: ns },
    spec: {
      nodeName,
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      enableServiceLinks,
      containers: [{ name: 'c', image: BUSYBOX(), command: ['sh', '-c', 'env > /dev/termination-log'] }],
    },
  });
  const done = await eventually(
    `pod ${podName} Succeeded on ${nodeName}`,
    async () => {
      const p = await kubectl.get<PodObj>('pod', '-n', ns, podName);
      if (p?.status?.phase === 'Failed') throw new Error(`pod ${podName} failed: ${JSON.stringify(p.status)}`);
      return p?.status?.phase === 'Succeeded' ? p : undefined;
    },
    90_000,
    500,
  );
  const message = done.status?.containerStatuses?.[0]?.state?.terminated?.message ?? '';
  const env: Record<string, string> = {};
  for (const line of message.split('\n').sort()) {
    const eq = line.indexOf('=');
    // HOSTNAME is the pod's own name; PWD, SHLVL and the like come from the shell, the same on both.
    if (eq > 0 && line.slice(0, eq) !== 'HOSTNAME') env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return env;
}

/** Everything the comparison looks at, seen on one node. */
async function observeNode(nodeName: string) {
  const links = await environmentOn(nodeName, 'env-links', true);
  const noLinks = await environmentOn(nodeName, 'env-nolinks', false);
  const admission = await observeAdmission(kubectl, ns, nodeName, MAX_PODS);
  await startScenarioPod(kubectl, 'shell', ns, nodeName);
  const seen = {
    admission,
    env: { links, noLinks },
    logs: await observeLogs(kubectl, nodeName, ns, 'shell'),
    exec: await observeExec(kubectl, nodeName, ns, 'shell'),
    tty: await observeTty(kubectl, ns, 'shell'),
    attach: await observeAttach(kubectl, ns, 'shell'),
    portForward: await observePortForward(kubectl, ns, 'shell'),
    cp: await observeCp(kubectl, ns, 'shell'),
    run: await observeRun(kubectl, nodeName, ns, 'shell'),
    debug: await observeDebug(kubectl, ns, 'shell'),
  };
  // The pods go while their kubelet still runs, so that it stops them.
  await kubectl('delete', 'pod', '--all', '-n', ns, '--wait=true', '--timeout=90s');
  // Error texts name the node (`post nodes <name>`): the one difference that must be.
  return JSON.parse(JSON.stringify(seen).replaceAll(nodeName, '<node>')) as typeof seen;
}

type Seen = Awaited<ReturnType<typeof observeNode>>;
let onUpstream: Seen | undefined;
let onOurs: Seen | undefined;

async function nodeReady(name: string): Promise<void> {
  await eventually(
    `node ${name} Ready`,
    async () => conditionOf((await kubectl.get('node', name)) as never, 'Ready') === 'True',
    120_000,
    500,
  );
}

describe('the same pods on kubelet-ts and on the upstream kubelet, one at a time', () => {
  beforeAll(async () => {
    expect(ours?.running() && upstreamName !== '').toBe(true);
    await kubectl('create', 'namespace', ns);
    const service = (name: string, spec: Record<string, unknown>) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: ns },
      spec: { selector: { app: name }, ...spec },
    });
    await kubectl.apply({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        service('web-front', {
          ports: [
            { name: 'http', port: 80, targetPort: 8080 },
            { name: 'admin', port: 9000 },
          ],
        }),
        service('dns-like', {
          ports: [
            { name: 'dns', port: 53, protocol: 'UDP' },
            { name: 'dns-tcp', port: 53, protocol: 'TCP' },
          ],
        }),
        service('plain', { ports: [{ port: 7000 }] }),
        service('headless', { clusterIP: 'None', ports: [{ port: 80 }] }),
      ],
    });
    await ours.stop();
    onUpstream = await observeNode(upstreamName);
    const exited = new Promise((r) => upstream?.once('exit', r));
    upstream?.stdin?.end();
    await exited;
    await ours.start();
    await nodeReady(ours.nodeName);
    onOurs = await observeNode(ours.nodeName);
  }, 600_000);

  it('gives the same service environment variables, with and without enableServiceLinks', () => {
    expect(onOurs?.env).toEqual(onUpstream?.env);
    expect(onOurs?.env.links['KUBERNETES_SERVICE_HOST']).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(onOurs?.env.links['WEB_FRONT_SERVICE_PORT_HTTP']).toBe('80');
    expect(onOurs?.env.noLinks['WEB_FRONT_SERVICE_PORT_HTTP']).toBeUndefined();
    expect(onOurs?.env.links['HEADLESS_SERVICE_HOST']).toBeUndefined();
  });

  it('refuses the same pods at admission with the same reasons and messages (OutOfcpu, SysctlForbidden, NodeAffinity, OutOfpods)', () => {
    expect(onOurs?.admission).toEqual(onUpstream?.admission);
    expect(Object.values(onOurs?.admission ?? {}).map((s) => s.reason)).toEqual([
      'OutOfcpu',
      'SysctlForbidden',
      'NodeAffinity',
      'OutOfpods',
    ]);
    expect(onOurs?.admission['one-too-many']?.message).toBe(
      `Pod was rejected: Node didn't have enough resource: pods, requested: 1, used: ${MAX_PODS}, capacity: ${MAX_PODS}`,
    );
  });

  it('shows the same kubectl logs (--tail, --timestamps, --limit-bytes, --since, --previous)', () => {
    expect(onOurs?.logs).toEqual(onUpstream?.logs);
    expect(onOurs?.logs.previous).toBe('first run\n');
  });

  it('answers kubectl exec, exec -it and attach alike', () => {
    expect(onOurs?.exec).toEqual(onUpstream?.exec);
    expect(onOurs?.tty).toBe(onUpstream?.tty);
    expect(onOurs?.attach).toBe(onUpstream?.attach);
    expect(onOurs?.exec.stdin.stdout).toBe('HELLO STDIN\n');
  });

  it('runs kubectl debug --target alike: an ephemeral container in the target PID namespace', () => {
    expect(onOurs?.debug).toEqual(onUpstream?.debug);
    expect(onOurs?.debug.processes).toContain('httpd');
    expect(onOurs?.debug.ready).toBe(false);
  });

  it('forwards ports, copies files and runs /run alike', () => {
    expect(onOurs?.portForward).toBe(onUpstream?.portForward);
    expect(onOurs?.cp).toEqual(onUpstream?.cp);
    expect(onOurs?.run).toEqual(onUpstream?.run);
    expect(onOurs?.cp).toEqual({ into: true, out: 'hello from web\n' });
  });
});
