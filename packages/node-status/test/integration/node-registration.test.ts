// Registration, status updates and the lease of the node identity system:node:<kts-node> against the
// real kube-apiserver (Node authorizer + NodeRestriction), checked through the admin's eyes and
// the audit log.
import fs from 'node:fs';
import path from 'node:path';
import { formatMicroTime, NODE_LEASE_NAMESPACE, NodeSchema } from '@kubelet-ts/api';
import type { Lease, Node } from '@kubelet-ts/api';
import { noopLogger, systemClock } from '@kubelet-ts/common';
import { RecordingEventRecorder } from '@kubelet-ts/common/testing';
import { createInformer } from '@kubelet-ts/kube-client';
import type { Informer, KubeClient } from '@kubelet-ts/kube-client';
import { controlPlaneEnv } from '@kubelet-ts/test-support';
import {
  createNodeLeaseController,
  createNodeRegistration,
  createNodeStatus,
  createNodeStatusUpdater,
  diskPressureCondition,
  initialNode,
  machineInfo,
  memoryPressureCondition,
  nodeAddress,
  pidPressureCondition,
  platformInfo,
  readyCondition,
} from '../../src/index.js';
import type { LeaseApi, NodeApi, NodeStatusManager } from '../../src/index.js';
import { deleteNode, kubeClient, randomSuffix, statusOf } from './kube.js';
import { leaseApiOver, nodeApiOver } from './ports.js';

const env = controlPlaneEnv();
const nodeName = env.nodeName;
const userAgent = `kubelet-ts-node-status-it/${randomSuffix()}`;
let admin: KubeClient;
let kubelet: KubeClient;
let nodeApi: NodeApi;
let leaseApi: LeaseApi;
const leasePath = `/apis/coordination.k8s.io/v1/namespaces/${NODE_LEASE_NAMESPACE}/leases/${nodeName}`;
const auditLog = path.join(env.logDir, 'audit.log');
const auditStart = fs.existsSync(auditLog) ? fs.statSync(auditLog).size : 0;

const state = { runtimeErrors: [] as string[] };
const recorder = new RecordingEventRecorder();
const nodeStatus: NodeStatusManager = createNodeStatus({
  nodeName,
  setters: [
    nodeAddress({ nodeIPs: () => [env.nodeIp], hostname: () => nodeName }),
    machineInfo({
      capacity: () => ({ cpu: '2', memory: '4Gi', 'ephemeral-storage': '20Gi' }),
      allocatable: () => ({ cpu: '1900m', memory: '3Gi', 'ephemeral-storage': '18Gi' }),
      maxPods: 110,
    }),
    platformInfo(),
    memoryPressureCondition(() => false, { clock: systemClock, recorder }),
    diskPressureCondition(() => false, { clock: systemClock, recorder }),
    pidPressureCondition(() => false, { clock: systemClock, recorder }),
    readyCondition({ clock: systemClock, recorder, runtimeErrors: () => state.runtimeErrors }),
  ],
});
const buildInitialNode = async (): Promise<Node> => {
  const node = initialNode({
    nodeName,
    nodeLabels: { 'example.com/pool': 'it' },
    registerWithTaints: [{ key: 'example.com/registered-with', value: 'it', effect: 'NoSchedule' }],
  });
  await nodeStatus.setNodeStatus(node);
  return node;
};

const adminNode = async (): Promise<Node> => (await admin.get(`/api/v1/nodes/${nodeName}`)) as Node;
const adminLease = async (): Promise<Lease> => (await admin.get(leasePath)) as Lease;

async function cleanUp(): Promise<void> {
  await deleteNode(admin, nodeName);
  await statusOf(admin.delete(leasePath));
}

beforeAll(async () => {
  admin = await kubeClient(env.kubeconfig);
  kubelet = await kubeClient(env.nodeKubeconfig, userAgent);
  nodeApi = nodeApiOver(kubelet);
  leaseApi = leaseApiOver(kubelet);
  await cleanUp();
});
afterAll(async () => {
  await cleanUp();
  admin.closeAllConnections();
  kubelet.closeAllConnections();
});

