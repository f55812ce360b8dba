import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { durationMs, formatConfigIssue, loadKubeletConfiguration, summarizeConfiguration, KUBELET_FLAGS } from './index.js';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  beforeEach(() => {
    jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('runs the usage snippet, which is the README block verbatim', async () => {
    // README:begin
    const result = await loadKubeletConfiguration({
      argv: ['--config=/etc/kubelet/config.yaml', '--max-pods=50', '--node-labels=role=edge'],
      // optional: defaults to node:fs; handy in tests
      readFile: async () => 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nsyncFrequency: 30s\n',
    });
    if (!result.ok) throw new Error(result.errors.map(formatConfigIssue).join('\n'));

    const { config, flags, warnings } = result;
    const maxPods = config.maxPods; // 50: the flag beats the file, which beats the default
    const syncMs = durationMs(config.syncFrequency); // 30000
    const labels = flags.nodeLabels; // { role: 'edge' }
    const mode = summarizeConfiguration(config, flags).mode; // 'standalone': no --kubeconfig
    for (const warning of warnings) console.warn(warning); // Flag --max-pods has been deprecated, …
    // README:end

    const source = readFileSync(__filename, 'utf8');
    const snippet = source
      .slice(source.indexOf('// README:begin') + '// README:begin'.length, source.indexOf('    // README:end'))
      .replace(/^\n/, '')
      .split('\n')
      .map((line) => line.replace(/^ {4}/, ''))
      .join('\n')
      .trimEnd();
    expect(readme).toContain(snippet);
    expect(maxPods).toBe(50);
    expect(syncMs).toBe(30_000);
    expect(labels).toEqual({ role: 'edge' });
    expect(mode).toBe('standalone');
    expect(warnings).toEqual([
      expect.stringMatching(/^Flag --max-pods has been deprecated, This parameter should be set via the config file/),
    ]);
  });

  it('documents every flag in the flag table', () => {
    const missing = KUBELET_FLAGS.filter((f) => !readme.includes(`\`--${f.name}\``)).map((f) => f.name);
    expect(missing).toEqual([]);
  });
});
