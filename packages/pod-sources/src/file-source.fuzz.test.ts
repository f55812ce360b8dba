import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '@kubelet-ts/common/testing';
import { fc, fuzz, fuzzRuns, hostileBytes, hostileText, mutated, yamlAliasBomb } from '@kubelet-ts/test-support';
import { stringify } from 'yaml';
import { createFileSource } from './file-source.js';
import { jsonText } from './internal/test-helpers.js';
import type { SourceError, SourceEvent } from './types.js';

// `npm run fuzz` makes KUBELET_TS_FUZZ_SCALE times the cases: the hang guard grows with them.
jest.setTimeout(fuzzRuns(30_000));

const goodYaml = `apiVersion: v1
kind: Pod
metadata:
  name: good
spec:
  containers:
  - name: app
    image: nginx:1.25
`;

const validPod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'fuzzed', labels: { app: 'web' } },
  spec: {
    containers: [
      {
        name: 'app',
        image: 'nginx:1.25',
        args: ['-g', 'daemon off;'],
        env: [{ name: 'A', value: '1' }],
        ports: [{ containerPort: 80 }],
        resources: { limits: { cpu: '500m', memory: '64Mi' } },
      },
    ],
    restartPolicy: 'Always',
  },
};

/** YAML when the value can be printed as YAML (deep subtrees overflow the printer), else JSON. */
function asYaml(value: unknown): string {
  try {
    return stringify(value);
  } catch {
    return jsonText(value);
  }
}

/** What a fuzzed manifest file holds: bytes, hostile text, a mutated pod as YAML or JSON, several documents, a BOM. */
const manifestBytes: fc.Arbitrary<Uint8Array> = fc.oneof(
  hostileBytes(),
  hostileText().map((text) => Buffer.from(text, 'utf8')),
  mutated(validPod).map((pod) => Buffer.from(jsonText(pod), 'utf8')),
  mutated(validPod).map((pod) => Buffer.from(asYaml(pod), 'utf8')),
  fc
    .tuple(mutated(validPod), fc.constantFrom('\uFEFF', ''), fc.integer({ min: 1, max: 3 }))
    .map(([pod, bom, copies]) => Buffer.from(bom + Array.from({ length: copies }, () => asYaml(pod)).join('---\n'), 'utf8')),
  fc.integer({ min: 2, max: 12 }).map((levels) => Buffer.from(`${yamlAliasBomb(levels, 9)}\napiVersion: v1\nkind: Pod\n`, 'utf8')),
  fc.json({ maxDepth: 3 }).map((text) => Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()])),
  // A pod in UTF-16 (either byte order, with its BOM): read as upstream's go-yaml does.
  fc.tuple(mutated(validPod), fc.boolean()).map(([pod, le]) => {
    const wide = Buffer.from(asYaml(pod), 'utf16le');
    return Buffer.concat([Buffer.from(le ? [0xff, 0xfe] : [0xfe, 0xff]), le ? wide : wide.swap16()]);
  }),
);

/** Runs a file source over `dir` until its first full set, with the events before it. */
async function firstSet(dir: string, maxFileBytes: number): Promise<{ pods: string[]; errors: SourceError[] }> {
  const events: SourceEvent[] = [];
  const controller = new AbortController();
  let resolveSet: (() => void) | undefined;
  const gotSet = new Promise<void>((resolve) => (resolveSet = resolve));
  const source = createFileSource({ path: dir, nodeName: 'node-a', clock: new FakeClock(), watch: false, maxFileBytes });
  const done = source.run((e) => {
    events.push(e);
    if (e.kind === 'set') resolveSet?.();
  }, controller.signal);
  await gotSet;
  controller.abort();
  await done;
  const set = events.find((e) => e.kind === 'set');
  return {
    pods: set?.kind === 'set' ? set.pods.map((p) => p.metadata.name) : [],
    errors: events.flatMap((e) => (e.kind === 'error' ? e.errors : [])),
  };
}

describe('createFileSource (fuzz)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pod-sources-fuzz-'));
    await writeFile(join(dir, 'a-good.yaml'), goodYaml);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps the good manifest and reports the fuzzed one with its file, field and reason', async () => {
    const fuzzedFile = join(dir, 'b-fuzzed.yaml');
    await fuzz(
      'pod-sources: static manifest file (YAML/JSON, any bytes)',
      manifestBytes,
      async (bytes) => {
        await writeFile(fuzzedFile, bytes);
        // 1 MiB limit so the 4 MiB hostile strings exercise the size check.
        const { pods, errors } = await firstSet(dir, 1024 * 1024);
        expect(pods).toContain('good-node-a');
        for (const e of errors) {
          expect(e.source).toBe('file');
          expect(e.file).toBe(fuzzedFile);
          expect(typeof e.path).toBe('string');
          expect(e.reason.length).toBeGreaterThan(0);
        }
        // The fuzzed file either made a pod of its own or was reported.
        if (!pods.some((name) => name !== 'good-node-a')) expect(errors.length).toBeGreaterThan(0);
      },
      { runs: 80 },
    );
  });
});
