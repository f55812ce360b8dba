import fs from 'node:fs';
import path from 'node:path';
import { formatMicroTime, isAlreadyExists, isConflict, isNotFound } from '@kubelet-ts/api';
import { Cleanup, waitFor } from '@kubelet-ts/test-support';
import { KubeClientError } from '../../src/index.js';
import type { KubeClient } from '../../src/index.js';
import { adminConnection, client, env, testNode, uniqueName } from './helpers.js';

interface NodeObject {
  metadata: { name: string; resourceVersion: string; labels?: Record<string, string> };
  status?: { conditions?: { type: string; status: string; reason?: string }[] };
}

describe('requests against the real API server', () => {
  const cleanup = new Cleanup();
  let admin: KubeClient;
  beforeAll(async () => {
    admin = client(await adminConnection());
    cleanup.add(() => admin.closeAllConnections());
  });
  afterAll(() => cleanup.run());

  const createNode = async (): Promise<string> => {
    const name = uniqueName('node');
    await admin.create('/api/v1/nodes', testNode(name));
    cleanup.add(() => admin.delete(`/api/v1/nodes/${name}`).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err))));
    return name;
  };

  it('creates, gets, strategic-merge patches nodes/status, and deletes a Node; errors classify', async () => {
    const name = await createNode();
    expect(isAlreadyExists(await admin.create('/api/v1/nodes', testNode(name)).catch((e: unknown) => e))).toBe(true);
    const node = (await admin.get(`/api/v1/nodes/${name}`)) as NodeObject;
    expect(node.status?.conditions?.map((c) => c.type)).toEqual(['MemoryPressure']);

    // Strategic merge: conditions merge by type, so the new one joins the old one (a merge patch would replace the list).
    const patch = {
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'KubeletNotReady',
            message: 'test',
            lastHeartbeatTime: '2026-01-01T00:00:05Z',
            lastTransitionTime: '2026-01-01T00:00:05Z',
          },
        ],
      },
    };
    const patched = (await admin.patch(`/api/v1/nodes/${name}/status`, patch)) as NodeObject;
    expect(patched.status?.conditions?.map((c) => c.type).sort()).toEqual(['MemoryPressure', 'Ready']);

    // The JSON-patch content type with an object body is refused.
    const wrong = await admin.patch(`/api/v1/nodes/${name}`, { metadata: { labels: { a: 'b' } } }, 'json').catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(KubeClientError);
    expect(wrong).toMatchObject({ code: 'API_STATUS', statusCode: 400, reason: 'BadRequest' });

    // A stale resourceVersion on PUT is a Conflict (409, told apart from AlreadyExists by reason).
    const stale = await admin
      .update(`/api/v1/nodes/${name}`, { ...node, metadata: { ...node.metadata, labels: { x: 'y' } } })
      .catch((e: unknown) => e);
    expect([isConflict(stale), isAlreadyExists(stale)]).toEqual([true, false]);

    await admin.delete(`/api/v1/nodes/${name}`);
    expect(isNotFound(await admin.get(`/api/v1/nodes/${name}`).catch((e: unknown) => e))).toBe(true);
  });

  it('a Lease with a MicroTime renewTime (6 digits) is accepted; 3 digits are a 400', async () => {
    const name = uniqueName('lease');
    const leases = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
    const lease = (renewTime: string) => ({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name },
      spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime },
    });
    const threeDigits = await admin.create(leases, lease(new Date().toISOString())).catch((e: unknown) => e);
    expect(threeDigits).toMatchObject({
      statusCode: 400,
      reason: 'BadRequest',
      message: expect.stringContaining('2006-01-02T15:04:05.000000Z07:00'),
    });
    const renewTime = formatMicroTime(Date.now());
    const created = (await admin.create(leases, lease(renewTime))) as { spec: { renewTime: string } };
    cleanup.add(() => admin.delete(`${leases}/${name}`));
    expect(created.spec.renewTime).toBe(renewTime);
    expect(renewTime).toMatch(/\.\d{6}Z$/);
  });

  it('reuses one TLS connection for sequential requests (and a heartbeat client has its own)', async () => {
    const main = client(await adminConnection(), { name: 'main' });
    const heartbeat = client(await adminConnection(), { name: 'heartbeat', qps: -1, timeoutMs: 10_000 });
    cleanup.add(() => main.closeAllConnections());
    cleanup.add(() => heartbeat.closeAllConnections());
    for (let i = 0; i < 25; i++) await main.get('/api/v1/namespaces/default');
    for (let i = 0; i < 5; i++) await heartbeat.get('/api/v1/namespaces/default');
    expect(main.stats()).toEqual({ requests: 25, rateLimited: 0, connectionsOpened: 1 });
    expect(heartbeat.stats()).toEqual({ requests: 5, rateLimited: 0, connectionsOpened: 1 });
  });

  it('sends ?timeout= with the client timeout (seen in the audit log)', async () => {
    const marker = uniqueName('ua');
    const heartbeat = client(await adminConnection(), { name: 'heartbeat', qps: -1, timeoutMs: 10_000, userAgent: marker });
    cleanup.add(() => heartbeat.closeAllConnections());
    await heartbeat.get('/api/v1/namespaces/default');
    const audit = path.join(env.logDir, 'audit.log');
    const line = await waitFor(
      'the request in the audit log',
      () =>
        fs
          .readFileSync(audit, 'utf8')
          .split('\n')
          .find((l) => l.includes(marker)),
      20_000,
      250,
    );
    expect((JSON.parse(line) as { requestURI: string }).requestURI).toBe('/api/v1/namespaces/default?timeout=10s');
  });

  it('throttles requests beyond the burst on the client side', async () => {
    const throttled = client(await adminConnection(), { name: 'throttled', qps: 5, burst: 3 });
    cleanup.add(() => throttled.closeAllConnections());
    await Promise.all(Array.from({ length: 6 }, () => throttled.get('/api/v1/namespaces/default')));
    expect(throttled.stats()).toMatchObject({ requests: 6, rateLimited: 3 });
  });
});
