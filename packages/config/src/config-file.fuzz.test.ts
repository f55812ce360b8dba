import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fc, fuzz, fuzzRuns, hostileText, mutated } from '@kubelet-ts/test-support';
import { parse, stringify } from 'yaml';
import type { ConfigIssue } from './errors.js';
import { loadKubeletConfiguration } from './load.js';

// `npm run fuzz` makes KUBELET_TS_FUZZ_SCALE times the cases: the hang guard grows with them.
jest.setTimeout(fuzzRuns(30_000));

type Json = Parameters<typeof mutated>[0];

const FILE = '/var/lib/kubelet/config.yaml';
const DROP_IN_DIR = '/etc/kubernetes/kubelet.conf.d';
const DROP_IN = join(DROP_IN_DIR, '50-fuzz.conf');
const fixture = (name: string): Json => parse(readFileSync(join(__dirname, 'fixtures/examples', name), 'utf8')) as Json;
const fixtures = [fixture('kind-1.34.yaml'), fixture('kubeadm-1.34.yaml'), fixture('test-bed.yaml')];

/** YAML when the printer can (deep subtrees overflow it), else JSON (a deep JSON document is refused, not crashed on). */
function asText(value: Json, json: boolean): string {
  if (!json) {
    try {
      return stringify(value);
    } catch {
      // fall through
    }
  }
  try {
    return JSON.stringify(value);
  } catch {
    return `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
  }
}

const configText: fc.Arbitrary<string> = fc.oneof(
  {
    arbitrary: fc
      .tuple(
        fc.constantFrom(...fixtures).chain((f) => mutated(f)),
        fc.boolean(),
      )
      .map(([v, json]) => asText(v, json)),
    weight: 3,
  },
  { arbitrary: hostileText(), weight: 1 },
  {
    arbitrary: hostileText().map((t) => `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nstaticPodPath: ${t}\n`),
    weight: 1,
  },
);

function expectNamed(errors: ConfigIssue[], file: string): void {
  expect(errors.length).toBeGreaterThan(0);
  for (const e of errors) {
    expect(e.source.length).toBeGreaterThan(0);
    expect(e.reason.length).toBeGreaterThan(0);
    expect(typeof e.path).toBe('string');
  }
  // The file at fault is named by at least one issue (others may be cross-field checks of the merged result).
  expect(errors.map((e) => e.source)).toContain(file);
}

describe('loadKubeletConfiguration (fuzz)', () => {
  it('loads a mutated or hostile --config file, or names file, field and reason', async () => {
    await fuzz(
      'config: KubeletConfiguration file (--config)',
      configText,
      async (text) => {
        const result = await loadKubeletConfiguration({
          argv: [`--config=${FILE}`],
          readFile: (path) => (path === FILE ? Promise.resolve(text) : Promise.reject(new Error(`ENOENT: ${path}`))),
          readDir: () => Promise.resolve([]),
        });
        if (!result.ok) expectNamed(result.errors, FILE);
      },
      { runs: 120 },
    );
  });

  it('merges a hostile --config-dir drop-in over a good file, or names the drop-in', async () => {
    const good = asText(fixtures[1] as Json, false);
    await fuzz(
      'config: KubeletConfiguration drop-in (--config-dir)',
      configText,
      async (text) => {
        const files = new Map([
          [FILE, good],
          [DROP_IN, text],
        ]);
        const result = await loadKubeletConfiguration({
          argv: [`--config=${FILE}`, `--config-dir=${DROP_IN_DIR}`],
          readFile: (path) => {
            const content = files.get(path);
            return content === undefined ? Promise.reject(new Error(`ENOENT: ${path}`)) : Promise.resolve(content);
          },
          readDir: () => Promise.resolve(['50-fuzz.conf']),
        });
        if (!result.ok) expectNamed(result.errors, DROP_IN);
      },
      { runs: 60 },
    );
  });
});