describe(`node ${nodeName} as system:node:${nodeName}`, () => {
  it('registers the node with labels, annotation, taints and status', async () => {
    const registration = createNodeRegistration({ nodeName, nodeApi, initialNode: buildInitialNode, clock: systemClock });
    await registration.register();
    const node = await adminNode();
    expect(node.metadata.labels).toMatchObject({
      'kubernetes.io/hostname': nodeName,
      'kubernetes.io/os': 'linux',
      'beta.kubernetes.io/os': 'linux',
      'example.com/pool': 'it',
    });
    expect(node.metadata.annotations?.['volumes.kubernetes.io/controller-managed-attach-detach']).toBe('true');
    expect(node.spec?.taints).toContainEqual({ key: 'example.com/registered-with', value: 'it', effect: 'NoSchedule' });
    expect(node.status?.conditions?.map((c) => c.type)).toEqual(['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready']);
    expect(node.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(node.status?.addresses).toEqual([
      { type: 'InternalIP', address: env.nodeIp },
      { type: 'Hostname', address: nodeName },
    ]);
    expect(node.status?.capacity).toMatchObject({ cpu: '2', memory: '4Gi', pods: '110' });
  });

  it('patches nodes/status on a change only, reading the node from the node informer', async () => {
    // The kubelet's node informer, with the node identity: list+watch of its own name only.
    const informer: Informer<Node> = createInformer({
      client: kubelet,
      path: '/api/v1/nodes',
      fieldSelector: `metadata.name=${nodeName}`,
      schema: NodeSchema,
      logger: noopLogger,
      clock: systemClock,
    });
    const stop = new AbortController();
    informer.start(stop.signal);
    await informer.waitForSync(stop.signal);
    const caughtUp = async (resourceVersion: string | undefined): Promise<void> => {
      for (let i = 0; i < 100 && informer.get(nodeName)?.metadata.resourceVersion !== resourceVersion; i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(informer.get(nodeName)?.metadata.resourceVersion).toBe(resourceVersion);
    };
    try {
      const updater = createNodeStatusUpdater({ nodeName, nodeApi, nodeLister: informer, nodeStatus, clock: systemClock });
      await updater.updateNodeStatus(); // the first report (heartbeat)
      const reported = (await adminNode()).metadata.resourceVersion;
      await caughtUp(reported);

      await updater.updateNodeStatus(); // nothing changed, nothing sent
      expect((await adminNode()).metadata.resourceVersion).toBe(reported);

      state.runtimeErrors = ['container runtime is down'];
      await updater.updateNodeStatus();
      const ready = (await adminNode()).status?.conditions?.find((c) => c.type === 'Ready');
      expect(ready).toMatchObject({ status: 'False', reason: 'KubeletNotReady', message: 'container runtime is down' });
    } finally {
      state.runtimeErrors = [];
      stop.abort();
    }
  });

  it('reconciles an existing node on a second registration: default labels and annotation patched, taints kept', async () => {
    const node = await adminNode();
    node.metadata.labels = { ...node.metadata.labels, 'kubernetes.io/hostname': 'someone-else' };
    delete node.metadata.annotations?.['volumes.kubernetes.io/controller-managed-attach-detach'];
    node.spec = { ...node.spec, taints: [...(node.spec?.taints ?? []), { key: 'example.com/by-admin', effect: 'NoExecute' }] };
    await admin.update(`/api/v1/nodes/${nodeName}`, node);

    const again = createNodeRegistration({ nodeName, nodeApi, initialNode: buildInitialNode, clock: systemClock });
    await again.register();
    const reconciled = await adminNode();
    expect(reconciled.metadata.labels?.['kubernetes.io/hostname']).toBe(nodeName);
    expect(reconciled.metadata.annotations?.['volumes.kubernetes.io/controller-managed-attach-detach']).toBe('true');
    expect(reconciled.spec?.taints).toContainEqual({ key: 'example.com/by-admin', effect: 'NoExecute' });
  });

  it('creates the lease owned by the Node and renews it: renewTime moves, conflicts are absorbed', async () => {
    const controller = createNodeLeaseController({ nodeName, leaseApi, nodeApi, clock: systemClock });
    await controller.sync();
    const created = await adminLease();
    const node = await adminNode();
    expect(created.spec).toMatchObject({ holderIdentity: nodeName, leaseDurationSeconds: 40 });
    expect(created.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid: node.metadata.uid }]);

    await new Promise((r) => setTimeout(r, 1_100));
    await controller.sync();
    const renewed = await adminLease();
    expect(Date.parse(renewed.spec!.renewTime!)).toBeGreaterThan(Date.parse(created.spec!.renewTime!));
    expect(renewed.spec?.renewTime).toMatch(/\.\d{6}Z$/);

    // Another writer moves the resourceVersion: our PUT conflicts, the controller GETs and renews.
    await admin.update(leasePath, { ...renewed, metadata: { ...renewed.metadata, labels: { 'example.com/touched': 'yes' } } });
    await new Promise((r) => setTimeout(r, 1_100));
    await controller.sync();
    const after = await adminLease();
    expect(Date.parse(after.spec!.renewTime!)).toBeGreaterThan(Date.parse(renewed.spec!.renewTime!));
    expect(after.metadata.labels?.['example.com/touched']).toBe('yes');
  });

  it('refuses a MicroTime with three digits, as the reference says', async () => {
    const lease = await adminLease();
    expect(await statusOf(kubelet.update(leasePath, { ...lease, spec: { ...lease.spec, renewTime: new Date().toISOString() } }))).toBe(400);
    expect(formatMicroTime(0)).toBe('1970-01-01T00:00:00.000000Z');
  });

  it('is never refused with 403 (audit log), and its requests are there', async () => {
    // The audit log is written a moment after the response.
    await new Promise((r) => setTimeout(r, 1_000));
    const fd = fs.openSync(auditLog, 'r');
    const size = fs.fstatSync(fd).size;
    const buffer = Buffer.alloc(size - auditStart);
    fs.readSync(fd, buffer, 0, buffer.length, auditStart);
    fs.closeSync(fd);
    const ours = buffer
      .toString('utf8')
      .split('\n')
      .filter((line) => line.includes(userAgent))
      .map(
        (line) => JSON.parse(line) as { user: { username: string }; verb: string; requestURI: string; responseStatus?: { code?: number } },
      );
    expect(ours.length).toBeGreaterThan(10);
    expect(ours.every((e) => e.user.username === `system:node:${nodeName}`)).toBe(true);
    expect(ours.filter((e) => e.responseStatus?.code === 403).map((e) => `${e.verb} ${e.requestURI}`)).toEqual([]);
    expect(new Set(ours.map((e) => e.verb))).toEqual(new Set(['create', 'get', 'list', 'watch', 'patch', 'update']));
  });
});
