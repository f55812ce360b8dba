/**
 * failSwapOn and protectKernelDefaults on the real binary. This machine has no swap and its kernel
 * tunables already are the kubelet's, so each kubelet runs in a mount namespace of its own in which
 * /proc/swaps or /proc/sys/vm/overcommit_memory is a file of the test's (bind-mounted over the real
 * one): the kubelet reads and writes the host paths it always does, and the test sees what it did.
 * Each case fails when its setting is ignored: the kubelet would start despite swap or a differing
 * tunable, or leave the tunable as it was.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bindOver, createKubelet, env, eventually, waitHealthy } from './harness.js';
import type { KubeletUnderTest } from './harness.js';

const SWAPS_WITH_SWAP =
  'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/dev/vdz                                partition\t8388604\t\t0\t\t-2\n';

async function exitOf(kubelet: KubeletUnderTest): Promise<string> {
  await eventually('the kubelet exits', async () => !kubelet.running(), 30_000);
  return kubelet.output();
}

describe('host settings on the real binary', () => {
  let dir: string;
  let kubelet: KubeletUnderTest | undefined;
  beforeEach(async () => {
    env('KUBELET_TS_CRI_ENDPOINT');
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'kubelet-ts-host-'));
  });
  afterEach(async () => {
    await kubelet?.cleanup();
    kubelet = undefined;
    await fs.rm(dir, { recursive: true, force: true });
  });

  test('failSwapOn: with swap on the kubelet refuses to start, as upstream; with --fail-swap-on=false it runs', async () => {
    const swaps = path.join(dir, 'swaps');
    await fs.writeFile(swaps, SWAPS_WITH_SWAP);
    kubelet = await createKubelet('swap-on', { launcher: bindOver(swaps, '/proc/swaps') });
    await kubelet.start(['--fail-swap-on=true']);
    const output = await exitOf(kubelet);
    expect(output).toContain('running with swap on is not supported, please disable swap or set --fail-swap-on flag to false');
    await kubelet.cleanup();

    kubelet = await createKubelet('swap-allowed', { launcher: bindOver(swaps, '/proc/swaps') });
    await kubelet.start(['--fail-swap-on=false']);
    await waitHealthy(kubelet);
  });

  test('protectKernelDefaults: a tunable that differs stops the kubelet when protected, and is set when not', async () => {
    const overcommit = path.join(dir, 'overcommit_memory');
    await fs.writeFile(overcommit, '0\n');
    kubelet = await createKubelet('protect-kernel', { launcher: bindOver(overcommit, '/proc/sys/vm/overcommit_memory') });
    await kubelet.start(['--protect-kernel-defaults=true']);
    const output = await exitOf(kubelet);
    expect(output).toContain('invalid kernel flag: vm/overcommit_memory, expected value: 1, actual value: 0');
    expect(await fs.readFile(overcommit, 'utf8')).toBe('0\n');
    await kubelet.cleanup();

    kubelet = await createKubelet('set-kernel', { launcher: bindOver(overcommit, '/proc/sys/vm/overcommit_memory') });
    await kubelet.start(['--protect-kernel-defaults=false']);
    await waitHealthy(kubelet);
    // Upstream's setupKernelTunables writes the value it wants (KernelTunableModify).
    expect((await fs.readFile(overcommit, 'utf8')).trim()).toBe('1');
  });
});
