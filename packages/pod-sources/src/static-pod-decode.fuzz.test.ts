import { fc, fuzz, fuzzRuns, hostileText, mutated } from '@kubelet-ts/test-support';
import { parseManifest } from './internal/manifest.js';
import { decodeStaticPod } from './static-pod.js';
import type { SourceError } from './types.js';

// `npm run fuzz` makes KUBELET_TS_FUZZ_SCALE times the cases: the hang guard grows with them.
jest.setTimeout(fuzzRuns(30_000));

const origin = { source: 'file' as const, location: '/etc/kubernetes/manifests/fuzz.yaml', nodeName: 'node-a' };

const validPod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default', labels: { app: 'web' }, annotations: { note: 'x' } },
  spec: {
    containers: [
      {
        name: 'app',
        image: 'nginx:1.25',
        command: ['nginx', '-g', 'daemon off;'],
        env: [{ name: 'A', value: '1' }],
        ports: [{ containerPort: 80, protocol: 'TCP' }],
        resources: { limits: { cpu: '500m', memory: '64Mi' }, requests: { cpu: '100m' } },
        volumeMounts: [{ name: 'data', mountPath: '/data' }],
        livenessProbe: { httpGet: { path: '/', port: 80 }, periodSeconds: 10 },
      },
    ],
    volumes: [{ name: 'data', emptyDir: {} }],
    restartPolicy: 'Always',
    hostNetwork: false,
  },
};

/** Every source error names the manifest, has a path that is a string and a non-empty reason. */
function expectAttributed(errors: SourceError[]): void {
  expect(errors.length).toBeGreaterThan(0);
  for (const e of errors) {
    expect(e.source).toBe('file');
    expect(e.file).toBe(origin.location);
    expect(typeof e.path).toBe('string');
    expect(e.reason.length).toBeGreaterThan(0);
  }
}

describe('decodeStaticPod (fuzz)', () => {
  it('decodes a mutated valid pod or names the field at fault', async () => {
    await fuzz(
      'pod-sources: static pod decoder (mutated valid pod)',
      mutated(validPod),
      (raw) => {
        const result = decodeStaticPod(raw, origin);
        if (result.ok) {
          expect(result.pod.metadata.name).toMatch(/-node-a$/);
          return;
        }
        expectAttributed(result.errors);
        // A mutation inside the object is blamed on a field, not on the whole manifest.
        if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
          expect(result.errors.some((e) => e.path !== '')).toBe(true);
        }
      },
      { runs: 150 },
    );
  });

  it('parses hostile manifest text or reports why, then decodes the value', async () => {
    await fuzz(
      'pod-sources: manifest text parser (hostile YAML/JSON)',
      fc.tuple(hostileText(), fc.constantFrom('/m/pod.yaml', '/m/pod.json')),
      ([text, file]) => {
        const parsed = parseManifest(text, file);
        if (!parsed.ok) {
          expect(parsed.reason.length).toBeGreaterThan(0);
          return;
        }
        const result = decodeStaticPod(parsed.value, origin);
        if (!result.ok) expectAttributed(result.errors);
      },
      { runs: 40 },
    );
  });
});
