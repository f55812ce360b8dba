import { containerdConfigFromInfo } from './containerd-info.js';

// The shape containerd 1.6/1.7 report in a verbose Status (trimmed; the real one has many more keys).
const containerd17 = {
  containerd: {
    snapshotter: 'overlayfs',
    defaultRuntimeName: 'runc',
    runtimes: { runc: { runtimeType: 'io.containerd.runc.v2', options: { BinaryName: '', SystemdCgroup: true } } },
  },
  cni: { binDir: '/opt/cni/bin' },
  sandboxImage: 'registry.k8s.io/pause:3.9',
  enableSelinux: false,
};

describe('containerdConfigFromInfo', () => {
  it('reads the sandbox image and the runtimes of one config, for every reader', () => {
    expect(containerdConfigFromInfo({ config: JSON.stringify(containerd17), golang: 'go1.22' })).toEqual({
      sandboxImage: 'registry.k8s.io/pause:3.9',
      containerd: {
        snapshotter: 'overlayfs',
        defaultRuntimeName: 'runc',
        runtimes: { runc: { runtimeType: 'io.containerd.runc.v2', options: { BinaryName: '', SystemdCgroup: true } } },
      },
    });
  });

  it('reads the legacy top-level systemdCgroup', () => {
    expect(containerdConfigFromInfo({ config: JSON.stringify({ systemdCgroup: false }) })).toEqual({ systemdCgroup: false });
  });

  it('reads each field on its own: one of an unexpected shape does not hide the others', () => {
    const config = containerdConfigFromInfo({ config: JSON.stringify({ ...containerd17, sandboxImage: '' }) });
    expect(config?.sandboxImage).toBeUndefined();
    expect(config?.containerd?.runtimes?.['runc']?.options?.['SystemdCgroup']).toBe(true);
    const noRuntimes = containerdConfigFromInfo({ config: JSON.stringify({ ...containerd17, containerd: 'odd' }) });
    expect(noRuntimes).toEqual({ sandboxImage: 'registry.k8s.io/pause:3.9' });
    expect(containerdConfigFromInfo({ config: JSON.stringify({ sandboxImage: 7 }) })).toEqual({});
  });

  it('is undefined without a config, or for one that is not a JSON object', () => {
    expect(containerdConfigFromInfo({ config: '{not json' })).toBeUndefined();
    expect(containerdConfigFromInfo({ config: '"a string"' })).toBeUndefined();
    expect(containerdConfigFromInfo({ config: 'null' })).toBeUndefined();
    expect(containerdConfigFromInfo({})).toBeUndefined();
    expect(containerdConfigFromInfo(null)).toBeUndefined();
    expect(containerdConfigFromInfo(undefined)).toBeUndefined();
  });
});
