import { isNotFound, isResourceExpired } from '@kubelet-ts/api';
import { systemClock } from '@kubelet-ts/common';
import { RecordingLogger } from '@kubelet-ts/common/testing';
import { Cleanup, waitFor } from '@kubelet-ts/test-support';
import { z } from 'zod';
import { createInformer } from '../../src/index.js';
import type { KubeClient } from '../../src/index.js';
import { adminConnection, client, testNode, uniqueName } from './helpers.js';

const NodeSchema = z.object({
  metadata: z.object({ name: z.string(), resourceVersion: z.string(), labels: z.record(z.string(), z.string()).optional() }),
});
type NodeObject = z.infer<typeof NodeSchema>;

describe('informer against the real API server', () => {
  const cleanup = new Cleanup();
  let admin: KubeClient;
  beforeAll(async () => {
    admin = client(await adminConnection());
    cleanup.add(() => admin.closeAllConnections());
  });
  afterAll(() => cleanup.run());

  const deleteIgnoringNotFound = (p: string) => () =>
    admin.delete(p).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));

  const startNodeInformer = (c: KubeClient, name: string, logger = new RecordingLogger()) => {
    const informer = createInformer<NodeObject>({
      client: c,
      path: '/api/v1/nodes',
      fieldSelector: `metadata.name=${name}`,
      schema: NodeSchema,
      logger,
      clock: systemClock,
    });
    const events: string[] = [];
    informer.addEventHandler({
      onAdd: (n) => events.push(`ADDED ${n.metadata.labels?.step ?? ''}`),
      onUpdate: (_o, n) => events.push(`MODIFIED ${n.metadata.labels?.step ?? ''}`),
      onDelete: () => events.push('DELETED'),
    });
    const controller = new AbortController();
    cleanup.add(() => controller.abort());
    informer.start(controller.signal);
    return { informer, events, logger };
  };

  it('with a field selector sees ADDED, MODIFIED and DELETED of its object only', async () => {
    const name = uniqueName('inf');
    const other = uniqueName('other');
    const { informer, events } = startNodeInformer(admin, name);
    await informer.waitForSync();
    await admin.create('/api/v1/nodes', testNode(other));
    cleanup.add(deleteIgnoringNotFound(`/api/v1/nodes/${other}`));
    await admin.create('/api/v1/nodes', { ...testNode(name), metadata: { name, labels: { step: 'one' } } });
    cleanup.add(deleteIgnoringNotFound(`/api/v1/nodes/${name}`));
    await waitFor('ADDED', () => events.includes('ADDED one'));
    await admin.patch(`/api/v1/nodes/${name}`, { metadata: { labels: { step: 'two' } } });
    await waitFor('MODIFIED', () => events.includes('MODIFIED two'));
    expect(informer.get(name)?.metadata.labels?.step).toBe('two');
    await admin.delete(`/api/v1/nodes/${name}`);
    await waitFor('DELETED', () => events.includes('DELETED'));
    expect(informer.list()).toEqual([]);
    // The controller manager may touch the Node between our writes (taints, annotations): only ours matter.
    expect(events.filter((e) => !e.startsWith('MODIFIED'))).toEqual(['ADDED one', 'DELETED']);
  });

  it('survives a dropped connection (closeAllConnections mid-watch) and resumes', async () => {
    const name = uniqueName('drop');
    const own = client(await adminConnection(), { name: 'informer' });
    cleanup.add(() => own.closeAllConnections());
    await admin.create('/api/v1/nodes', { ...testNode(name), metadata: { name, labels: { step: 'one' } } });
    cleanup.add(deleteIgnoringNotFound(`/api/v1/nodes/${name}`));
    const { informer, events, logger } = startNodeInformer(own, name);
    await informer.waitForSync();
    expect(events).toEqual(['ADDED one']);
    await waitFor('the watch to be open', () => own.stats().requests >= 2);
    own.closeAllConnections();
    await waitFor('the failure to be noticed', () => logger.records.some((r) => r.msg === 'List/watch failed, retrying after back-off'));
    await admin.patch(`/api/v1/nodes/${name}`, { metadata: { labels: { step: 'two' } } });
    await waitFor('the change after the reconnect', () => events.includes('MODIFIED two'), 30_000);
    // Resumed from the last resourceVersion: one list, and a new connection.
    expect(informer.get(name)?.metadata.labels?.step).toBe('two');
    expect(own.stats().connectionsOpened).toBe(2);
    expect(logger.records.filter((r) => r.msg === 'Listed')).toHaveLength(1);
  });

  describe('410 Expired', () => {
    // A custom resource's watch cache starts at the resourceVersion at which its CRD was established,
    // so a watch from resourceVersion "1" is always older than that cache: a real, reliable 410.
    const plural = `kc${uniqueName('crd').replace(/[^a-z0-9]/g, '')}s`;
    const group = 'kubelet-ts.test';
    const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${plural}.${group}`;
    const collection = `/apis/${group}/v1/namespaces/default/${plural}`;
    const ItemSchema = z.object({ metadata: z.object({ name: z.string(), namespace: z.string() }), spec: z.object({ n: z.number() }) });

    beforeAll(async () => {
      await admin.create('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `${plural}.${group}` },
        spec: {
          group,
          scope: 'Namespaced',
          names: { plural, singular: plural.slice(0, -1), kind: `Kc${plural.slice(2, -1)}`, listKind: `Kc${plural.slice(2, -1)}List` },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { n: { type: 'integer' } } } } },
              },
            },
          ],
        },
      });
      cleanup.add(deleteIgnoringNotFound(crdPath));
      await waitFor(
        'the CRD to be served',
        () =>
          admin.list(collection).then(
            () => true,
            () => false,
          ),
        60_000,
        250,
      );
    });

    const item = (name: string, n: number) => ({
      apiVersion: `${group}/v1`,
      kind: `Kc${plural.slice(2, -1)}`,
      metadata: { name },
      spec: { n },
    });

    it('a watch from a too-old resourceVersion ends with an ERROR event carrying 410 Expired', async () => {
      const controller = new AbortController();
      cleanup.add(() => controller.abort());
      const err = await (async () => {
        for await (const _ of admin.watch(`/apis/${group}/v1/${plural}`, { resourceVersion: '1' }, controller.signal))
          throw new Error('no event expected');
      })().catch((e: unknown) => e);
      expect(isResourceExpired(err)).toBe(true);
      expect(err).toMatchObject({
        code: 'API_STATUS',
        statusCode: 410,
        reason: 'Expired',
        message: expect.stringContaining('watch ERROR event: too old resource version: 1'),
      });
    });

    it('the informer relists after it and carries on', async () => {
      await admin.create(collection, item('before', 1));
      // The informer's first watch is sent from resourceVersion "1": the server's answer is a real 410.
      let first = true;
      const wrapped: Pick<KubeClient, 'list' | 'watch'> = {
        list: (p: string, o?: object) => admin.list(p, o),
        watch: (p, q, s) => {
          const query = first ? { ...q, resourceVersion: '1' } : q;
          first = false;
          return admin.watch(p, query, s);
        },
      };
      const logger = new RecordingLogger();
      const informer = createInformer({
        client: wrapped,
        path: `/apis/${group}/v1/${plural}`,
        schema: ItemSchema,
        logger,
        clock: systemClock,
      });
      const controller = new AbortController();
      cleanup.add(() => controller.abort());
      informer.start(controller.signal);
      await informer.waitForSync();
      expect(informer.get('default/before')?.spec.n).toBe(1);
      await waitFor('the relist', () => logger.records.filter((r) => r.msg === 'Listed').length === 2, 30_000);
      expect(logger.records.some((r) => r.msg === 'Resource version too old, relisting')).toBe(true);
      await admin.create(collection, item('after', 2));
      await waitFor('the object created after the relist', () => informer.get('default/after')?.spec.n === 2, 30_000);
    });
  });
});
