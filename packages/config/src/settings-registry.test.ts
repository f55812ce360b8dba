import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { formatConfigIssue } from './errors.js';
import { KUBELET_CLI_FLAGS, KUBELET_CONFIG_FLAGS } from './flag-table.js';
import { loadKubeletConfiguration } from './load.js';
import type { LoadKubeletConfigurationResult } from './load.js';
import { kubeletConfigurationSchema } from './schema.js';
import { CLI_FLAG_SETTINGS, CONFIG_FIELD_SETTINGS } from './settings-registry.js';
import { createFakeFileSystem } from './testing/fake-file-system.js';
import { STRUCT_PATHS } from './load.js';

const FILE = '/etc/kubelet/config.yaml';
const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';

// Structs whose fields the registry lists one by one: the loader's structs, but `tracing`, one setting.
const STRUCTS = new Set([...STRUCT_PATHS].filter((p) => p !== 'tracing'));

function leafFields(shape: Record<string, z.ZodType>, prefix = ''): string[] {
  const out: string[] = [];
  for (const [key, field] of Object.entries(shape)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    if (path === 'apiVersion' || path === 'kind') continue;
    const inner = (field as unknown as { unwrap?: () => unknown }).unwrap?.() as { shape?: Record<string, z.ZodType> } | undefined;
    if (STRUCTS.has(path) && inner?.shape !== undefined) out.push(...leafFields(inner.shape, path));
    else out.push(path);
  }
  return out;
}

async function load(argv: string[], files: Record<string, string>): Promise<LoadKubeletConfigurationResult> {
  const fs = createFakeFileSystem(files);
  return loadKubeletConfiguration({ argv, readFile: fs.readFile, readDir: fs.readDir, cwd: '/' });
}

const errorsOf = (r: LoadKubeletConfigurationResult): string[] => (r.ok ? [] : r.errors.map(formatConfigIssue));

describe('the settings registry: no setting silently ignored', () => {
  it('has exactly one entry per KubeletConfiguration field (struct fields one by one)', () => {
    const fields = leafFields(kubeletConfigurationSchema.shape as unknown as Record<string, z.ZodType>);
    const names = CONFIG_FIELD_SETTINGS.map((s) => s.name);
    expect([...names].sort()).toEqual([...fields].sort());
    expect(new Set(names).size).toBe(names.length);
  });

  it('has one entry per command-line flag that is not a config field, and config flags target listed fields', () => {
    expect(CLI_FLAG_SETTINGS.map((s) => s.name).sort()).toEqual(KUBELET_CLI_FLAGS.map((f) => `--${f.name}`).sort());
    const fields = new Set(CONFIG_FIELD_SETTINGS.map((s) => s.name));
    const orphans = KUBELET_CONFIG_FLAGS.filter((f) => 'config' in f.target && !fields.has(f.target.config)).map((f) => f.name);
    expect(orphans).toEqual([]);
  });

  it('gives every refused and no-op setting a note', () => {
    const silent = [...CONFIG_FIELD_SETTINGS, ...CLI_FLAG_SETTINGS].filter((s) => s.status !== 'implemented' && s.note === '');
    expect(silent).toEqual([]);
  });

  it('refuses a setting kubelet-ts does not do when it differs from the default, naming source, field and reason', async () => {
    expect(errorsOf(await load([`--config=${FILE}`], { [FILE]: `${HEADER}streamingConnectionIdleTimeout: 1h\n` }))).toEqual([
      `${FILE}: streamingConnectionIdleTimeout: kubelet-ts does not support "1h0m0s" yet (only the default "4h0m0s")`,
    ]);
    expect(errorsOf(await load(['--streaming-connection-idle-timeout=1h'], {}))).toEqual([
      'flag --streaming-connection-idle-timeout: streamingConnectionIdleTimeout: kubelet-ts does not support "1h0m0s" yet (only the default "4h0m0s")',
    ]);
    // Implemented since: no longer refused.
    expect(errorsOf(await load([`--config=${FILE}`], { [FILE]: `${HEADER}cpuManagerPolicy: static\nreservedSystemCPUs: "0"\n` }))).toEqual(
      [],
    );
    expect(
      errorsOf(await load([`--config=${FILE}`, '--reserved-memory=0:memory=100Mi'], { [FILE]: `${HEADER}memoryManagerPolicy: Static\n` })),
    ).toEqual([]);
    expect(errorsOf(await load([`--config=${FILE}`], { [FILE]: `${HEADER}shutdownGracePeriod: 30s\n` }))).toEqual([]);
    expect(errorsOf(await load(['--lock-file=/var/run/kubelet.lock'], {}))).toEqual([
      'flag --lock-file: kubelet-ts does not support "/var/run/kubelet.lock" yet (only the default "")',
    ]);
  });

  it('accepts a refused setting at its default, or spelled as the default', async () => {
    const body = `${HEADER}streamingConnectionIdleTimeout: 240m\nshutdownGracePeriod: 0m\nregistryPullQPS: 5\nmemorySwap:\n  swapBehavior: NoSwap\nmakeIPTablesUtilChains: false\n`;
    const result = await load([`--config=${FILE}`, '--maximum-dead-containers=-1'], { [FILE]: body });
    expect(errorsOf(result)).toEqual([]);
  });

  it('refuses only the unsupported values of a setting that is partly done', async () => {
    const body = `${HEADER}enforceNodeAllocatable: [pods, system-reserved]\nsystemReservedCgroup: /system.slice\n`;
    expect(errorsOf(await load([`--config=${FILE}`], { [FILE]: body }))).toEqual([
      `${FILE}: systemReservedCgroup: kubelet-ts does not support "/system.slice" yet (only the default "")`,
      `${FILE}: enforceNodeAllocatable: kubelet-ts does not enforce "system-reserved" yet (only "pods" and "none")`,
    ]);
    expect(errorsOf(await load([`--config=${FILE}`], { [FILE]: `${HEADER}enforceNodeAllocatable: [pods]\n` }))).toEqual([]);
  });
});

