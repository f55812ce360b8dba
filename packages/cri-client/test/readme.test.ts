import fs from 'node:fs';
import path from 'node:path';
import { FakeClock } from '@kubelet-ts/common/testing';
import { createFakeCriClient } from '../src/testing/index.js';
import { helloPod } from './readme-example.js';

const readme = fs.readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');
const example = fs.readFileSync(path.join(__dirname, 'readme-example.ts'), 'utf8');

describe('README', () => {
  it('shows the usage example verbatim (with the package import path)', () => {
    const published = example.replace("from '../src/index.js'", "from '@kubelet-ts/cri-client'").trim();
    expect(readme).toContain(published);
  });

  it('usage example works against the fakes', async () => {
    const cri = createFakeCriClient({ clock: new FakeClock() });
    cri.runtime.setExecHandler((_id, cmd) => ({ stdout: cmd.join(' ') === 'sh -c echo $GREETING' ? 'hello\n' : '' }));
    await expect(helloPod(cri)).resolves.toEqual({ state: 'CONTAINER_RUNNING', output: 'hello\n' });
    expect(cri.runtime.sandboxIds).toEqual([]);
    expect(cri.runtime.methodsCalled).toEqual([
      'runPodSandbox',
      'createContainer',
      'startContainer',
      'containerStatus',
      'execSync',
      'stopPodSandbox',
      'removePodSandbox',
    ]);
  });
});
