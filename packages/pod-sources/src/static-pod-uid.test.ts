import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { decodeStaticPod } from './static-pod.js';
import { parseManifest } from './internal/manifest.js';
import { internalPodDump } from './internal/go-pod-dump.js';
import { applyPodObjectDefaults, parsePod } from '@kubelet-ts/api';

// Produced by the upstream kubelet's own code (scripts/upstream/podfacts: its file source and
// dump.ForHash, built from k8s.io/kubernetes at the test bed's version) from these manifests, placed
// in MANIFEST_DIR on node NODE. Regenerate with `bash scripts/upstream/podfacts/vectors.sh`.
const FIXTURES = join(__dirname, '..', 'test', 'fixtures', 'static-pod-uids');
const MANIFEST_DIR = '/tmp/kubelet-ts-podfacts/manifests';
const NODE = 'node-a';

interface Vector {
  file: string;
  uid: string;
  dump: string;
  containerHashes: Record<string, string>;
}

const vectors = JSON.parse(readFileSync(join(FIXTURES, 'vectors.json'), 'utf8')) as Vector[];

function manifest(file: string): unknown {
  const parsed = parseManifest(readFileSync(join(FIXTURES, file), 'utf8'), file);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.value;
}

describe("static pod UIDs match the upstream kubelet's", () => {
  it('has a vector for every fixture manifest', () => {
    const manifests = readdirSync(FIXTURES).filter((f) => f.endsWith('.yaml'));
    expect(vectors.map((v) => v.file).sort()).toEqual(manifests.sort());
  });

  it.each(vectors.map((v) => [v.file, v] as const))('%s: the dump of the internal pod is byte-identical', (_file, vector) => {
    const decoded = parsePod(manifest(vector.file), vector.file, { validate: false, applyDefaults: false });
    if (!decoded.ok) throw new Error(JSON.stringify(decoded.errors));
    expect(internalPodDump(applyPodObjectDefaults(decoded.pod))).toBe(vector.dump);
  });

  it.each(vectors.map((v) => [v.file, v] as const))('%s: the UID is the same', (_file, vector) => {
    const result = decodeStaticPod(manifest(vector.file), { source: 'file', location: `${MANIFEST_DIR}/${vector.file}`, nodeName: NODE });
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.pod.metadata.uid).toBe(vector.uid);
    expect(result.pod.metadata.annotations?.['kubernetes.io/config.hash']).toBe(vector.uid);
  });
});
