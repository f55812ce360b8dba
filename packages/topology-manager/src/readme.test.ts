// The README's usage snippet, run as a test and compared with the README block, so it cannot rot.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Pod } from '@kubelet-ts/api';
import { readmeSnippet } from '@kubelet-ts/test-support';
import { createTopologyManager } from './index.js';
import { FakeHintProvider } from './testing/index.js';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('runs the usage snippet, which is the README block verbatim', () => {
    // A CPU manager that cannot place the pod's CPUs anywhere.
    const cpuManager = new FakeHintProvider({ cpu: [] });
    const pod: Pod = {
      metadata: { name: 'web', namespace: 'default', uid: 'u' },
      spec: { containers: [{ name: 'main', image: 'busybox' }] },
    };
    // README:begin
    const topology = createTopologyManager({
      policy: 'single-numa-node',
      scope: 'container',
      numaNodes: [0, 1],
      providers: [cpuManager], // @kubelet-ts/cpu-manager's manager is a HintProvider
    });
    const verdict = topology.admit(pod); // { admit: false, reason: 'TopologyAffinityError', message: 'Resources cannot be allocated with Topology locality' }
    // README:end
    expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));
    expect(verdict).toEqual({
      admit: false,
      reason: 'TopologyAffinityError',
      message: 'Resources cannot be allocated with Topology locality',
    });
    expect(readme).toContain('new FakeHintProvider');
  });
});
