import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { newPod } from '@kubelet-ts/api/testing';
import type { Pod } from '@kubelet-ts/api';
import { createHealthzServer, createReadOnlyServer, pingHealthz, sendJson } from './index.js';
import type { HealthzCheck } from './index.js';
import { readmeSnippet } from '@kubelet-ts/test-support';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('runs the usage snippet, which is the README block verbatim', async () => {
    const lastSyncLoop = Date.now();
    const pods: Pod[] = [newPod({ name: 'web' })];
    const summary = { node: { nodeName: 'node-1' }, pods: [] };

    // README:begin
    const syncloop: HealthzCheck = {
      name: 'syncloop',
      check() {
        if (Date.now() - lastSyncLoop > 3 * 60_000) throw new Error('sync loop has not run for 3 minutes');
      },
    };
    const healthz = createHealthzServer({ checks: [pingHealthz, syncloop] });
    await healthz.listen('127.0.0.1', 0); // healthzBindAddress, healthzPort (10248)

    const readOnly = createReadOnlyServer({ getPods: () => pods, checks: [pingHealthz, syncloop] });
    readOnly.router.get('/stats/summary', (_req, res) => sendJson(res, 200, summary)); // added by another package
    const { port } = await readOnly.listen('127.0.0.1', 0); // address, readOnlyPort (0 = disabled)

    const list = await (await fetch(`http://127.0.0.1:${port}/pods`)).json(); // { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: [...] }
    await Promise.all([healthz.close(), readOnly.close()]);
    // README:end

    expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));
    expect(list).toEqual({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items: pods });
  });
});
