import { applyKubeletConfigurationDefaults } from './defaults.js';
import { ConfigError, formatConfigIssue } from './errors.js';
import { kubeletFlagUsage, parseKubeletArgs } from './flags.js';
import { summarizeConfiguration } from './summary.js';
import { kubeletConfigurationFixture } from './testing/fixture.js';

describe('applyKubeletConfigurationDefaults', () => {
  it('turns serializeImagePulls off only when parallel pulls are configured', () => {
    expect(applyKubeletConfigurationDefaults({}).serializeImagePulls).toBe(true);
    expect(applyKubeletConfigurationDefaults({ maxParallelImagePulls: 1 }).serializeImagePulls).toBe(true);
    expect(applyKubeletConfigurationDefaults({ maxParallelImagePulls: 4 }).serializeImagePulls).toBe(false);
    expect(applyKubeletConfigurationDefaults({ maxParallelImagePulls: 4, serializeImagePulls: true }).serializeImagePulls).toBe(true);
  });

  it('spells any negative podPidsLimit as -1', () => {
    expect(applyKubeletConfigurationDefaults({ podPidsLimit: -7 }).podPidsLimit).toBe(-1);
    expect(applyKubeletConfigurationDefaults({ podPidsLimit: 4096 }).podPidsLimit).toBe(4096);
  });

  it('keeps explicit values and does not mutate its input', () => {
    const input = { maxPods: 7, syncFrequency: '90s', authentication: { anonymous: { enabled: true } } };
    const out = applyKubeletConfigurationDefaults(input);
    expect(out.maxPods).toBe(7);
    expect(out.syncFrequency).toBe('1m30s');
    expect(out.authentication).toEqual({ x509: {}, anonymous: { enabled: true }, webhook: { enabled: true, cacheTTL: '2m0s' } });
    expect(input).toEqual({ maxPods: 7, syncFrequency: '90s', authentication: { anonymous: { enabled: true } } });
  });

  it('gives other packages a defaulted fixture', () => {
    expect(kubeletConfigurationFixture({ maxPods: 10 })).toMatchObject({ maxPods: 10, port: 10250, readOnlyPort: 0 });
  });
});

describe('summarizeConfiguration', () => {
  it('flattens what a startup log line needs', () => {
    const { flags } = parseKubeletArgs(['--kubeconfig=/etc/kubernetes/kubelet.conf', '--hostname-override=node-1']);
    const config = kubeletConfigurationFixture({
      healthzPort: 0,
      featureGates: { B: false, A: true },
      staticPodPath: '/etc/kubernetes/manifests',
    });
    expect(summarizeConfiguration(config, flags)).toEqual({
      mode: 'api-server',
      nodeName: 'node-1',
      rootDir: '/var/lib/kubelet',
      containerRuntimeEndpoint: 'unix:///run/containerd/containerd.sock',
      staticPodPath: '/etc/kubernetes/manifests',
      staticPodURL: '',
      server: '0.0.0.0:10250',
      readOnlyPort: 0,
      healthz: 'disabled',
      cgroupDriver: 'cgroupfs',
      cgroupsPerQOS: true,
      cgroupRoot: '',
      maxPods: 110,
      syncFrequency: '1m0s',
      evictionHard: 'imagefs.available<15%,memory.available<100Mi,nodefs.available<10%,nodefs.inodesFree<5%',
      featureGates: 'A=true,B=false',
    });
  });
});

describe('ConfigError and usage', () => {
  it('carries every issue and lists them in its message', () => {
    const issues = [
      { source: '/etc/kubelet/config.yaml', path: 'port', reason: 'must be between 0 and 65535' },
      { source: 'flag --foo', path: '', reason: 'unknown flag: --foo' },
    ];
    const err = ConfigError.fromIssues(issues);
    expect(ConfigError.is(err)).toBe(true);
    expect(err.code).toBe('INVALID_CONFIGURATION');
    expect(err.issues).toEqual(issues);
    expect(err.message).toContain('/etc/kubelet/config.yaml: port: must be between 0 and 65535');
    expect(formatConfigIssue(issues[1] as (typeof issues)[number])).toBe('flag --foo: unknown flag: --foo');
  });

  it('lists every flag in --help, marking deprecated ones', () => {
    const usage = kubeletFlagUsage();
    expect(usage).toContain('--pod-manifest-path');
    expect(usage).toMatch(/--max-pods .*\(DEPRECATED\)/);
    expect(usage).toMatch(/-v, --v +Log verbosity level\.\n/);
  });
});
