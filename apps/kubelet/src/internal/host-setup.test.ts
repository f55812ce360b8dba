import { RecordingLogger } from '@kubelet-ts/common/testing';
import {
  HostSetupError,
  KERNEL_TUNABLES,
  checkSwap,
  checkVolumePluginDir,
  setMaxOpenFiles,
  setupHost,
  setupKernelTunables,
} from './host-setup.js';
import type { HostAccess } from './host-setup.js';

const SWAPS_HEADER = 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n';
const SWAP_ON = `${SWAPS_HEADER}/swapfile                               file\t\t2097148\t\t0\t\t-2\n`;
const enoent = (path: string): Error => Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });

/** A host whose files live in a map; writes and commands are recorded, and can be made to fail. */
function fakeHost(files: Record<string, string>, opts: { readOnly?: boolean; execFails?: boolean } = {}) {
  const writes: Array<[string, string]> = [];
  const execs: Array<[string, readonly string[]]> = [];
  const host: HostAccess = {
    pid: 4242,
    readFile: async (path) => {
      const text = files[path];
      if (text === undefined) throw enoent(path);
      return text;
    },
    writeFile: async (path, data) => {
      if (opts.readOnly) throw Object.assign(new Error(`EACCES: permission denied, open '${path}'`), { code: 'EACCES' });
      writes.push([path, data]);
      files[path] = data;
    },
    readDir: async (path) => {
      const names = Object.keys(files)
        .filter((f) => f.startsWith(`${path}/`))
        .map((f) => f.slice(path.length + 1).split('/')[0] as string);
      if (names.length === 0) throw enoent(path);
      return [...new Set(names)];
    },
    exec: async (file, args) => {
      execs.push([file, args]);
      if (opts.execFails) throw new Error('prlimit: failed to set the NOFILE resource limit: Operation not permitted');
    },
  };
  return { host, writes, execs, files };
}

const kernelFiles = (overrides: Record<string, number> = {}): Record<string, string> =>
  Object.fromEntries(KERNEL_TUNABLES.map(([flag, value]) => [`/proc/sys/${flag}`, `${overrides[flag] ?? value}\n`]));

describe('failSwapOn (checkSwap)', () => {
  it('refuses to start with swap on and failSwapOn, with upstream message', async () => {
    const { host } = fakeHost({ '/proc/swaps': SWAP_ON });
    const err = await checkSwap({ failSwapOn: true }, host, new RecordingLogger()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HostSetupError);
    expect(err).toMatchObject({
      code: 'SWAP_ON',
      message: 'running with swap on is not supported, please disable swap or set --fail-swap-on flag to false',
    });
  });

  it('starts when /proc/swaps has only its header, or does not exist', async () => {
    await expect(
      checkSwap({ failSwapOn: true }, fakeHost({ '/proc/swaps': SWAPS_HEADER }).host, new RecordingLogger()),
    ).resolves.toBeUndefined();
    const logger = new RecordingLogger();
    await expect(checkSwap({ failSwapOn: true }, fakeHost({}).host, logger)).resolves.toBeUndefined();
    expect(logger.records.map((r) => r.msg)).toEqual(['File does not exist, assuming that swap is disabled']);
  });

  it('with failSwapOn false starts on a swap host and logs that containers get no swap (NoSwap)', async () => {
    const logger = new RecordingLogger();
    await checkSwap({ failSwapOn: false }, fakeHost({ '/proc/swaps': SWAP_ON }).host, logger);
    expect(logger.records.map((r) => r.msg)).toEqual(['NoSwap is set due to memorySwapBehavior not specified', 'Swap is on']);
    const quiet = new RecordingLogger();
    await checkSwap({ failSwapOn: false, memorySwap: { swapBehavior: 'NoSwap' } }, fakeHost({ '/proc/swaps': SWAPS_HEADER }).host, quiet);
    expect(quiet.records).toEqual([]);
  });
});

