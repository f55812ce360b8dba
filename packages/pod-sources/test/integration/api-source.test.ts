// The API source against the real kube-apiserver: the node identity lists and watches the pods bound
// to it (spec.nodeName field selector), and the source turns that into the mux's updates.
import { randomBytes } from 'node:crypto';
import { noopLogger, systemClock } from '@kubelet-ts/common';
import { createInformer, createKubeClient, KubeClientError as KubeError, loadKubeconfig } from '@kubelet-ts/kube-client';
import type { HttpMethod, KubeClient } from '@kubelet-ts/kube-client';
import { controlPlaneEnv, ensureNode, waitFor } from '@kubelet-ts/test-support';
import { z } from 'zod';
import { createApiSource, createPodConfig } from '../../src/index.js';
import type { PodConfig, PodUpdate } from '../../src/index.js';

const env = controlPlaneEnv();
const NODE = env.nodeName;
const ns = `kts-ps-src-${randomBytes(4).toString('hex')}`;
let admin: KubeClient;
let kubelet: KubeClient; // the node identity

const connect = async (kubeconfig: string): Promise<KubeClient> =>
  createKubeClient({
    connection: await loadKubeconfig(kubeconfig),
    name: 'kubelet-ts-pod-sources-it',
    userAgent: 'kubelet-ts-pod-sources-it',
    qps: -1,
    burst: 0,
    timeoutMs: 10_000,
    logger: noopLogger,
    clock: systemClock,
  });

/** The node identity's raw requests of the authorization checks: the parsed body, or the KubeClientError. */
const nodeClient = {
  async request(method: HttpMethod, pathAndQuery: string): Promise<unknown> {
    const url = new URL(pathAndQuery, 'https://apiserver.invalid');
    return (await kubelet.request({ method, path: url.pathname, query: Object.fromEntries(url.searchParams) })).body;
  },
};

const podBody = (name: string, nodeName: string, annotations: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns, annotations },
  spec: { nodeName, terminationGracePeriodSeconds: 30, containers: [{ name: 'app', image: 'busybox:1.36', command: ['sleep', '3600'] }] },
});

describe('createApiSource against the real API server', () => {
  const controller = new AbortController();
  let release: (() => Promise<void>) | undefined;
  let config: PodConfig | undefined;

  beforeAll(async () => {
    admin = await connect(env.kubeconfig);
    kubelet = await connect(env.nodeKubeconfig);
    release = (await ensureNode(admin, NODE, 'pod-sources-it')).release;
    await admin.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  });
  afterAll(async () => {
    controller.abort();
    await config?.close();
    await admin.delete(`/api/v1/namespaces/${ns}`).catch(() => undefined);
    await release?.();
    admin.closeAllConnections();
    kubelet.closeAllConnections();
  });

  it('the node identity may list pods only with its own spec.nodeName selector', async () => {
    await expect(nodeClient.request('GET', '/api/v1/pods')).rejects.toMatchObject({ statusCode: 403, reason: 'Forbidden' });
    await expect(nodeClient.request('GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dsomeone-else')).rejects.toBeInstanceOf(KubeError);
  });

  it('delivers the pods bound to the node, keeps mirror pods apart, follows graceful deletion to removal', async () => {
    await admin.create(`/api/v1/namespaces/${ns}/pods`, podBody('early', NODE));
    await admin.create(`/api/v1/namespaces/${ns}/pods`, podBody('elsewhere', `kts-test-ps-${randomBytes(3).toString('hex')}`));

    // The kubelet's pod informer: the node identity's list+watch of its pods. Raw objects (z.unknown()):
    // the source validates each one itself.
    const informer = createInformer({
      client: kubelet,
      path: '/api/v1/pods',
      fieldSelector: `spec.nodeName=${NODE}`,
      schema: z.unknown(),
      logger: noopLogger,
      clock: systemClock,
    });
    informer.start(controller.signal);
    await informer.waitForSync(controller.signal);
    const source = createApiSource({ informer, nodeName: NODE });
    const mirrors: string[][] = [];
    source.onMirrorPods((pods) => mirrors.push(pods.filter((p) => p.metadata.namespace === ns).map((p) => p.metadata.name)));
    config = createPodConfig({ sources: [source] });
    const updates: PodUpdate[] = [];
    void (async () => {
      for await (const u of (config as PodConfig).updates) updates.push(u);
    })();
    const ours = (): string[] =>
      updates.flatMap((u) => u.pods.filter((p) => p.metadata.namespace === ns).map((p) => `${u.op} ${p.metadata.name}`));

    await waitFor('the first set', () => (ours().includes('ADD early') ? true : undefined));
    const added = updates.flatMap((u) => u.pods).find((p) => p.metadata.name === 'early');
    expect(added?.metadata.annotations?.['kubernetes.io/config.source']).toBe('api');
    expect(added?.metadata.annotations?.['kubernetes.io/config.seen']).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(added?.spec.volumes?.some((v) => v.projected !== undefined)).toBe(true); // the admission-added token volume validates

    await admin.create(`/api/v1/namespaces/${ns}/pods`, podBody('web', NODE));
    await admin.create(`/api/v1/namespaces/${ns}/pods`, podBody('static-kts-node', NODE, { 'kubernetes.io/config.mirror': 'abc' }));
    await waitFor('web and the mirror pod', () =>
      ours().includes('ADD web') && mirrors.some((m) => m.includes('static-kts-node')) ? true : undefined,
    );

    // kubectl delete --wait=false: graceful, the pod gets a deletionTimestamp (DELETE); then it goes (REMOVE).
    await admin.delete(`/api/v1/namespaces/${ns}/pods/web`, { body: { kind: 'DeleteOptions', apiVersion: 'v1' } });
    await waitFor('the graceful deletion', () => (ours().includes('DELETE web') ? true : undefined));
    const deleting = updates.find((u) => u.op === 'DELETE')?.pods.find((p) => p.metadata.name === 'web');
    expect(deleting?.metadata.deletionTimestamp).toBeDefined();
    expect(deleting?.metadata.deletionGracePeriodSeconds).toBe(30);
    await admin.delete(`/api/v1/namespaces/${ns}/pods/web`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 } });
    await waitFor('the removal', () => (ours().includes('REMOVE web') ? true : undefined));

    // Never the pod of another node, never the mirror pod among the pods to run.
    expect(ours().filter((u) => u.endsWith(' elsewhere') || u.endsWith(' static-kts-node'))).toEqual([]);
    // The grace-0 delete may show as a second DELETE (deletionGracePeriodSeconds 0) before the REMOVE.
    expect(ours().filter((u, i, all) => u !== all[i - 1])).toEqual(['ADD early', 'ADD web', 'DELETE web', 'REMOVE web']);
  });
});
