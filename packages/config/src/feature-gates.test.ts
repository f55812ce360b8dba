import { KUBELET_FEATURE_GATES, resolveFeatureGates } from './feature-gates.js';
import { ConfigError } from './errors.js';
import { loadKubeletConfiguration } from './load.js';
import { createFakeFileSystem } from './testing/index.js';

const FILE = '/etc/kubelet/config.yaml';
const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';

async function load(argv: string[], body = ''): Promise<Awaited<ReturnType<typeof loadKubeletConfiguration>>> {
  const fs = createFakeFileSystem({ [FILE]: `${HEADER}${body}` });
  return loadKubeletConfiguration({ argv: [`--config=${FILE}`, ...argv], readFile: fs.readFile, readDir: fs.readDir });
}

describe('feature gates (upstream 1.34 registry)', () => {
  it('knows alpha, beta, GA and deprecated gates, some locked', () => {
    const stages = new Set(KUBELET_FEATURE_GATES.map((g) => g.stage));
    expect([...stages].sort()).toEqual(['ALPHA', 'BETA', 'DEPRECATED', 'GA']);
    expect(KUBELET_FEATURE_GATES.some((g) => g.lockToDefault)).toBe(true);
  });

  it('rejects an unknown gate with upstream message, naming its source', async () => {
    const result = await load(['--feature-gates=NoSuchGate=true']);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual([
      { source: 'flag --feature-gates', path: 'featureGates.NoSuchGate', reason: 'unrecognized feature gate: NoSuchGate' },
    ]);
  });

  it('names the file for a gate the file set, even when --feature-gates adds others', async () => {
    const result = await load(['--feature-gates=AllAlpha=false'], 'featureGates:\n  Typo: true\n');
    expect(result.ok ? [] : result.errors).toEqual([
      { source: FILE, path: 'featureGates.Typo', reason: 'unrecognized feature gate: Typo' },
    ]);
  });

  it('refuses a locked GA gate set to the other value with upstream message', () => {
    const locked = KUBELET_FEATURE_GATES.find((g) => g.lockToDefault && g.stage === 'GA');
    expect(locked).toBeDefined();
    if (locked === undefined) return;
    const { errors } = resolveFeatureGates({ [locked.name]: !locked.default });
    expect(errors).toEqual([
      { gate: locked.name, reason: `cannot set feature gate ${locked.name} to ${!locked.default}, feature is locked to ${locked.default}` },
    ]);
  });

  it('warns when a GA gate is set to its value, as upstream', () => {
    const ga = KUBELET_FEATURE_GATES.find((g) => g.stage === 'GA');
    if (ga === undefined) throw new Error('no GA gate');
    const { errors, warnings } = resolveFeatureGates({ [ga.name]: ga.default });
    expect(errors).toEqual([]);
    expect(warnings).toEqual([`Setting GA feature gate ${ga.name}=${ga.default}. It will be removed in a future release.`]);
  });

  it('exposes the merged gates on the result: defaults, the file, then flags', async () => {
    const result = await load(['--feature-gates=InPlacePodVerticalScaling=false'], 'featureGates:\n  UserNamespacesSupport: true\n');
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.featureGates.isEnabled('InPlacePodVerticalScaling')).toBe(false);
    expect(result.featureGates.isEnabled('UserNamespacesSupport')).toBe(true);
    const defaultOn = KUBELET_FEATURE_GATES.find((g) => g.stage === 'BETA' && g.default);
    if (defaultOn === undefined) throw new Error('no default-on beta gate');
    expect(result.featureGates.isEnabled(defaultOn.name)).toBe(true);
    expect(() => result.featureGates.isEnabled('NoSuchGate')).toThrow(ConfigError);
  });

  it('AllAlpha turns on every alpha gate not set explicitly', () => {
    const alphas = KUBELET_FEATURE_GATES.filter((g) => g.stage === 'ALPHA' && g.name !== 'AllAlpha');
    const [first, second] = alphas;
    if (first === undefined || second === undefined) throw new Error('too few alpha gates');
    const { gates } = resolveFeatureGates({ AllAlpha: true, [first.name]: false });
    expect(gates.isEnabled(first.name)).toBe(false);
    expect(gates.isEnabled(second.name)).toBe(true);
  });
});
