import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadOptionsOrExit } from './cli.js';
import type { CliIO } from './cli.js';

class Exit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

function captureIO(): CliIO & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    out: (t: string) => void (io.stdout += t),
    err: (t: string) => void (io.stderr += t),
    exit: (code: number): never => {
      throw new Exit(code);
    },
  };
  return io;
}

describe('loadOptionsOrExit', () => {
  it('returns the defaulted configuration with flags overriding the file', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'kubelet-cli-'));
    const file = path.join(dir, 'config.yaml');
    await fs.writeFile(
      file,
      'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nreadOnlyPort: 10255\nsyncFrequency: 30s\n',
    );
    const options = await loadOptionsOrExit(
      [`--config=${file}`, '--sync-frequency=45s', '--pod-manifest-path=/etc/kubernetes/manifests'],
      captureIO(),
    );
    expect(options.config.readOnlyPort).toBe(10255);
    expect(options.config.syncFrequency).toBe('45s');
    expect(options.config.staticPodPath).toBe('/etc/kubernetes/manifests');
    expect(options.config.healthzPort).toBe(10248);
    expect(options.flags.standalone).toBe(true);
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('prints every configuration problem with file, field and reason, and exits 1', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'kubelet-cli-'));
    const file = path.join(dir, 'config.yaml');
    await fs.writeFile(
      file,
      'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nsyncFrequncy: 1m\nhealthzPort: 70000\n',
    );
    const io = captureIO();
    await expect(loadOptionsOrExit([`--config=${file}`], io)).rejects.toEqual(new Exit(1));
    expect(io.stderr).toContain(file);
    // an unknown field is a warning (upstream's lenient decoding); the bad port is the error
    expect(io.stderr).toContain(`W kubelet: ${file}: syncFrequncy: unknown field, ignored`);
    expect(io.stderr).toContain(`E kubelet: invalid configuration: ${file}: healthzPort: must be between 0 and 65535`);
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('rejects an unknown flag by name', async () => {
    const io = captureIO();
    await expect(loadOptionsOrExit(['--no-such-flag=1'], io)).rejects.toEqual(new Exit(1));
    expect(io.stderr).toContain('--no-such-flag');
  });

  it('prints the version and the flag usage', async () => {
    const version = captureIO();
    await expect(loadOptionsOrExit(['--version'], version)).rejects.toEqual(new Exit(0));
    expect(version.stdout).toMatch(/^Kubernetes v1\.\d+\.\d+/);
    const help = captureIO();
    await expect(loadOptionsOrExit(['--help'], help)).rejects.toEqual(new Exit(0));
    expect(help.stdout).toContain('--pod-manifest-path');
    expect(help.stdout).toContain('--container-runtime-endpoint');
  });
});