const EXAMPLES = join(__dirname, 'fixtures/examples');
const example = (name: string): string => readFileSync(join(EXAMPLES, name), 'utf8');
const flagsOf = (name: string): string[] => example(name).trim().split('\n');

describe('upstream example configurations start, with only the warnings upstream prints', () => {
  it('kubeadm 1.34 (its config.yaml and flags)', async () => {
    const result = await load(flagsOf('kubeadm-1.34.flags'), { '/var/lib/kubelet/config.yaml': example('kubeadm-1.34.yaml') });
    expect(errorsOf(result)).toEqual([]);
    if (!result.ok) return;
    expect(result.warnings).toEqual([
      "Flag --container-runtime-endpoint has been deprecated, This parameter should be set via the config file specified by the Kubelet's --config flag. See https://kubernetes.io/docs/tasks/administer-cluster/kubelet-config-file/ for more information.",
    ]);
    // zero values are defaults, as upstream
    expect(result.config.syncFrequency).toBe('1m0s');
    expect(result.config.containerRuntimeEndpoint).toBe('unix:///var/run/containerd/containerd.sock');
  });

  it("kind's KubeletConfiguration, with its node flags", async () => {
    const result = await load(flagsOf('kind-1.34.flags'), { '/var/lib/kubelet/config.yaml': example('kind-1.34.yaml') });
    expect(errorsOf(result)).toEqual([]);
    if (!result.ok) return;
    expect(result.warnings).toEqual([
      '/var/lib/kubelet/config.yaml: metadata: unknown field, ignored (Using lenient decoding as strict decoding failed)',
    ]);
    expect(result.config.evictionHard).toEqual({ 'nodefs.available': '0%', 'nodefs.inodesFree': '0%', 'imagefs.available': '0%' });
  });

  it('the kubelet-config-file documentation example and its drop-in', async () => {
    const result = await load([`--config=${FILE}`, '--config-dir=/etc/kubernetes/kubelet.conf.d'], {
      [FILE]: example('kubelet-config-file-docs.yaml'),
      '/etc/kubernetes/kubelet.conf.d/20-kubelet.conf': example('kubelet-config-file-docs-dropin.conf'),
    });
    expect(errorsOf(result)).toEqual([]);
    if (!result.ok) return;
    expect(result.warnings).toEqual([]);
    expect(result.config.port).toBe(20250);
    // upstream merges a drop-in as a JSON merge patch: maps merge key by key
    expect(result.config.evictionHard).toEqual({
      'memory.available': '200Mi',
      'nodefs.available': '10%',
      'nodefs.inodesFree': '5%',
      'imagefs.available': '15%',
      'imagefs.inodesFree': '5%',
    });
  });

  it("the test bed's configuration (scripts/lib/upstream-kubelet.mjs) with its flags", async () => {
    const argv = [
      '--config=/tmp/kubelet/config.yaml',
      '--bootstrap-kubeconfig=/b',
      '--kubeconfig=/k',
      '--root-dir=/tmp/kubelet/root',
      '--v=2',
    ];
    const result = await load(argv, { '/tmp/kubelet/config.yaml': example('test-bed.yaml') });
    expect(errorsOf(result)).toEqual([]);
    expect(result.ok && result.warnings).toEqual([]);
  });

  it("this repository's examples", async () => {
    for (const name of ['kubelet-config.yaml', 'kubelet-config-cluster.yaml']) {
      const path = join(__dirname, '../../../examples', name);
      const result = await load([`--config=${path}`], { [path]: readFileSync(path, 'utf8') });
      expect({ name, errors: errorsOf(result) }).toEqual({ name, errors: [] });
    }
  });
});

describe('reservedMemory validation (upstream validateReservedMemoryConfiguration)', () => {
  it('accepts memory and huge pages, refuses other types, zeros and duplicates', async () => {
    expect(errorsOf(await load(['--reserved-memory=0:memory=1Gi,hugepages-2Mi=4Mi', '--reserved-memory=1:memory=1Gi'], {}))).toEqual([]);
    expect(
      errorsOf(await load(['--reserved-memory=0:blabla=1Gi', '--reserved-memory=0:memory=0', '--reserved-memory=0:memory=1Gi'], {})),
    ).toEqual([
      expect.stringContaining(
        'reservedMemory[0].limits.blabla: the limit type "blabla" for NUMA node 0 is not supported, only [memory hugepages-<HugePageSize>] is accepted',
      ),
      expect.stringContaining('reservedMemory[1].limits.memory: reserved memory may not be zero for NUMA node 0 and resource "memory"'),
      expect.stringContaining(
        'reservedMemory[2].limits.memory: the reserved memory has a duplicate value for NUMA node 0 and resource "memory"',
      ),
    ]);
  });
});
