import { KUBELET_FLAGS } from './flag-table.js';
import type { FlagKind } from './flag-table.js';
import { parseKubeletArgs } from './flags.js';
import { UPSTREAM_KUBELET_FLAGS } from './gen/upstream-flags.js';

// A value of each kind that upstream's parser accepts (used when --help prints no default).
const SAMPLE: Record<FlagKind, string> = {
  string: 'x',
  bool: 'true',
  int32: '1',
  int64: '1',
  float: '1.5',
  quantity: '2Ki',
  duration: '1s',
  stringSlice: 'a,b',
  map: 'a=b',
  langleMap: 'memory.available<1Gi',
  mapBool: 'AllAlpha=false',
  colonMultimap: 'a:b',
  taints: 'k=v:NoSchedule',
  reservedMemory: '0:memory=1Gi',
  vmodule: 'server=2',
  level: '2',
  version: 'true',
};

// Flags of kubelet-ts that upstream does not have (README: kubelet-ts extensions).
const EXTENSIONS = ['static-object-dir', 'evict-static-pods', 'max-parallel-starts'];

const ours = new Map(KUBELET_FLAGS.map((spec) => [spec.name, spec]));

describe('every flag of the upstream kubelet (src/gen/upstream-flags.ts, from its --help)', () => {
  it.each(UPSTREAM_KUBELET_FLAGS.map((f) => [f.name, f] as const))('--%s is accepted and parses', (name, upstream) => {
    const spec = ours.get(name);
    expect(spec).toBeDefined();
    if (spec === undefined) return;
    const printed = upstream.default?.replace(/^"(.*)"$/, '$1');
    // Defaults such as `[pods]` or `""` are --help's rendering, not flag syntax.
    const value = printed === undefined || printed === '' || printed.startsWith('[') ? SAMPLE[spec.kind] : printed;
    const parsed = parseKubeletArgs([`--${name}=${value}`]);
    expect(parsed.errors).toEqual([]);
    if (upstream.shorthand !== undefined) expect(spec.short).toBe(upstream.shorthand);
  });

  it('prints upstream deprecation texts, and no deprecation where upstream prints none', () => {
    const mismatches = UPSTREAM_KUBELET_FLAGS.filter((u) => ours.get(u.name)?.deprecated !== u.deprecated).map((u) => u.name);
    expect(mismatches).toEqual([]);
  });

  it('has no flag upstream lacks besides the documented kubelet-ts extensions', () => {
    const upstream = new Set(UPSTREAM_KUBELET_FLAGS.map((f) => f.name));
    expect([...ours.keys()].filter((name) => !upstream.has(name))).toEqual(EXTENSIONS);
  });

  it('warns as upstream for a deprecated flag and accepts a cAdvisor flag with no effect', () => {
    const parsed = parseKubeletArgs(['--experimental-allocatable-ignore-eviction', '--storage-driver-db=x', '--fail-cgroupv1']);
    expect(parsed.errors).toEqual([]);
    expect(parsed.flags.experimentalAllocatableIgnoreEviction).toBe(true);
    expect(parsed.flags.noOpFlags).toEqual({ 'storage-driver-db': 'x' });
    expect(parsed.overrides).toEqual({ failCgroupV1: true });
    expect(parsed.warnings).toEqual([
      'Flag --experimental-allocatable-ignore-eviction has been deprecated, will be removed in 1.25 or later.',
      'Flag --storage-driver-db has been deprecated, This is a cadvisor flag that was mistakenly registered with the Kubelet. Due to legacy concerns, it will follow the standard CLI deprecation timeline before being removed.',
    ]);
  });

  it('checks the type of a no-op flag as upstream does', () => {
    expect(parseKubeletArgs(['--global-housekeeping-interval=soon']).errors).toEqual([
      { source: 'flag --global-housekeeping-interval', path: '', reason: 'invalid duration "soon"' },
    ]);
  });

  it('--log-text-split-stream and --log-text-info-buffer-size set logging.options.text', () => {
    const parsed = parseKubeletArgs(['--log-text-split-stream', '--log-text-info-buffer-size=4Ki']);
    expect(parsed.errors).toEqual([]);
    expect(parsed.overrides).toEqual({ logging: { options: { text: { splitStream: true, infoBufferSize: '4Ki' } } } });
  });
});
