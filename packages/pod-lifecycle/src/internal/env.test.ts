import type { Container, Pod, Service } from '@kubelet-ts/api';
import { ServiceSchema } from '@kubelet-ts/api';
import { makePod } from '../testing/make-pod.js';
import { PodLifecycleError } from '../errors.js';
import { makeEnvironmentVariables } from './env.js';
import type { ConfigMapSecretSource, EnvContext } from './env.js';
import type { ServiceLister } from './service-env.js';

function ctx(container: Partial<Container>, pod?: Pod, extra: Partial<EnvContext> = {}): EnvContext {
  const p =
    pod ??
    makePod({
      name: 'web',
      namespace: 'prod',
      uid: 'uid-123',
      labels: { app: 'web', tier: 'front' },
      annotations: { owner: 'team "a"' },
      spec: { nodeName: 'node-a', serviceAccountName: 'sa' },
    });
  return {
    pod: p,
    container: { name: 'app', image: 'busybox', ...container },
    podIPs: ['10.88.0.5', 'fd00::5'],
    nodeName: 'node-1',
    nodeIPs: ['192.168.1.10', 'fd00::10'],
    allocatable: { cpuMilli: 4000, memoryBytes: 8 * 1024 ** 3, ephemeralStorageBytes: 100 * 1024 ** 3 },
    source: undefined,
    services: undefined,
    ...extra,
  };
}

const asRecord = (env: Array<{ name: string; value: string }>): Record<string, string> =>
  Object.fromEntries(env.map((e) => [e.name, e.value]));

