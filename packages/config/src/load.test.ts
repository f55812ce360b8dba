import { DEFAULT_EVICTION_HARD } from './eviction.js';
import { formatConfigIssue } from './errors.js';
import { loadKubeletConfiguration } from './load.js';
import type { LoadKubeletConfigurationResult } from './load.js';
import { createFakeFileSystem } from './testing/fake-file-system.js';

const FILE = '/etc/kubelet/config.yaml';
const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';

async function load(
  argv: string[],
  files: Record<string, string> = {},
  unknownFields?: 'error' | 'warn',
): Promise<LoadKubeletConfigurationResult> {
  const fs = createFakeFileSystem(files);
  return loadKubeletConfiguration({
    argv,
    readFile: fs.readFile,
    readDir: fs.readDir,
    cwd: '/',
    ...(unknownFields ? { unknownFields } : {}),
  });
}

function ok(result: LoadKubeletConfigurationResult) {
  if (!result.ok) throw new Error(`expected ok, got:\n${result.errors.map(formatConfigIssue).join('\n')}`);
  return result;
}

function errorsOf(result: LoadKubeletConfigurationResult): string[] {
  if (result.ok) throw new Error('expected errors');
  return result.errors.map(formatConfigIssue);
}

describe('loadKubeletConfiguration: defaults', () => {
  it('applies the upstream defaults to an empty config file', async () => {
    const { config, flags } = ok(await load([`--config=${FILE}`], { [FILE]: HEADER }));
    expect(config).toMatchObject({
      apiVersion: 'kubelet.config.k8s.io/v1beta1',
      kind: 'KubeletConfiguration',
      enableServer: true,
      syncFrequency: '1m0s',
      fileCheckFrequency: '20s',
      httpCheckFrequency: '20s',
      address: '0.0.0.0',
      port: 10250,
      readOnlyPort: 0,
      healthzPort: 10248,
      healthzBindAddress: '127.0.0.1',
      registryPullQPS: 5,
      registryBurst: 10,
      eventRecordQPS: 50,
      eventBurst: 100,
      enableDebuggingHandlers: true,
      oomScoreAdj: -999,
      streamingConnectionIdleTimeout: '4h0m0s',
      nodeStatusUpdateFrequency: '10s',
      nodeStatusReportFrequency: '5m0s',
      nodeLeaseDurationSeconds: 40,
      imageMinimumGCAge: '2m0s',
      imageMaximumGCAge: '0s',
      imageGCHighThresholdPercent: 85,
      imageGCLowThresholdPercent: 80,
      volumeStatsAggPeriod: '1m0s',
      cgroupsPerQOS: true,
      cgroupDriver: 'cgroupfs',
      cpuManagerPolicy: 'none',
      cpuManagerReconcilePeriod: '10s',
      memoryManagerPolicy: 'None',
      topologyManagerPolicy: 'none',
      topologyManagerScope: 'container',
      runtimeRequestTimeout: '2m0s',
      hairpinMode: 'promiscuous-bridge',
      maxPods: 110,
      podPidsLimit: -1,
      resolvConf: '/etc/resolv.conf',
      cpuCFSQuota: true,
      cpuCFSQuotaPeriod: '100ms',
      maxOpenFiles: 1_000_000,
      contentType: 'application/vnd.kubernetes.protobuf',
      kubeAPIQPS: 50,
      kubeAPIBurst: 100,
      serializeImagePulls: true,
      evictionHard: DEFAULT_EVICTION_HARD,
      evictionPressureTransitionPeriod: '5m0s',
      enableControllerAttachDetach: true,
      makeIPTablesUtilChains: true,
      iptablesMasqueradeBit: 14,
      iptablesDropBit: 15,
      failSwapOn: true,
      containerLogMaxSize: '10Mi',
      containerLogMaxFiles: 5,
      containerLogMaxWorkers: 1,
      containerLogMonitorInterval: '10s',
      configMapAndSecretChangeDetectionStrategy: 'Watch',
      enforceNodeAllocatable: ['pods'],
      volumePluginDir: '/usr/libexec/kubernetes/kubelet-plugins/volume/exec/',
      localStorageCapacityIsolation: true,
      seccompDefault: false,
      memoryThrottlingFactor: 0.9,
      registerNode: true,
      podLogsDir: '/var/log/pods',
      containerLogsDir: '/var/log/containers',
      containerRuntimeEndpoint: 'unix:///run/containerd/containerd.sock',
      enableSystemLogHandler: true,
      enableProfilingHandler: true,
      enableDebugFlagsHandler: true,
      staticPodPath: '',
      staticPodURL: '',
      authentication: { anonymous: { enabled: false }, webhook: { enabled: true, cacheTTL: '2m0s' }, x509: {} },
      authorization: { mode: 'Webhook', webhook: { cacheAuthorizedTTL: '5m0s', cacheUnauthorizedTTL: '30s' } },
      logging: { format: 'text', verbosity: 0 },
    });
    expect(flags).toMatchObject({ rootDir: '/var/lib/kubelet', certDir: '/var/lib/kubelet/pki', standalone: true });
  });

  it("uses upstream's legacy read-only port without --config, but never its open authentication and AlwaysAllow", async () => {
    const { config } = ok(await load([]));
    expect(config.readOnlyPort).toBe(10255);
    expect(config.authentication.anonymous.enabled).toBe(false);
    expect(config.authentication.webhook.enabled).toBe(true);
    expect(config.authorization.mode).toBe('Webhook');
    expect(config.port).toBe(10250);
    // Asked for, they are still what the flags say.
    const open = ok(await load(['--anonymous-auth=true', '--authorization-mode=AlwaysAllow'])).config;
    expect(open.authentication.anonymous.enabled).toBe(true);
    expect(open.authorization.mode).toBe('AlwaysAllow');
  });

  it('replaces (does not merge) the default evictionHard when the file sets some signals', async () => {
    const { config } = ok(await load([`--config=${FILE}`], { [FILE]: `${HEADER}evictionHard:\n  memory.available: 200Mi\n` }));
    expect(config.evictionHard).toEqual({ 'memory.available': '200Mi' });
  });

  it('merges the default evictionHard under the file signals with mergeDefaultEvictionSettings', async () => {
    const { config } = ok(
      await load([`--config=${FILE}`], {
        [FILE]: `${HEADER}mergeDefaultEvictionSettings: true\nevictionHard:\n  memory.available: 200Mi\n`,
      }),
    );
    expect(config.evictionHard).toEqual({ ...DEFAULT_EVICTION_HARD, 'memory.available': '200Mi' });
  });

  it('treats zero values of non-pointer fields as unset, and follows nodeStatusUpdateFrequency', async () => {
    const { config } = ok(
      await load([`--config=${FILE}`], { [FILE]: `${HEADER}port: 0\nsyncFrequency: 0s\nhealthzPort: 0\nnodeStatusUpdateFrequency: 20s\n` }),
    );
    expect(config.port).toBe(10250);
    expect(config.syncFrequency).toBe('1m0s');
    expect(config.healthzPort).toBe(0); // a pointer upstream: 0 disables healthz
    expect(config.nodeStatusReportFrequency).toBe('20s');
  });

  it('reads YAML 1.1 booleans like upstream (yes/on)', async () => {
    const { config } = ok(
      await load([`--config=${FILE}`], { [FILE]: `${HEADER}failSwapOn: no\nserializeImagePulls: off\ncgroupsPerQOS: yes\n` }),
    );
    expect(config).toMatchObject({ failSwapOn: false, serializeImagePulls: false, cgroupsPerQOS: true });
  });

  it('reads JSON files and normalizes durations to Go format', async () => {
    const json = JSON.stringify({
      apiVersion: 'kubelet.config.k8s.io/v1beta1',
      kind: 'KubeletConfiguration',
      syncFrequency: '90s',
      maxPods: 20,
    });
    const { config } = ok(await load(['--config', '/etc/kubelet/config.json'], { '/etc/kubelet/config.json': json }));
    expect(config.syncFrequency).toBe('1m30s');
    expect(config.maxPods).toBe(20);
  });

  it('resolves relative paths in the file against the file directory', async () => {
    const { config } = ok(await load([`--config=${FILE}`], { [FILE]: `${HEADER}staticPodPath: manifests\ntlsCertFile: /abs/cert.pem\n` }));
    expect(config.staticPodPath).toBe('/etc/kubelet/manifests');
    expect(config.tlsCertFile).toBe('/abs/cert.pem');
  });
});

