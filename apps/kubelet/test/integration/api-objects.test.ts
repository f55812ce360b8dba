/**
 * Issue 17, what pods take from the cluster: ConfigMaps and Secrets through env, envFrom and
 * volumes (updated in a running pod), a missing key's CreateContainerConfigError until the object
 * appears, the service account token of the kube-api-access volume the API server adds, and the
 * downward API in env and files (updated when a label changes) — all
 * on the real control plane, checked with kubectl. The pods copy what they see to a hostPath
 * directory, which the test reads (exec through the kubelet API comes with issue 18).
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { controlPlaneEnv } from '@kubelet-ts/test-support';
import { BUSYBOX, eventually, httpsGet } from './harness.js';
import type { KubeletUnderTest } from './harness.js';
import type { ClusterKubelet } from './cluster-kubelet.js';
import { jwtClaims, startClusterKubelet } from './cluster-kubelet.js';
import { kubectlFor } from './kubectl.js';

const cp = controlPlaneEnv();
const kubectl = kubectlFor(cp);
const ns = `kts-obj-${randomBytes(3).toString('hex')}`;

interface PodObj {
  status?: {
    phase?: string;
    containerStatuses?: Array<{ state?: { waiting?: { reason?: string; message?: string }; running?: unknown } }>;
  };
}
interface EventObj {
  reason: string;
  message: string;
  involvedObject: { name: string };
}

let kubelet: KubeletUnderTest;
let out: string;

const read = (file: string): Promise<string | undefined> =>
  fs.readFile(path.join(out, file), 'utf8').then(
    (s) => s.trim(),
    () => undefined,
  );
const pod = (name: string): Promise<PodObj | undefined> => kubectl.get<PodObj>('pod', '-n', ns, name);

/** A pod bound to the node with the host directory mounted at /out. */
function podOn(
  name: string,
  script: string,
  extra: { containers?: Record<string, unknown>; spec?: Record<string, unknown> } = {},
): unknown {
  const volumes = (extra.spec?.['volumes'] as unknown[] | undefined) ?? [];
  const mounts = (extra.containers?.['volumeMounts'] as unknown[] | undefined) ?? [];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns },
    spec: {
      nodeName: kubelet.nodeName,
      terminationGracePeriodSeconds: 1,
      automountServiceAccountToken: false,
      ...extra.spec,
      volumes: [{ name: 'out', hostPath: { path: out, type: 'Directory' } }, ...volumes],
      containers: [
        {
          name: 'c',
          image: BUSYBOX(),
          command: ['sh', '-c', script],
          ...extra.containers,
          volumeMounts: [{ name: 'out', mountPath: '/out' }, ...mounts],
        },
      ],
    },
  };
}

let cluster: ClusterKubelet;

beforeAll(async () => {
  cluster = await startClusterKubelet(cp, kubectl, 'obj', ns);
  kubelet = cluster.kubelet;
  out = path.join(kubelet.hostDir, 'out');
  await fs.mkdir(out, { recursive: true });
}, 200_000);

afterAll(() => cluster?.teardown(), 180_000);

it('a pod sees a ConfigMap and a Secret through env, envFrom and volumes; an edited ConfigMap reaches the mounted file', async () => {
  await kubectl('create', 'configmap', '-n', ns, 'app-config', '--from-literal=greeting=hello', '--from-literal=conf.txt=v1');
  await kubectl('create', 'secret', 'generic', '-n', ns, 'app-secret', '--from-literal=password=s3cr3t');
  await kubectl.apply(
    podOn(
      'consumer',
      'echo "$GREETING $PASSWORD $P_greeting" > /out/env; while true; do cat /cfg/conf.txt > /out/conf.tmp; mv /out/conf.tmp /out/conf; cat /sec/password > /out/sec; sleep 1; done',
      {
        containers: {
          env: [
            { name: 'GREETING', valueFrom: { configMapKeyRef: { name: 'app-config', key: 'greeting' } } },
            { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'app-secret', key: 'password' } } },
          ],
          envFrom: [{ prefix: 'P_', configMapRef: { name: 'app-config' } }],
          volumeMounts: [
            { name: 'cfg', mountPath: '/cfg' },
            { name: 'sec', mountPath: '/sec' },
          ],
        },
        spec: {
          volumes: [
            { name: 'cfg', configMap: { name: 'app-config' } },
            { name: 'sec', secret: { secretName: 'app-secret', defaultMode: 0o400 } },
          ],
        },
      },
    ),
  );
  await eventually('the consumer pod Running', async () => (await pod('consumer'))?.status?.phase === 'Running', 90_000, 500);
  expect(await eventually('the env file', () => read('env'), 30_000, 250)).toBe('hello s3cr3t hello');
  expect(await eventually('the mounted ConfigMap file', () => read('conf'), 30_000, 250)).toBe('v1');
  expect(await read('sec')).toBe('s3cr3t');

  const edited = Date.now();
  await kubectl('patch', 'configmap', '-n', ns, 'app-config', '--type=merge', '-p', JSON.stringify({ data: { 'conf.txt': 'v2' } }));
  await eventually('the edited ConfigMap in the mounted file', async () => (await read('conf')) === 'v2', 90_000, 500);
  process.stdout.write(
    `configmap edit: in the mounted file ${Date.now() - edited} ms after the patch (upstream bound: sync period + cache)\n`,
  );
}, 240_000);

