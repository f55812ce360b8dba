// The API source against the real kube-apiserver: the node identity lists and watches the pods bound
// to it (spec.nodeName field selector), and the source turns that into the mux's updates.
import { randomBytes } from 'node:crypto';
import { createApiSource, createPodConfig } from '../../src/index.js';
import type { PodConfig, PodInformer, PodInformerEventHandler, PodUpdate } from '../../src/index.js';
import { controlPlaneEnv, ensureNode, eventually, KubeError, kubeFromKubeconfig } from '@kubelet-ts/test-support';
import type { Kube } from '@kubelet-ts/test-support';

const env = controlPlaneEnv();
const admin = kubeFromKubeconfig(env.kubeconfig);
const nodeClient = kubeFromKubeconfig(env.nodeKubeconfig);
const NODE = env.nodeName;
const ns = `kts-ps-src-${randomBytes(4).toString('hex')}`;

type Obj = { metadata: { name: string; namespace: string; uid: string; resourceVersion: string } } & Record<string, unknown>;

/** Just enough of an informer for the test: list, then one watch from the list's resourceVersion. */
class TestInformer implements PodInformer {
  readonly #store = new Map<string, Obj>();
  readonly #handlers = new Set<PodInformerEventHandler>();
  #synced = false;
  #waiters: Array<() => void> = [];
  constructor(
    readonly kube: Kube,
    readonly path: string,
  ) {}

  async start(signal: AbortSignal): Promise<void> {
    const list = await this.kube.request<{ metadata: { resourceVersion: string }; items: Obj[] }>('GET', this.path);
    for (const item of list.items) this.#store.set(`${item.metadata.namespace}/${item.metadata.name}`, item);
    this.#synced = true;
    for (const resolve of this.#waiters.splice(0)) resolve();
    void this.kube.watch(
      `${this.path}&watch=true&allowWatchBookmarks=true&resourceVersion=${list.metadata.resourceVersion}`,
      (event) => {
        const obj = event.object as Obj;
        const key = `${obj.metadata.namespace}/${obj.metadata.name}`;
        const old = this.#store.get(key);
        if (event.type === 'DELETED') this.#store.delete(key);
        else if (event.type === 'ADDED' || event.type === 'MODIFIED') this.#store.set(key, obj);
        else return;
        for (const h of this.#handlers) {
          if (event.type === 'DELETED') h.onDelete?.(obj);
          else if (old === undefined) h.onAdd?.(obj);
          else h.onUpdate?.(old, obj);
        }
      },
      signal,
    );
  }
  list(): unknown[] {
    return [...this.#store.values()];
  }
  hasSynced(): boolean {
    return this.#synced;
  }
  waitForSync(): Promise<void> {
    return this.#synced ? Promise.resolve() : new Promise((resolve) => this.#waiters.push(resolve));
  }
  addEventHandler(handler: PodInformerEventHandler): () => void {
    this.#handlers.add(handler);
    return () => this.#handlers.delete(handler);
  }
}

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
    release = (await ensureNode(admin, NODE, 'pod-sources-it')).release;
    await admin.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  });
  afterAll(async () => {
    controller.abort();
    await config?.close();
    await admin.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
    await release?.();
  });

  it('the node identity may list pods only with its own spec.nodeName selector', async () => {
    await expect(nodeClient.request('GET', '/api/v1/pods')).rejects.toMatchObject({ statusCode: 403, reason: 'Forbidden' });
    await expect(nodeClient.request('GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dsomeone-else')).rejects.toBeInstanceOf(KubeError);
  });

  it('delivers the pods bound to the node, keeps mirror pods apart, follows graceful deletion to removal', async () => {
    await admin.request('POST', `/api/v1/namespaces/${ns}/pods`, podBody('early', NODE));
    await admin.request('POST', `/api/v1/namespaces/${ns}/pods`, podBody('elsewhere', `kts-test-ps-${randomBytes(3).toString('hex')}`));

    const informer = new TestInformer(nodeClient, `/api/v1/pods?fieldSelector=spec.nodeName%3D${NODE}`);
    await informer.start(controller.signal);
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

    await eventually('the first set', () => (ours().includes('ADD early') ? true : undefined));
    const added = updates.flatMap((u) => u.pods).find((p) => p.metadata.name === 'early');
    expect(added?.metadata.annotations?.['kubernetes.io/config.source']).toBe('api');
    expect(added?.metadata.annotations?.['kubernetes.io/config.seen']).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(added?.spec.volumes?.some((v) => v.projected !== undefined)).toBe(true); // the admission-added token volume validates

    await admin.request('POST', `/api/v1/namespaces/${ns}/pods`, podBody('web', NODE));
    await admin.request(
      'POST',
      `/api/v1/namespaces/${ns}/pods`,
      podBody('static-kts-node', NODE, { 'kubernetes.io/config.mirror': 'abc' }),
    );
    await eventually('web and the mirror pod', () =>
      ours().includes('ADD web') && mirrors.some((m) => m.includes('static-kts-node')) ? true : undefined,
    );

    // kubectl delete --wait=false: graceful, the pod gets a deletionTimestamp (DELETE); then it goes (REMOVE).
    await admin.request('DELETE', `/api/v1/namespaces/${ns}/pods/web`, { kind: 'DeleteOptions', apiVersion: 'v1' });
    await eventually('the graceful deletion', () => (ours().includes('DELETE web') ? true : undefined));
    const deleting = updates.find((u) => u.op === 'DELETE')?.pods.find((p) => p.metadata.name === 'web');
    expect(deleting?.metadata.deletionTimestamp).toBeDefined();
    expect(deleting?.metadata.deletionGracePeriodSeconds).toBe(30);
    await admin.request('DELETE', `/api/v1/namespaces/${ns}/pods/web`, { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 });
    await eventually('the removal', () => (ours().includes('REMOVE web') ? true : undefined));

    // Never the pod of another node, never the mirror pod among the pods to run.
    expect(ours().filter((u) => u.endsWith(' elsewhere') || u.endsWith(' static-kts-node'))).toEqual([]);
    // The grace-0 delete may show as a second DELETE (deletionGracePeriodSeconds 0) before the REMOVE.
    expect(ours().filter((u, i, all) => u !== all[i - 1])).toEqual(['ADD early', 'ADD web', 'DELETE web', 'REMOVE web']);
  });
});
