// The README's usage snippet, run as a test and compared with the README block, so it cannot rot.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { newPod } from '@kubelet-ts/api/testing';
import { FakeClock, RecordingLogger, flushMicrotasks } from '@kubelet-ts/common/testing';
import { FakeKubeClient } from '@kubelet-ts/kube-client/testing';
import { readmeSnippet } from '@kubelet-ts/test-support';
import {
  createConfigMapManager,
  createObjectSource,
  createSecretManager,
  createServiceAccountTokenSource,
  createTokenManager,
  createTokenRequestApi,
} from './index.js';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('runs the usage snippet, which is the README block verbatim', async () => {
    const clock = new FakeClock();
    const logger = new RecordingLogger();
    const client = new FakeKubeClient(); // the kubelet passes its main KubeClient
    client.set('/api/v1/namespaces/shop/configmaps/web-config', {
      metadata: { name: 'web-config', namespace: 'shop' },
      data: { 'nginx.conf': 'worker_processes 1;' },
    });
    const created: unknown[] = [];
    const tokenClient = {
      create: async (_path: string, body: unknown, options?: { schema?: { parse(v: unknown): unknown } }) => {
        created.push(body);
        return options?.schema?.parse({ ...(body as object), status: { token: 'jwt', expirationTimestamp: '2026-01-01T01:00:00Z' } });
      },
    } as never;
    const pod = newPod({
      name: 'web',
      namespace: 'shop',
      spec: { serviceAccountName: 'web', volumes: [{ name: 'conf', configMap: { name: 'web-config' } }] },
    });
    const controller = new AbortController();
    const signal = controller.signal;

    // README:begin
    const configMaps = createConfigMapManager({ client, clock, logger, signal });
    const secrets = createSecretManager({ client, clock, logger, signal });
    const tokens = createTokenManager({ api: createTokenRequestApi(tokenClient), clock, logger, signal });

    // The volume manager's `sources` and the env's source; the volume manager's `tokenSource`.
    const objects = createObjectSource({ configMaps, secrets });
    const tokenSource = createServiceAccountTokenSource(tokens);

    // When the pod manager adds (or updates) a pod: one watch per object it names.
    configMaps.registerPod(pod);
    secrets.registerPod(pod);

    const conf = await objects.getConfigMap('shop', 'web-config'); // waits for the watch's first list (≤ 1 s)
    const token = await tokenSource.getServiceAccountToken(pod, { audience: '', expirationSeconds: 3600 });

    // When the pod is removed: its watches stop once no other pod names the objects.
    configMaps.unregisterPod(pod);
    secrets.unregisterPod(pod);
    tokens.deleteServiceAccountToken(pod.metadata.uid);
    // README:end

    await flushMicrotasks();
    expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));
    expect(conf?.data).toEqual({ 'nginx.conf': 'worker_processes 1;' });
    expect(token).toBe('jwt');
    expect(created).toHaveLength(1);
    expect(client.openWatches()).toBe(0);
    controller.abort();
    expect(clock.pendingTimers).toBe(0);
  });
});