it('a missing ConfigMap key gives CreateContainerConfigError; the container starts once the ConfigMap is created', async () => {
  await kubectl.apply(
    podOn('waits', 'echo "$LATER" > /out/later; sleep 3600', {
      containers: { env: [{ name: 'LATER', valueFrom: { configMapKeyRef: { name: 'later', key: 'k' } } }] },
    }),
  );
  const waiting = await eventually(
    'CreateContainerConfigError',
    async () => {
      const w = (await pod('waits'))?.status?.containerStatuses?.[0]?.state?.waiting;
      return w?.reason === 'CreateContainerConfigError' ? w : undefined;
    },
    60_000,
    500,
  );
  expect(waiting.message).toBe('configmap "later" not found');
  await kubectl('create', 'configmap', '-n', ns, 'later', '--from-literal=k=arrived');
  await eventually('the waiting pod Running', async () => (await pod('waits'))?.status?.phase === 'Running', 90_000, 500);
  expect(await eventually('the env value', () => read('later'), 30_000, 250)).toBe('arrived');
}, 240_000);

it('a host-network pod calls the API server with the token and CA of its kube-api-access volume (HTTP 200 on /api); the token is bound to the pod', async () => {
  // The pod itself makes the call, from the node's network namespace, as a host-network agent would:
  // with the upstream kubectl (a static Go binary, mounted from the host), the volume's token and its
  // CA file (the server's certificate is verified). busybox's own TLS cannot talk to Go's server.
  const d = '/var/run/secrets/kubernetes.io/serviceaccount';
  await kubectl.apply(
    podOn(
      'token',
      [
        `cp ${d}/token ${d}/ca.crt ${d}/namespace /out/`,
        `/kbin/kubectl --server=${cp.apiserver} --token="$(cat ${d}/token)" --certificate-authority=${d}/ca.crt get --raw /api > /out/api 2> /out/api-err; echo $? > /out/api-status`,
        'sleep 3600',
      ].join('; '),
      {
        spec: {
          automountServiceAccountToken: true,
          hostNetwork: true,
          volumes: [{ name: 'kbin', hostPath: { path: cp.upstreamBinDir, type: 'Directory' } }],
        },
        containers: { volumeMounts: [{ name: 'kbin', mountPath: '/kbin', readOnly: true }] },
      },
    ),
  );
  await eventually('the token pod Running', async () => (await pod('token'))?.status?.phase === 'Running', 90_000, 500);
  const status = await eventually("the pod's call to /api", () => read('api-status'), 60_000, 250);
  expect([status, await read('api-err')]).toEqual(['0', '']);
  expect(JSON.parse((await read('api')) ?? '')).toMatchObject({ kind: 'APIVersions' });
  const token = (await read('token')) ?? '';
  expect(await read('namespace')).toBe(ns);
  // Bound to this pod: the token's claims name it.
  expect(jwtClaims(token)['kubernetes.io']).toMatchObject({
    namespace: ns,
    pod: { name: 'token' },
    serviceaccount: { name: 'default' },
  });
  // Without a token the same call is refused: the token is what let the pod in.
  const anonymous = await httpsGet({
    host: new URL(cp.apiserver).hostname,
    port: new URL(cp.apiserver).port,
    path: '/api',
    rejectUnauthorized: false,
  });
  expect(anonymous.status).not.toBe(200);
}, 240_000);

