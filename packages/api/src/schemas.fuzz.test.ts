import { fc, fuzz, fuzzRuns, hostileText, mutated } from '@kubelet-ts/test-support';
import { NodeSchema } from './node.js';
import { formatPath, parsePod } from './parse.js';

// `npm run fuzz` makes KUBELET_TS_FUZZ_SCALE times the cases: the hang guard grows with them.
jest.setTimeout(fuzzRuns(30_000));

type Json = Parameters<typeof mutated>[0];

const validPod: Json = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default', uid: 'u1', labels: { app: 'web' }, annotations: { a: 'b' }, resourceVersion: '3' },
  spec: {
    nodeName: 'node-a',
    initContainers: [{ name: 'init', image: 'busybox', command: ['true'], restartPolicy: 'Always' }],
    containers: [
      {
        name: 'app',
        image: 'nginx:1.25',
        env: [
          { name: 'A', value: '1' },
          { name: 'B', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        ],
        ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }],
        resources: { limits: { cpu: '500m', memory: '64Mi' }, requests: { cpu: '100m', memory: '32Mi' } },
        readinessProbe: { httpGet: { path: '/', port: 'http' }, periodSeconds: 5 },
        securityContext: { runAsUser: 1000, capabilities: { drop: ['ALL'] } },
        volumeMounts: [{ name: 'data', mountPath: '/data', readOnly: true }],
      },
    ],
    volumes: [{ name: 'data', hostPath: { path: '/srv', type: 'Directory' } }],
    tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }],
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
  },
  status: { phase: 'Running', podIP: '10.0.0.5', conditions: [{ type: 'Ready', status: 'True' }] },
};

const validNode: Json = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'node-a', uid: 'n1', labels: { 'kubernetes.io/hostname': 'node-a' }, resourceVersion: '9' },
  spec: { podCIDR: '10.0.0.0/24', providerID: 'kind://x', taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }] },
  status: {
    capacity: { cpu: '4', memory: '8Gi', pods: '110' },
    allocatable: { cpu: '3800m', memory: '7Gi', pods: '110' },
    conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: '2026-01-01T00:00:00Z' }],
    addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
    nodeInfo: { kubeletVersion: 'v1.34.0', osImage: 'Debian', kernelVersion: '6.1', containerRuntimeVersion: 'containerd://2.1' },
    images: [{ names: ['nginx:1.25'], sizeBytes: 1000 }],
  },
};

describe('api schemas (fuzz)', () => {
  it('parsePod: a mutated valid pod is a pod, or issues naming source, field and reason', async () => {
    await fuzz(
      'api: parsePod (mutated valid Pod)',
      fc.tuple(mutated(validPod), fc.boolean()),
      ([raw, requireTypeMeta]) => {
        const result = parsePod(raw, 'fuzz.yaml', { requireTypeMeta });
        if (result.ok) return;
        expect(result.errors.length).toBeGreaterThan(0);
        for (const e of result.errors) {
          expect(e.source).toBe('fuzz.yaml');
          expect(typeof e.path).toBe('string');
          expect(e.reason.length).toBeGreaterThan(0);
        }
        if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) expect(result.errors.some((e) => e.path !== '')).toBe(true);
      },
      { runs: 200 },
    );
  });

  it('parsePod: hostile values anywhere never throw', async () => {
    await fuzz(
      'api: parsePod (hostile JSON values)',
      fc.oneof(
        fc.jsonValue({ maxDepth: 6 }),
        hostileText().map((t) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: t } })),
      ),
      (raw) => {
        const result = parsePod(raw, 'fuzz.yaml');
        if (!result.ok) for (const e of result.errors) expect(e.reason.length).toBeGreaterThan(0);
      },
      { runs: 150 },
    );
  });

  it('NodeSchema: a mutated valid node is a node, or issues with the path at fault', async () => {
    await fuzz(
      'api: NodeSchema (mutated valid Node)',
      mutated(validNode),
      (raw) => {
        const result = NodeSchema.safeParse(raw);
        if (result.success) return;
        for (const issue of result.error.issues) {
          expect(typeof formatPath(issue.path)).toBe('string');
          expect(issue.message.length).toBeGreaterThan(0);
        }
        if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
          expect(result.error.issues.some((i) => i.path.length > 0)).toBe(true);
        }
      },
      { runs: 200 },
    );
  });
});