describe('protectKernelDefaults (setupKernelTunables)', () => {
  it('true: refuses to start when tunables differ, every difference in upstream words', async () => {
    const { host, writes } = fakeHost(kernelFiles({ 'vm/overcommit_memory': 0, 'kernel/panic': 0 }));
    await expect(setupKernelTunables(true, host, new RecordingLogger())).rejects.toMatchObject({
      code: 'KERNEL_DEFAULTS',
      message:
        '[invalid kernel flag: vm/overcommit_memory, expected value: 1, actual value: 0, invalid kernel flag: kernel/panic, expected value: 10, actual value: 0]',
    });
    expect(writes).toEqual([]);
  });

  it('true: starts when every tunable is as the kubelet needs', async () => {
    await expect(setupKernelTunables(true, fakeHost(kernelFiles()).host, new RecordingLogger())).resolves.toBeUndefined();
  });

  it('false: sets the tunables that differ, and only those', async () => {
    const { host, writes, files } = fakeHost(kernelFiles({ 'vm/panic_on_oom': 1, 'kernel/keys/root_maxkeys': 200 }));
    await setupKernelTunables(false, host, new RecordingLogger());
    expect(writes).toEqual([
      ['/proc/sys/vm/panic_on_oom', '0\n'],
      ['/proc/sys/kernel/keys/root_maxkeys', '1000000\n'],
    ]);
    expect(files['/proc/sys/kernel/keys/root_maxkeys']).toBe('1000000\n');
  });

  it('false: a kernel that refuses the write (gVisor, user namespace) is a warning, not a crash', async () => {
    const logger = new RecordingLogger();
    await expect(
      setupKernelTunables(false, fakeHost(kernelFiles({ 'kernel/panic': 0 }), { readOnly: true }).host, logger),
    ).resolves.toBeUndefined();
    expect(logger.records.filter((r) => r.level === 'warn').map((r) => [r.msg, r.fields['flag']])).toEqual([
      ['Updating kernel flag failed; continuing', 'kernel/panic'],
    ]);
  });
});

describe('maxOpenFiles (setMaxOpenFiles)', () => {
  it("sets the kubelet's RLIMIT_NOFILE, soft and hard, through prlimit", async () => {
    const { host, execs } = fakeHost({});
    await expect(setMaxOpenFiles(1_000_000, host, new RecordingLogger())).resolves.toBe(true);
    expect(execs).toEqual([['prlimit', ['--pid', '4242', '--nofile=1000000:1000000']]]);
  });

  it('warns with upstream message when it cannot', async () => {
    const logger = new RecordingLogger();
    await expect(setMaxOpenFiles(1_000_000, fakeHost({}, { execFails: true }).host, logger)).resolves.toBe(false);
    expect(logger.records.map((r) => [r.level, r.msg])).toEqual([['warn', 'Failed to set rlimit on max file handles']]);
  });
});

describe('volumePluginDir (checkVolumePluginDir)', () => {
  const DIR = '/usr/libexec/kubernetes/kubelet-plugins/volume/exec';

  it('accepts a directory without FlexVolume drivers, or none at all', async () => {
    await expect(checkVolumePluginDir(DIR, fakeHost({}).host)).resolves.toBeUndefined();
    await expect(checkVolumePluginDir(DIR, fakeHost({ [`${DIR}/README`]: '' }).host)).resolves.toBeUndefined();
  });

  it('refuses a FlexVolume driver rather than not running it', async () => {
    await expect(checkVolumePluginDir(DIR, fakeHost({ [`${DIR}/example.com~nfs/nfs`]: '#!/bin/sh' }).host)).rejects.toMatchObject({
      code: 'FLEXVOLUME',
      message: `volumePluginDir ${DIR}: kubelet-ts does not support FlexVolume drivers yet (found example.com~nfs)`,
    });
  });
});

describe('setupHost', () => {
  it('stops at the swap check before touching the kernel', async () => {
    const { host, writes, execs } = fakeHost({ '/proc/swaps': SWAP_ON, ...kernelFiles({ 'kernel/panic': 0 }) });
    const config = { failSwapOn: true, protectKernelDefaults: false, maxOpenFiles: 1_000_000, volumePluginDir: '/plugins' };
    await expect(setupHost(config, new RecordingLogger(), host)).rejects.toMatchObject({ code: 'SWAP_ON' });
    expect([writes, execs]).toEqual([[], []]);
  });

  it('runs every duty on a fit host', async () => {
    const { host, writes, execs } = fakeHost({ '/proc/swaps': SWAPS_HEADER, ...kernelFiles({ 'kernel/panic': 0 }) });
    const config = { failSwapOn: true, protectKernelDefaults: false, maxOpenFiles: 4096, volumePluginDir: '/plugins' };
    await setupHost(config, new RecordingLogger(), host);
    expect(writes).toEqual([['/proc/sys/kernel/panic', '10\n']]);
    expect(execs).toEqual([['prlimit', ['--pid', '4242', '--nofile=4096:4096']]]);
  });
});
