// The README's usage snippet, run against the real control plane and compared with the README block.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NodeSchema, isNotFound } from '@kubelet-ts/api';
import { noopLogger, systemClock } from '@kubelet-ts/common';
import { readmeSnippet } from '@kubelet-ts/test-support';
import { DEFAULT_KUBE_API_BURST, DEFAULT_KUBE_API_QPS, createInformer, createKubeClient, loadKubeconfig } from '../../src/index.js';
import { env } from './helpers.js';

const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');

describe('README', () => {
  it('runs the usage snippet, which is the README block verbatim', async () => {
    const kubeconfigPath = env.nodeKubeconfig;
    const nodeName = env.nodeName;
    const logger = noopLogger;
    const controller = new AbortController();
    const signal = controller.signal;

    // README:begin
    const connection = await loadKubeconfig(kubeconfigPath);
    const shared = { connection, userAgent: 'kubelet-ts/0.1.0', logger, clock: systemClock };
    const kube = createKubeClient({ ...shared, name: 'main', qps: DEFAULT_KUBE_API_QPS, burst: DEFAULT_KUBE_API_BURST });
    // Its own connection, no throttling, 10 s deadline: pod traffic never delays the node's heartbeats.
    const heartbeat = createKubeClient({ ...shared, name: 'heartbeat', qps: -1, burst: 0, timeoutMs: 10_000 });

    const nodes = createInformer({
      client: kube,
      path: '/api/v1/nodes',
      fieldSelector: `metadata.name=${nodeName}`,
      schema: NodeSchema,
      logger,
      clock: systemClock,
    });
    nodes.addEventHandler({ onUpdate: (_old, node) => logger.debug('node changed', { node: node.metadata.name }) });
    nodes.start(signal); // list, then watch, until aborted; every error is retried with back-off
    await nodes.waitForSync(signal);

    const leasePath = `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${nodeName}`;
    const lease = await heartbeat.get(leasePath).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
    // README:end

    try {
      expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));
      expect(nodes.hasSynced()).toBe(true);
      expect(nodes.list().every((n) => n.metadata.name === nodeName)).toBe(true);
      expect(lease === undefined || (lease as { metadata: { name: string } }).metadata.name === nodeName).toBe(true);
      expect(heartbeat.stats().connectionsOpened).toBe(1);
    } finally {
      controller.abort();
      kube.closeAllConnections();
      heartbeat.closeAllConnections();
    }
  });
});
