// The README's usage snippet, run as a test and compared with the README block, so it cannot rot.
import { readFileSync } from 'node:fs';
import type { Pod } from '@kubelet-ts/api';
import { readmeSnippet } from '@kubelet-ts/test-support';
import { createNodeShutdownManager } from './index.js';
import type { ShutdownKillRequest } from './index.js';
import { FakeInhibitor } from './testing/index.js';

const readme = readFileSync(`${__dirname}/../README.md`, 'utf8');

describe('README', () => {
  it('runs the usage snippet, which is the README block verbatim', async () => {
    const inhibitor = new FakeInhibitor();
    const connectInhibitor = inhibitor.connect;
    const pod: Pod = { metadata: { name: 'web', namespace: 'default', uid: 'uid-web' }, spec: { containers: [] } };
    const pods = [pod];
    const lifecycle = { evictPod: async (_uid: string, _request: ShutdownKillRequest): Promise<void> => undefined };
    const abort = new AbortController();
    const { signal } = abort;
    // README:begin
    const manager = createNodeShutdownManager({
      shutdownGracePeriodMs: 20_000,
      shutdownGracePeriodCriticalPodsMs: 10_000,
      connectInhibitor, // () => connectSystemdInhibitor(): logind on the system bus
      getActivePods: () => pods,
      killPod: (pod, request) => lifecycle.evictPod(pod.metadata.uid, request), // phase Failed, reason Terminated
      stateDir: '/var/lib/kubelet', // graceful_node_shutdown_state
      nodeRef: { kind: 'Node', name: 'node-a', uid: 'node-a' },
    });
    const running = manager.run(signal); // raises InhibitDelayMaxSec if needed, takes the inhibitor, watches
    manager.admit(pod); // { admit: false, reason: 'NodeShutdown', … } while the node shuts down
    manager.shutdownErrors(); // ['node is shutting down'] for the Ready condition
    // README:end
    expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));
    abort.abort();
    await running;
    expect(inhibitor.connections).toBe(1);
  });
});