describe('loadKubeletConfiguration: errors name file, field path and reason', () => {
  it('reports unknown fields with their full path, and every error, not only the first', async () => {
    const yaml = `${HEADER}evictionHard:\n  memory.availble: 100Mi\nsyncFrequency: 1x\nport: 70000\nimageGCHighThresholdPercent: 120\nauthentication:\n  anonymus:\n    enabled: true\nfoo: 1\ncgroupDriver: docker\n`;
    const errors = errorsOf(await load([`--config=${FILE}`], { [FILE]: yaml }, 'error'));
    expect(errors).toEqual(
      expect.arrayContaining([
        `${FILE}: evictionHard.memory.availble: unsupported eviction signal "memory.availble"`,
        `${FILE}: syncFrequency: invalid duration "1x"`,
        `${FILE}: port: must be between 0 and 65535`,
        `${FILE}: imageGCHighThresholdPercent: must be between 0 and 100`,
        `${FILE}: authentication.anonymus: unknown field`,
        `${FILE}: foo: unknown field`,
        `${FILE}: cgroupDriver: unsupported value "docker": must be one of "cgroupfs", "systemd"`,
      ]),
    );
    expect(errors).toHaveLength(7);
  });

  it('reports unknown fields nested in structs', async () => {
    const errors = errorsOf(await load([`--config=${FILE}`], { [FILE]: `${HEADER}logging:\n  verbosty: 3\n` }, 'error'));
    expect(errors).toEqual([`${FILE}: logging.verbosty: unknown field`]);
  });

  it('falls back to lenient decoding by default, as upstream: unknown fields are dropped with a warning', async () => {
    const result = ok(await load([`--config=${FILE}`], { [FILE]: `${HEADER}foo: 1\nlogging:\n  verbosty: 3\nmaxPods: 7\n` }));
    expect(result.config.maxPods).toBe(7);
    expect(result.config.logging).not.toHaveProperty('verbosty');
    expect(result.warnings).toEqual([
      `${FILE}: logging.verbosty: unknown field, ignored (Using lenient decoding as strict decoding failed)`,
      `${FILE}: foo: unknown field, ignored (Using lenient decoding as strict decoding failed)`,
    ]);
  });

  it('keeps the last value of a duplicate field with a warning, as upstream (sigs.k8s.io/yaml: last wins)', async () => {
    const yaml = `${HEADER}maxPods: 1\nauthentication:\n  anonymous:\n    enabled: true\nmaxPods: 2\nauthentication:\n  webhook:\n    enabled: false\n`;
    const result = ok(await load([`--config=${FILE}`], { [FILE]: yaml }));
    expect(result.config.maxPods).toBe(2);
    // the later mapping replaces the earlier one whole: anonymous is back to its default
    expect(result.config.authentication.anonymous.enabled).toBe(false);
    expect(result.config.authentication.webhook.enabled).toBe(false);
    expect(result.warnings).toEqual([
      `${FILE}: maxPods: duplicate field, the last value is used (Using lenient decoding as strict decoding failed)`,
      `${FILE}: authentication: duplicate field, the last value is used (Using lenient decoding as strict decoding failed)`,
    ]);
  });

  it('keeps other errors fatal in lenient mode, and reports duplicates in JSON files too', async () => {
    expect(errorsOf(await load([`--config=${FILE}`], { [FILE]: `${HEADER}foo: 1\nsyncFrequency: 1x\n` }))).toEqual([
      `${FILE}: syncFrequency: invalid duration "1x"`,
    ]);
    const json = '{"apiVersion":"kubelet.config.k8s.io/v1beta1","kind":"KubeletConfiguration","maxPods":3,"maxPods":4}';
    const result = ok(await load([`--config=${FILE}`], { [FILE]: json }));
    expect(result.config.maxPods).toBe(4);
    expect(result.warnings).toHaveLength(1);
  });

  it("with unknownFields: 'error', unknown and duplicate fields are errors", async () => {
    expect(errorsOf(await load([`--config=${FILE}`], { [FILE]: `${HEADER}maxPods: 1\nmaxPods: 2\nfoo: 1\n` }, 'error'))).toEqual([
      `${FILE}: maxPods: duplicate field`,
      `${FILE}: foo: unknown field`,
    ]);
  });

  it('reads the kubelet-ts periods (absent by default), normalized, and refuses ones that are not above zero', async () => {
    const { config } = ok(await load([`--config=${FILE}`], { [FILE]: HEADER }));
    expect([config.evictionMonitoringPeriod, config.imageGCPeriod, config.statsHousekeepingInterval]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    const set = ok(
      await load([`--config=${FILE}`], {
        [FILE]: `${HEADER}evictionMonitoringPeriod: 1s\nimageGCPeriod: 90s\nstatsHousekeepingInterval: 500ms\n`,
      }),
    );
    expect([set.config.evictionMonitoringPeriod, set.config.imageGCPeriod, set.config.statsHousekeepingInterval]).toEqual([
      '1s',
      '1m30s',
      '500ms',
    ]);
    expect(errorsOf(await load([`--config=${FILE}`], { [FILE]: `${HEADER}imageGCPeriod: 0s\nevictionMonitoringPeriod: soon\n` }))).toEqual([
      `${FILE}: evictionMonitoringPeriod: invalid duration "soon"`,
      `${FILE}: imageGCPeriod: "0s": must be greater than zero`,
    ]);
  });

  it('reads containerLogsDir (kubelet-ts): /var/log/containers by default, as upstream fixes it', async () => {
    expect(ok(await load([`--config=${FILE}`], { [FILE]: HEADER })).config.containerLogsDir).toBe('/var/log/containers');
    const set = ok(await load([`--config=${FILE}`], { [FILE]: `${HEADER}containerLogsDir: /tmp/kubelet/containers\n` }));
    expect(set.config.containerLogsDir).toBe('/tmp/kubelet/containers');
  });

  it('reports bad eviction percentages and quantities', async () => {
    const yaml = `${HEADER}evictionHard:\n  nodefs.available: 110%\n  memory.available: lots\nevictionSoftGracePeriod:\n  memory.available: 90\n`;
    // a bare 90 is a number in YAML; the grace period must be a duration string
    expect(errorsOf(await load([`--config=${FILE}`], { [FILE]: yaml }))).toEqual([
      `${FILE}: evictionHard.nodefs.available: percentage "110%" must be >= 0% and <= 100%`,
      `${FILE}: evictionHard.memory.available: invalid quantity or percentage "lots"`,
      `${FILE}: evictionSoftGracePeriod.memory.available: expected string, got number 90`,
    ]);
  });

  it('reports wrong types with what was found', async () => {
    const errors = errorsOf(
      await load([`--config=${FILE}`], { [FILE]: `${HEADER}maxPods: "110"\nfailSwapOn: "yes"\nclusterDNS: [10.0.0.300]\n` }),
    );
    expect(errors.sort()).toEqual([
      `${FILE}: clusterDNS[0]: "10.0.0.300" is not a valid IP address`,
      `${FILE}: failSwapOn: expected boolean, got string "yes"`,
      `${FILE}: maxPods: expected number, got string "110"`,
    ]);
  });

  it('requires apiVersion and kind with the right values', async () => {
    expect(errorsOf(await load([`--config=${FILE}`], { [FILE]: 'apiVersion: kubelet.config.k8s.io/v1\nmaxPods: 3\n' }))).toEqual([
      `${FILE}: kind: required (must be "KubeletConfiguration")`,
      `${FILE}: apiVersion: unsupported apiVersion "kubelet.config.k8s.io/v1": must be "kubelet.config.k8s.io/v1beta1"`,
    ]);
  });

  it('reports unreadable, empty and malformed files', async () => {
    expect(errorsOf(await load(['--config=/missing.yaml']))).toEqual([expect.stringMatching(/^\/missing\.yaml: cannot read file: ENOENT/)]);
    expect(errorsOf(await load([`--config=${FILE}`], { [FILE]: '\n' }))).toEqual([`${FILE}: file is empty`]);
    expect(errorsOf(await load([`--config=${FILE}`], { [FILE]: '- a\n- b\n' }))).toEqual([
      `${FILE}: expected a KubeletConfiguration object`,
    ]);
  });

  it('checks cross-field rules on the final configuration and blames the source that set the field', async () => {
    const fromFile = errorsOf(await load([`--config=${FILE}`], { [FILE]: `${HEADER}imageGCHighThresholdPercent: 70\n` }));
    expect(fromFile).toEqual([`${FILE}: imageGCHighThresholdPercent: must be greater than imageGCLowThresholdPercent (70 <= 80)`]);
    const fromFlag = errorsOf(await load([`--config=${FILE}`, '--image-gc-high-threshold=50'], { [FILE]: HEADER }));
    expect(fromFlag).toEqual([
      'flag --image-gc-high-threshold: imageGCHighThresholdPercent: must be greater than imageGCLowThresholdPercent (50 <= 80)',
    ]);
    const logFiles = errorsOf(
      await load([`--config=${FILE}`], {
        [FILE]: `${HEADER}containerLogMaxFiles: 1\npodLogsDir: /var/log/pods/\ncontainerLogsDir: var/log/containers\n`,
      }),
    );
    expect(logFiles).toEqual([
      `${FILE}: containerLogMaxFiles: must be greater than 1`,
      `${FILE}: podLogsDir: "/var/log/pods/" must be normalized (/var/log/pods)`,
      `${FILE}: containerLogsDir: "var/log/containers" must be an absolute path`,
    ]);
    const containerLogs = errorsOf(await load([`--config=${FILE}`], { [FILE]: `${HEADER}containerLogsDir: /tmp/x/../containers\n` }));
    expect(containerLogs).toEqual([`${FILE}: containerLogsDir: "/tmp/x/../containers" must be normalized (/tmp/containers)`]);
  });
});

describe('loadKubeletConfiguration: precedence defaults < file < drop-ins < flags', () => {
  it('lets a flag beat the file, and the file beat the default', async () => {
    const { config, sources, warnings } = ok(
      await load([`--config=${FILE}`, '--max-pods=30', '--eviction-hard=memory.available<1Gi'], {
        [FILE]: `${HEADER}maxPods: 50\nsyncFrequency: 30s\nevictionHard:\n  nodefs.available: 20%\n`,
      }),
    );
    expect(config.maxPods).toBe(30); // flag
    expect(config.syncFrequency).toBe('30s'); // file
    expect(config.fileCheckFrequency).toBe('20s'); // default
    expect(config.evictionHard).toEqual({ 'memory.available': '1Gi' }); // the flag map replaces the file map
    expect(sources).toEqual({ file: FILE, dropIns: [], flags: { maxPods: 'flag --max-pods', evictionHard: 'flag --eviction-hard' } });
    expect(warnings).toEqual([
      expect.stringMatching(/^Flag --max-pods has been deprecated/),
      expect.stringMatching(/^Flag --eviction-hard has been deprecated/),
    ]);
  });

  it('merges feature gates from flags into those of the file', async () => {
    const { config } = ok(
      await load([`--config=${FILE}`, '--feature-gates=AllBeta=true,AllAlpha=false'], {
        [FILE]: `${HEADER}featureGates:\n  UserNamespacesSupport: true\n  AllBeta: false\n`,
      }),
    );
    expect(config.featureGates).toEqual({ UserNamespacesSupport: true, AllBeta: true, AllAlpha: false });
  });

  it('lets a flag override one field of a nested struct only', async () => {
    const { config } = ok(
      await load([`--config=${FILE}`, '--anonymous-auth=true'], { [FILE]: `${HEADER}authentication:\n  webhook:\n    enabled: false\n` }),
    );
    expect(config.authentication.anonymous.enabled).toBe(true);
    expect(config.authentication.webhook).toEqual({ enabled: false, cacheTTL: '2m0s' });
  });

  it('validates flag values like file values, naming the flag', async () => {
    const errors = errorsOf(
      await load(['--port=70000', '--eviction-hard=memory.avail<1Gi', '--cgroup-driver=docker', '--address=localhost']),
    );
    expect(errors.sort()).toEqual([
      'flag --address: address: "localhost" is not a valid IP address',
      'flag --cgroup-driver: cgroupDriver: unsupported value "docker": must be one of "cgroupfs", "systemd"',
      'flag --eviction-hard: evictionHard.memory.avail: unsupported eviction signal "memory.avail"',
      'flag --port: port: must be between 0 and 65535',
    ]);
  });

  it('applies --config-dir drop-ins in lexical order over the file, ignoring non-.conf files', async () => {
    const { config, sources } = ok(
      await load([`--config=${FILE}`, '--config-dir=/etc/kubelet/conf.d', '--max-pods=9'], {
        [FILE]: `${HEADER}maxPods: 50\nsyncFrequency: 30s\nauthentication:\n  webhook:\n    cacheTTL: 1m\n`,
        '/etc/kubelet/conf.d/20-b.conf': `${HEADER}syncFrequency: 45s\n`,
        '/etc/kubelet/conf.d/10-a.conf': `${HEADER}syncFrequency: 40s\nmaxPods: 60\nauthentication:\n  anonymous:\n    enabled: true\n`,
        '/etc/kubelet/conf.d/README': 'not a config',
      }),
    );
    expect(sources.dropIns).toEqual(['/etc/kubelet/conf.d/10-a.conf', '/etc/kubelet/conf.d/20-b.conf']);
    expect(config.syncFrequency).toBe('45s');
    expect(config.maxPods).toBe(9);
    expect(config.authentication.anonymous.enabled).toBe(true);
    expect(config.authentication.webhook.cacheTTL).toBe('1m0s');
  });

  it('names the drop-in file in its errors', async () => {
    const errors = errorsOf(
      await load(
        [`--config=${FILE}`, '--config-dir=/etc/kubelet/conf.d'],
        {
          [FILE]: HEADER,
          '/etc/kubelet/conf.d/10-a.conf': `${HEADER}maxPod: 3\n`,
        },
        'error',
      ),
    );
    expect(errors).toEqual(['/etc/kubelet/conf.d/10-a.conf: maxPod: unknown field']);
  });

  it('refuses a duplicate field in a drop-in even in lenient mode (upstream decodes drop-ins strictly)', async () => {
    const errors = errorsOf(
      await load([`--config=${FILE}`, '--config-dir=/etc/kubelet/conf.d'], {
        [FILE]: HEADER,
        '/etc/kubelet/conf.d/10-a.conf': `${HEADER}maxPods: 3\nmaxPods: 4\n`,
      }),
    );
    expect(errors).toEqual(['/etc/kubelet/conf.d/10-a.conf: maxPods: duplicate field (drop-ins are decoded strictly, as upstream)']);
  });

  it('does not read files for --help or --version', async () => {
    const fs = createFakeFileSystem({});
    const result = await loadKubeletConfiguration({ argv: ['--help', `--config=${FILE}`], readFile: fs.readFile, readDir: fs.readDir });
    expect(result.ok).toBe(true);
    expect(fs.calls).toEqual([]);
  });
});

// Found by the config file fuzzer: an alias bomb made loadKubeletConfiguration reject with yaml's
// ReferenceError instead of returning the file's issue; deep nesting overflowed the stack.
describe('loadKubeletConfiguration: hostile files', () => {
  it('names the file for a YAML alias bomb instead of throwing', async () => {
    const bomb = [
      'a0: &a0 ["lol"]',
      ...Array.from({ length: 8 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(9).fill(`*a${i}`).join(', ')}]`),
    ];
    expect(errorsOf(await load([`--config=${FILE}`], { [FILE]: `${HEADER}${bomb.join('\n')}\n` }))).toEqual([
      `${FILE}: invalid YAML/JSON: Excessive alias count indicates a resource exhaustion attack`,
    ]);
  });

  it('names the file for a document nested deeper than the limit, flow or block', async () => {
    const flow = `${HEADER}evictionHard: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`;
    expect(errorsOf(await load([`--config=${FILE}`], { [FILE]: flow }))).toEqual([
      `${FILE}: invalid YAML/JSON: nested more than 1000 levels deep`,
    ]);
    const block = Array.from({ length: 3_000 }, (_, i) => `${' '.repeat(i)}a:`).join('\n');
    expect(errorsOf(await load([`--config=${FILE}`], { [FILE]: `${HEADER}x:\n ${block} 1\n` }))).toEqual([
      expect.stringMatching(new RegExp(`^${FILE}: invalid YAML/JSON: `)),
    ]);
  });
});
