import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatConfigIssue } from './errors.js';
import { loadKubeletConfiguration } from './load.js';

const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';

describe('loadKubeletConfiguration on the real filesystem', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kubelet-config-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a relative --config and --config-dir from cwd with node:fs', async () => {
    await writeFile(join(dir, 'config.yaml'), `${HEADER}staticPodPath: manifests\nmaxPods: 40\n`);
    await mkdir(join(dir, 'conf.d'));
    await writeFile(join(dir, 'conf.d', '50-pods.conf'), `${HEADER}maxPods: 60\n`);
    const result = await loadKubeletConfiguration({ argv: ['--config', 'config.yaml', '--config-dir=conf.d'], cwd: dir });
    if (!result.ok) throw new Error(result.errors.map(formatConfigIssue).join('\n'));
    expect(result.config.staticPodPath).toBe(join(dir, 'manifests'));
    expect(result.config.maxPods).toBe(60);
    expect(result.sources).toMatchObject({ file: join(dir, 'config.yaml'), dropIns: [join(dir, 'conf.d', '50-pods.conf')] });
  });

  it('names a missing --config-dir', async () => {
    const result = await loadKubeletConfiguration({ argv: ['--config-dir=nope'], cwd: dir });
    expect(result).toMatchObject({
      ok: false,
      errors: [{ source: join(dir, 'nope'), path: '', reason: expect.stringMatching(/^cannot read directory: ENOENT/) }],
    });
  });
});
