import { isConflict, isNotFound } from '@kubelet-ts/api';
import type { Lease, Node, Pod } from '@kubelet-ts/api';
import {
  certificateSigningRequestsApi,
  eventsApi,
  leasesApi,
  nodesApi,
  podsApi,
  subjectAccessReviewsApi,
  tokenReviewsApi,
} from './resources.js';
import type { KubeClient, RequestOptions } from './types.js';
import { FakeKubeClient } from './testing/index.js';

const pod = (name: string): Pod => ({ metadata: { name, namespace: 'ns', uid: '' }, spec: { containers: [] } }) as unknown as Pod;

describe('resource clients over a KubeClient', () => {
  it('nodes: create, get and a strategic-merge patch of the status subresource', async () => {
    const client = new FakeKubeClient();
    const nodes = nodesApi(client);
    await nodes.create({ metadata: { name: 'n1' } } as Node);
    expect(await nodes.get('n1')).toMatchObject({ metadata: { name: 'n1' } });
    await nodes.patchStatus('n1', { status: { phase: 'Running' } });
    expect(client.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /api/v1/nodes',
      'GET /api/v1/nodes/n1',
      'PATCH /api/v1/nodes/n1/status',
    ]);
    expect(client.calls[2]?.patchType).toBe('strategic');
  });

  it('leases: get, create in the lease namespace, update with the resourceVersion precondition', async () => {
    const client = new FakeKubeClient();
    const leases = leasesApi(client);
    const lease = { metadata: { name: 'n1', namespace: 'kube-node-lease' }, spec: {} } as Lease;
    const created = (await leases.create(lease)) as Lease;
    expect(await leases.get('kube-node-lease', 'n1')).toMatchObject({ metadata: { name: 'n1' } });
    await leases.update(created);
    expect(isConflict(await leases.update(created).catch((e: unknown) => e))).toBe(true);
  });

  it('pods: create in the pod namespace, patch status, delete with grace period and UID precondition', async () => {
    const client = new FakeKubeClient();
    const pods = podsApi(client);
    const created = (await pods.create(pod('p'))) as Pod;
    await pods.patchStatus('ns', 'p', { status: { phase: 'Running' } });
    expect(client.calls[1]).toMatchObject({ method: 'PATCH', path: '/api/v1/namespaces/ns/pods/p/status' });
    expect(isConflict(await pods.delete('ns', 'p', { gracePeriodSeconds: 0, uid: 'other' }).catch((e: unknown) => e))).toBe(true);
    await pods.delete('ns', 'p', { gracePeriodSeconds: 0, uid: created.metadata.uid });
    expect(client.calls.at(-1)?.body).toEqual({
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      gracePeriodSeconds: 0,
      preconditions: { uid: created.metadata.uid },
    });
    expect(isNotFound(await pods.get('ns', 'p').catch((e: unknown) => e))).toBe(true);
  });

  it('events: create in the involved namespace and patch by name', async () => {
    const client = new FakeKubeClient();
    const events = eventsApi(client);
    await events.create({ metadata: { name: 'e.1', namespace: 'default' } } as never);
    await events.patch('default', 'e.1', { count: 2 });
    expect(client.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /api/v1/namespaces/default/events',
      'PATCH /api/v1/namespaces/default/events/e.1',
    ]);
  });

  it('certificate signing requests: the watch of one CSR yields the listed object, then its changes', async () => {
    const client = new FakeKubeClient();
    const csrs = certificateSigningRequestsApi(client);
    await csrs.create({ metadata: { name: 'csr-a' }, spec: {} });
    await csrs.create({ metadata: { name: 'csr-b' }, spec: {} });
    const controller = new AbortController();
    const seen: string[] = [];
    const done = (async () => {
      for await (const e of csrs.watch('csr-a', controller.signal)) {
        seen.push(`${e.type} ${(e.object as { metadata: { name: string } }).metadata.name}`);
        if (seen.length === 2) controller.abort();
      }
    })();
    for (let i = 0; i < 10 && client.openWatches() === 0; i++) await new Promise((r) => setImmediate(r));
    await client.patch('/apis/certificates.k8s.io/v1/certificatesigningrequests/csr-a', { status: { certificate: 'x' } }, 'merge');
    await done;
    expect(seen).toEqual(['ADDED csr-a', 'MODIFIED csr-a']);
  });

  it('token and subject access reviews: a POST to the virtual create-only resource, returning the reply with its status', async () => {
    // Reviews are not stored and have no name, so a recording create stands in for the API server.
    const posted: { path: string; body: unknown; signal: AbortSignal | undefined }[] = [];
    const client: Pick<KubeClient, 'create'> = {
      create: <T>(path: string, body: unknown, options?: RequestOptions): Promise<T> => {
        posted.push({ path, body, signal: options?.signal });
        return Promise.resolve({ ...(body as object), status: { authenticated: true, allowed: true } } as T);
      },
    };
    const review = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 't' } };
    expect(await tokenReviewsApi(client).create(review)).toMatchObject({ spec: { token: 't' }, status: { authenticated: true } });
    const controller = new AbortController();
    const sar = { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'u' } };
    expect(await subjectAccessReviewsApi(client).create(sar, controller.signal)).toMatchObject({ status: { allowed: true } });
    expect(posted).toEqual([
      { path: '/apis/authentication.k8s.io/v1/tokenreviews', body: review, signal: undefined },
      { path: '/apis/authorization.k8s.io/v1/subjectaccessreviews', body: sar, signal: controller.signal },
    ]);
  });
});