async function errorOf(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe('makeEnvironmentVariables', () => {
  it('expands $(VAR) against earlier variables only, with $$ as an escape', async () => {
    const env = await makeEnvironmentVariables(
      ctx({
        env: [
          { name: 'A', value: 'a' },
          { name: 'B', value: '$(A)-b' },
          { name: 'C', value: '$(D)' },
          { name: 'D', value: 'd' },
          { name: 'E', value: '$$(A)' },
        ],
      }),
    );
    expect(env).toEqual([
      { name: 'A', value: 'a' },
      { name: 'B', value: 'a-b' },
      { name: 'C', value: '$(D)' },
      { name: 'D', value: 'd' },
      { name: 'E', value: '$(A)' },
    ]);
  });

  it('resolves every supported fieldRef', async () => {
    const paths = [
      'metadata.name',
      'metadata.namespace',
      'metadata.uid',
      "metadata.labels['app']",
      "metadata.annotations['owner']",
      'metadata.labels',
      'spec.nodeName',
      'spec.serviceAccountName',
      'status.hostIP',
      'status.hostIPs',
      'status.podIP',
      'status.podIPs',
    ];
    const env = await makeEnvironmentVariables(
      ctx({ env: paths.map((fieldPath, i) => ({ name: `V${i}`, valueFrom: { fieldRef: { fieldPath } } })) }),
    );
    expect(env.map((e) => e.value)).toEqual([
      'web',
      'prod',
      'uid-123',
      'web',
      'team "a"',
      'app="web"\ntier="front"',
      'node-a',
      'sa',
      '192.168.1.10',
      '192.168.1.10,fd00::10',
      '10.88.0.5',
      '10.88.0.5,fd00::5',
    ]);
  });

  it('falls back to the kubelet node name and gives host-network pods the node IPs', async () => {
    const pod = makePod({ hostNetwork: true });
    const env = await makeEnvironmentVariables(
      ctx(
        {
          env: [
            { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
            { name: 'IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
          ],
        },
        pod,
        { podIPs: [] },
      ),
    );
    expect(asRecord(env)).toEqual({ NODE: 'node-1', IP: '192.168.1.10' });
  });

  it('rejects an unsupported fieldPath', async () => {
    const err = await errorOf(
      makeEnvironmentVariables(ctx({ env: [{ name: 'X', valueFrom: { fieldRef: { fieldPath: 'spec.bogus' } } }] })),
    );
    expect(PodLifecycleError.is(err, 'CREATE_CONTAINER_CONFIG_ERROR')).toBe(true);
    expect((err as Error).message).toBe('unsupported fieldPath: spec.bogus');
  });

  it('resolves resourceFieldRef with divisors, rounding up, and limits defaulting to node allocatable', async () => {
    const env = await makeEnvironmentVariables(
      ctx({
        resources: { limits: { cpu: '500m', memory: '512Mi' }, requests: { cpu: '250m', memory: '128Mi' } },
        env: [
          { name: 'CPU_LIMIT', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } },
          { name: 'CPU_LIMIT_M', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1m' } } },
          { name: 'CPU_REQ_M', valueFrom: { resourceFieldRef: { resource: 'requests.cpu', divisor: '1m' } } },
          { name: 'MEM_LIMIT_MI', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } },
          { name: 'MEM_REQ', valueFrom: { resourceFieldRef: { resource: 'requests.memory' } } },
          { name: 'EPH_LIMIT_GI', valueFrom: { resourceFieldRef: { resource: 'limits.ephemeral-storage', divisor: '1Gi' } } },
        ],
      }),
    );
    expect(asRecord(env)).toEqual({
      CPU_LIMIT: '1',
      CPU_LIMIT_M: '500',
      CPU_REQ_M: '250',
      MEM_LIMIT_MI: '512',
      MEM_REQ: String(128 * 1024 * 1024),
      EPH_LIMIT_GI: '100',
    });
    const unlimited = await makeEnvironmentVariables(
      ctx({ env: [{ name: 'C', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } }] }),
    );
    expect(asRecord(unlimited)).toEqual({ C: '4' });
  });

  it('rejects an unsupported resource', async () => {
    const err = await errorOf(
      makeEnvironmentVariables(ctx({ env: [{ name: 'X', valueFrom: { resourceFieldRef: { resource: 'limits.gpu' } } }] })),
    );
    expect((err as Error).message).toBe('unsupported container resource : limits.gpu');
  });

  describe('configMap and secret references', () => {
    const source: ConfigMapSecretSource = {
      async getConfigMap(ns, name) {
        return name === 'settings'
          ? { namespace: ns, name, data: { LEVEL: 'debug', 'bad name': 'x', MODE: 'fast' }, binaryData: { BIN: Buffer.from('b') } }
          : undefined;
      },
      async getSecret(ns, name) {
        return name === 'creds' ? { namespace: ns, name, type: 'Opaque', data: { PASSWORD: Buffer.from('s3cret') } } : undefined;
      },
    };

    it('reads keys and envFrom (with prefix, skipping invalid names), env overriding envFrom', async () => {
      const env = await makeEnvironmentVariables(
        ctx(
          {
            envFrom: [{ configMapRef: { name: 'settings' }, prefix: 'CFG_' }, { secretRef: { name: 'creds' } }],
            env: [
              { name: 'CFG_MODE', value: 'slow-$(CFG_LEVEL)' },
              { name: 'KEY', valueFrom: { configMapKeyRef: { name: 'settings', key: 'LEVEL' } } },
              { name: 'PW', valueFrom: { secretKeyRef: { name: 'creds', key: 'PASSWORD' } } },
              { name: 'OPT', valueFrom: { configMapKeyRef: { name: 'missing', key: 'x', optional: true } } },
            ],
          },
          undefined,
          { source },
        ),
      );
      expect(asRecord(env)).toEqual({ CFG_LEVEL: 'debug', CFG_MODE: 'slow-debug', PASSWORD: 's3cret', KEY: 'debug', PW: 's3cret' });
    });

    it.each([
      [{ configMapKeyRef: { name: 'missing', key: 'k' } }, 'configmap "missing" not found'],
      [{ configMapKeyRef: { name: 'settings', key: 'nope' } }, "couldn't find key nope in ConfigMap prod/settings"],
      [{ secretKeyRef: { name: 'creds', key: 'nope' } }, "couldn't find key nope in Secret prod/creds"],
      [{ secretKeyRef: { name: 'gone', key: 'k' } }, 'secret "gone" not found'],
    ])('fails with upstream messages: %j', async (valueFrom, message) => {
      const err = await errorOf(makeEnvironmentVariables(ctx({ env: [{ name: 'X', valueFrom }] }, undefined, { source })));
      expect(PodLifecycleError.is(err, 'CREATE_CONTAINER_CONFIG_ERROR')).toBe(true);
      expect((err as Error).message).toBe(message);
    });

    it('standalone (no source): a required reference fails as upstream, an optional one is skipped', async () => {
      const required = await errorOf(
        makeEnvironmentVariables(ctx({ env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k' } } }] })),
      );
      expect((required as Error).message).toBe("couldn't get configMap prod/cm, no kubeClient defined");
      const fromSecret = await errorOf(makeEnvironmentVariables(ctx({ envFrom: [{ secretRef: { name: 's' } }] })));
      expect((fromSecret as Error).message).toBe("couldn't get secret prod/s, no kubeClient defined");
      const optional = await makeEnvironmentVariables(
        ctx({
          env: [
            { name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'k', optional: true } } },
            { name: 'Y', value: 'y' },
          ],
        }),
      );
      expect(optional).toEqual([{ name: 'Y', value: 'y' }]);
    });
  });
});

describe('service environment variables', () => {
  const service = (namespace: string, name: string, clusterIP: string, ports: Array<Record<string, unknown>>): Service =>
    ServiceSchema.parse({ metadata: { name, namespace }, spec: { clusterIP, ports } });
  const lister = (services: Service[], synced = true): ServiceLister => ({ hasSynced: () => synced, list: () => services });
  const services = [
    service('default', 'kubernetes', '10.96.0.1', [{ name: 'https', port: 443, protocol: 'TCP' }]),
    service('default', 'other', '10.96.0.9', [{ port: 80 }]),
    service('prod', 'my-db', '10.96.0.20', [
      { name: 'sql', port: 5432, protocol: 'TCP' },
      { name: 'metrics', port: 9187, protocol: 'UDP' },
    ]),
    service('prod', 'headless', 'None', [{ port: 80 }]),
    service('prod', 'v6', 'fd00::20', [{ port: 8080 }]),
  ];

  it('gives the master service and every service of the namespace, upstream names and values, after the container env', async () => {
    const env = await makeEnvironmentVariables(
      ctx({ env: [{ name: 'DB', value: 'tcp://$(MY_DB_SERVICE_HOST):$(MY_DB_SERVICE_PORT_SQL)' }] }, undefined, {
        services: lister(services),
      }),
    );
    expect(env[0]).toEqual({ name: 'DB', value: 'tcp://10.96.0.20:5432' });
    expect(asRecord(env)).toEqual({
      DB: 'tcp://10.96.0.20:5432',
      KUBERNETES_SERVICE_HOST: '10.96.0.1',
      KUBERNETES_SERVICE_PORT: '443',
      KUBERNETES_SERVICE_PORT_HTTPS: '443',
      KUBERNETES_PORT: 'tcp://10.96.0.1:443',
      KUBERNETES_PORT_443_TCP: 'tcp://10.96.0.1:443',
      KUBERNETES_PORT_443_TCP_PROTO: 'tcp',
      KUBERNETES_PORT_443_TCP_PORT: '443',
      KUBERNETES_PORT_443_TCP_ADDR: '10.96.0.1',
      MY_DB_SERVICE_HOST: '10.96.0.20',
      MY_DB_SERVICE_PORT: '5432',
      MY_DB_SERVICE_PORT_SQL: '5432',
      MY_DB_SERVICE_PORT_METRICS: '9187',
      MY_DB_PORT: 'tcp://10.96.0.20:5432',
      MY_DB_PORT_5432_TCP: 'tcp://10.96.0.20:5432',
      MY_DB_PORT_5432_TCP_PROTO: 'tcp',
      MY_DB_PORT_5432_TCP_PORT: '5432',
      MY_DB_PORT_5432_TCP_ADDR: '10.96.0.20',
      MY_DB_PORT_9187_UDP: 'udp://10.96.0.20:9187',
      MY_DB_PORT_9187_UDP_PROTO: 'udp',
      MY_DB_PORT_9187_UDP_PORT: '9187',
      MY_DB_PORT_9187_UDP_ADDR: '10.96.0.20',
      V6_SERVICE_HOST: 'fd00::20',
      V6_SERVICE_PORT: '8080',
      V6_PORT: 'tcp://[fd00::20]:8080',
      V6_PORT_8080_TCP: 'tcp://[fd00::20]:8080',
      V6_PORT_8080_TCP_PROTO: 'tcp',
      V6_PORT_8080_TCP_PORT: '8080',
      V6_PORT_8080_TCP_ADDR: 'fd00::20',
    });
  });

  it('without enableServiceLinks gives the master services only; a container variable of the same name wins', async () => {
    const pod = makePod({ name: 'web', namespace: 'prod', spec: { enableServiceLinks: false } });
    const env = asRecord(
      await makeEnvironmentVariables(
        ctx({ env: [{ name: 'KUBERNETES_SERVICE_PORT', value: 'mine' }] }, pod, { services: lister(services) }),
      ),
    );
    expect(Object.keys(env).filter((k) => !k.startsWith('KUBERNETES_'))).toEqual([]);
    expect(env['KUBERNETES_SERVICE_PORT']).toBe('mine');
    expect(env['KUBERNETES_SERVICE_HOST']).toBe('10.96.0.1');
  });

  it('refuses a non-static pod until the services were listed once; a static pod starts with what is known', async () => {
    const err = await errorOf(makeEnvironmentVariables(ctx({}, undefined, { services: lister(services, false) })));
    expect(err).toBeInstanceOf(PodLifecycleError);
    expect(err).toMatchObject({
      code: 'CREATE_CONTAINER_CONFIG_ERROR',
      message: 'services have not yet been read at least once, cannot construct envvars',
    });
    const staticPod = makePod({ name: 'web', namespace: 'prod', annotations: { 'kubernetes.io/config.source': 'file' } });
    const env = asRecord(await makeEnvironmentVariables(ctx({}, staticPod, { services: lister(services, false) })));
    expect(env['KUBERNETES_SERVICE_HOST']).toBe('10.96.0.1');
  });
});