it('downward API env and files match the pod; a label change reaches the labels file', async () => {
  const field = (name: string, fieldPath: string) => ({ name, valueFrom: { fieldRef: { fieldPath } } });
  const resource = (name: string, res: string, divisor: string) => ({ name, valueFrom: { resourceFieldRef: { resource: res, divisor } } });
  const manifest = podOn(
    'downward',
    'env | grep ^DA_ | sort > /out/da-env; while true; do cat /info/labels > /out/labels.tmp; mv /out/labels.tmp /out/labels; cp /info/annotations /info/mem /out/; sleep 1; done',
    {
      containers: {
        resources: { requests: { cpu: '250m', memory: '32Mi' }, limits: { cpu: '500m', memory: '64Mi' } },
        env: [
          field('DA_NAME', 'metadata.name'),
          field('DA_NAMESPACE', 'metadata.namespace'),
          field('DA_UID', 'metadata.uid'),
          field('DA_NODE', 'spec.nodeName'),
          field('DA_SA', 'spec.serviceAccountName'),
          field('DA_HOST_IP', 'status.hostIP'),
          field('DA_POD_IP', 'status.podIP'),
          field('DA_TIER', "metadata.labels['tier']"),
          resource('DA_CPU_REQUEST_MILLI', 'requests.cpu', '1m'),
          resource('DA_MEM_LIMIT_MI', 'limits.memory', '1Mi'),
        ],
        volumeMounts: [{ name: 'info', mountPath: '/info' }],
      },
      spec: {
        volumes: [
          {
            name: 'info',
            downwardAPI: {
              items: [
                { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
                { path: 'annotations', fieldRef: { fieldPath: 'metadata.annotations' } },
                { path: 'mem', resourceFieldRef: { containerName: 'c', resource: 'limits.memory', divisor: '1Mi' } },
              ],
            },
          },
        ],
      },
    },
  ) as { metadata: Record<string, unknown> };
  manifest.metadata['labels'] = { tier: 'web', app: 'downward' };
  manifest.metadata['annotations'] = { note: 'hello "world"' };
  await kubectl.apply(manifest);
  const running = await eventually(
    'the downward pod Running',
    async () => {
      const p = await kubectl.get<{ metadata: { uid: string }; status?: { phase?: string; podIP?: string; hostIP?: string } }>(
        'pod',
        '-n',
        ns,
        'downward',
      );
      return p?.status?.phase === 'Running' ? p : undefined;
    },
    90_000,
    500,
  );
  const env = await eventually('the env file', () => read('da-env'), 30_000, 250);
  expect(env.split('\n')).toEqual(
    [
      `DA_CPU_REQUEST_MILLI=250`,
      `DA_HOST_IP=${running.status?.hostIP ?? ''}`,
      `DA_MEM_LIMIT_MI=64`,
      `DA_NAME=downward`,
      `DA_NAMESPACE=${ns}`,
      `DA_NODE=${kubelet.nodeName}`,
      `DA_POD_IP=${running.status?.podIP ?? ''}`,
      `DA_SA=default`,
      `DA_TIER=web`,
      `DA_UID=${running.metadata.uid}`,
    ].sort(),
  );
  expect(running.status?.podIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
  expect(running.status?.hostIP).toBe(cp.nodeIp);
  expect(await eventually('the labels file', () => read('labels'), 30_000, 250)).toBe('app="downward"\ntier="web"');
  expect(await read('mem')).toBe('64');
  expect(await read('annotations')).toContain('note="hello \\"world\\""');
  const changed = Date.now();
  await kubectl('label', 'pod', '-n', ns, 'downward', 'tier=db', '--overwrite');
  await eventually('the new label in the file', async () => (await read('labels')) === 'app="downward"\ntier="db"', 90_000, 250);
  process.stdout.write(`downward API: label change in the file ${Date.now() - changed} ms after kubectl label\n`);
}, 240_000);

it('a pod pulls from the authenticated registry with its imagePullSecret; wrong credentials give ErrImagePull, then ImagePullBackOff', async () => {
  const registry = process.env['KUBELET_TS_AUTH_REGISTRY'] ?? '';
  const user = process.env['KUBELET_TS_REGISTRY_USER'] ?? '';
  const password = process.env['KUBELET_TS_REGISTRY_PASSWORD'] ?? '';
  expect(registry).not.toBe('');
  const secret = (name: string, pw: string): Promise<string> =>
    kubectl(
      'create',
      'secret',
      'docker-registry',
      '-n',
      ns,
      name,
      `--docker-server=${registry}`,
      `--docker-username=${user}`,
      `--docker-password=${pw}`,
    );
  await secret('registry-good', password);
  await secret('registry-bad', 'not-the-password');
  // Always: the image may already be on the node; the pull (and its credentials) must happen.
  const privateImage = { image: `${registry}/kubelet-ts/busybox:private`, imagePullPolicy: 'Always' };
  await kubectl.apply(
    podOn('private', 'sleep 3600', { containers: privateImage, spec: { imagePullSecrets: [{ name: 'registry-good' }] } }),
  );
  await kubectl.apply(podOn('denied', 'sleep 3600', { containers: privateImage, spec: { imagePullSecrets: [{ name: 'registry-bad' }] } }));
  await eventually('the private pod Running', async () => (await pod('private'))?.status?.phase === 'Running', 90_000, 500);
  await eventually(
    'the denied pod in ImagePullBackOff',
    async () => (await pod('denied'))?.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff',
    90_000,
    500,
  );
  const events = (await kubectl.json<{ items: EventObj[] }>('get', 'events', '-n', ns)).items.filter(
    (e) => e.involvedObject.name === 'denied',
  );
  expect(events.map((e) => `${e.reason}: ${e.message}`)).toEqual(
    expect.arrayContaining(['Failed: Error: ErrImagePull', 'Failed: Error: ImagePullBackOff']),
  );
}, 240_000);
