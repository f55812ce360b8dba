import { parseKubeletArgs } from './flags.js';
import { CONFIG_FLAG_DEPRECATION } from './flag-table.js';
import { effectiveMaxParallelStarts, validateKubeletFlags } from './flag-validation.js';

describe('parseKubeletArgs (pflag forms)', () => {
  it('accepts --name=value and --name value', () => {
    const a = parseKubeletArgs(['--config=/etc/kubelet/config.yaml', '--root-dir', '/data/kubelet', '--hostname-override', 'node-1']);
    expect(a.errors).toEqual([]);
    expect(a.flags.config).toBe('/etc/kubelet/config.yaml');
    expect(a.flags.rootDir).toBe('/data/kubelet');
    expect(a.flags.hostnameOverride).toBe('node-1');
  });

  it('treats a bare boolean flag as true and --flag=false as false, but never consumes the next argument', () => {
    const a = parseKubeletArgs(['--exit-on-lock-contention', '--fail-swap-on=false', '--cgroups-per-qos=0']);
    expect(a.errors).toEqual([]);
    expect(a.flags.exitOnLockContention).toBe(true);
    expect(a.overrides).toMatchObject({ failSwapOn: false, cgroupsPerQOS: false });

    const b = parseKubeletArgs(['--fail-swap-on', 'false']);
    expect(b.overrides['failSwapOn']).toBe(true);
    expect(b.errors).toEqual([{ source: 'command line', path: '', reason: 'unknown command "false"' }]);
  });

  it('reads verbosity from -v=4, -v 4, -v4 and --v=4', () => {
    for (const argv of [['-v=4'], ['-v', '4'], ['-v4'], ['--v=4'], ['--v', '4']]) {
      const a = parseKubeletArgs(argv);
      expect(a.errors).toEqual([]);
      expect(a.overrides).toEqual({ logging: { verbosity: 4 } });
    }
  });

  it('parses map flags, merging repeated occurrences', () => {
    const a = parseKubeletArgs(['--node-labels=a=b,c=d', '--node-labels', 'e=f', '--system-reserved=cpu=200m,memory=500Mi']);
    expect(a.errors).toEqual([]);
    expect(a.flags.nodeLabels).toEqual({ a: 'b', c: 'd', e: 'f' });
    expect(a.overrides['systemReserved']).toEqual({ cpu: '200m', memory: '500Mi' });
  });

  it('parses --eviction-hard as signal<value pairs', () => {
    const a = parseKubeletArgs(['--eviction-hard=memory.available<100Mi,nodefs.available<10%']);
    expect(a.overrides['evictionHard']).toEqual({ 'memory.available': '100Mi', 'nodefs.available': '10%' });
    expect(a.setBy.get('evictionHard')).toBe('flag --eviction-hard');
  });

  it('collects repeated --manifest-url-header values per key', () => {
    const a = parseKubeletArgs(['--manifest-url-header', 'a:hello,b:again', '--manifest-url-header=b:beautiful']);
    expect(a.overrides['staticPodURLHeader']).toEqual({ a: ['hello'], b: ['again', 'beautiful'] });
  });

  it('parses taints, reserved memory, feature gates, lists and durations', () => {
    const a = parseKubeletArgs([
      '--register-with-taints=dedicated=infra:NoSchedule,gpu:NoExecute',
      '--reserved-memory',
      '0:memory=1Gi',
      '--reserved-memory=1:memory=2Gi',
      '--feature-gates=A=true,B=false',
      '--cluster-dns=10.0.0.10,10.0.0.11',
      '--sync-frequency=90s',
      '--vmodule=pod*=4',
      '--anonymous-auth=false',
    ]);
    expect(a.errors).toEqual([]);
    expect(a.overrides).toMatchObject({
      registerWithTaints: [
        { key: 'dedicated', value: 'infra', effect: 'NoSchedule' },
        { key: 'gpu', effect: 'NoExecute' },
      ],
      reservedMemory: [
        { numaNode: 0, limits: { memory: '1Gi' } },
        { numaNode: 1, limits: { memory: '2Gi' } },
      ],
      featureGates: { A: true, B: false },
      clusterDNS: ['10.0.0.10', '10.0.0.11'],
      syncFrequency: '1m30s',
      logging: { vmodule: [{ filePattern: 'pod*', verbosity: 4 }] },
      authentication: { anonymous: { enabled: false } },
    });
  });

  it('normalizes _ to - in flag names, like WordSepNormalizeFunc', () => {
    expect(parseKubeletArgs(['--max_pods=20']).overrides['maxPods']).toBe(20);
  });

  it('reports unknown flags by name', () => {
    const a = parseKubeletArgs(['--foo=1', '--pod-pids-limit', '5', '-x']);
    expect(a.errors).toEqual([
      { source: 'flag --foo', path: '', reason: 'unknown flag: --foo' },
      { source: 'flag --pod-pids-limit', path: '', reason: 'unknown flag: --pod-pids-limit' },
      { source: 'command line', path: '', reason: 'unknown command "5"' },
      { source: 'flag -x', path: '', reason: "unknown shorthand flag: 'x' in -x" },
    ]);
  });

  it('reports unparseable values with the flag and field', () => {
    const a = parseKubeletArgs(['--port=http', '--sync-frequency=1x', '--fail-swap-on=maybe', '--max-pods']);
    expect(a.errors).toEqual([
      { source: 'flag --port', path: 'port', reason: 'invalid argument "http": not an integer' },
      { source: 'flag --sync-frequency', path: 'syncFrequency', reason: 'invalid duration "1x"' },
      { source: 'flag --fail-swap-on', path: 'failSwapOn', reason: 'invalid argument "maybe": not a boolean' },
      { source: 'flag --max-pods', path: 'maxPods', reason: 'flag needs an argument: --max-pods' },
    ]);
  });

  it('warns once per deprecated flag with upstream pflag wording', () => {
    const a = parseKubeletArgs(['--max-pods=10', '--max-pods=20', '--provider-id=x', '-v=2']);
    expect(a.warnings).toEqual([`Flag --max-pods has been deprecated, ${CONFIG_FLAG_DEPRECATION}`]);
    expect(a.overrides['maxPods']).toBe(20);
  });

  it('accepts --pod-infra-container-image and warns that it only keeps the image from GC', () => {
    const a = parseKubeletArgs(['--pod-infra-container-image=registry.k8s.io/pause:3.10']);
    expect(a.errors).toEqual([]);
    expect(a.warnings).toHaveLength(2);
    expect(a.warnings[0]).toMatch(/^Flag --pod-infra-container-image has been deprecated/);
    expect(a.warnings[1]).toContain('only keeps that image from image GC');
  });

  it('derives standalone mode from the absence of --kubeconfig, and reads --help/-h and --version', () => {
    expect(parseKubeletArgs([]).flags.standalone).toBe(true);
    expect(parseKubeletArgs(['--kubeconfig=/etc/kubernetes/kubelet.conf']).flags.standalone).toBe(false);
    expect(parseKubeletArgs(['-h']).flags.help).toBe(true);
    expect(parseKubeletArgs(['--version']).flags.version).toBe(true);
    expect(parseKubeletArgs(['--version=raw']).flags.version).toBe('raw');
  });

  it('stops at -- and treats what follows as (rejected) positional arguments', () => {
    const a = parseKubeletArgs(['--max-pods=5', '--', '--port=1']);
    expect(a.overrides).toEqual({ maxPods: 5 });
    expect(a.errors).toEqual([{ source: 'command line', path: '', reason: 'unknown command "--port=1"' }]);
  });
});

describe('validateKubeletFlags', () => {
  const validate = async (argv: string[]) => validateKubeletFlags(parseKubeletArgs(argv).flags);

  it('accepts ordinary labels and the kubelet-settable kubernetes.io ones', async () => {
    expect(
      await validate(['--node-labels=role=edge,node.kubernetes.io/pool=a,kubernetes.io/hostname=n1,topology.kubernetes.io/zone=z']),
    ).toEqual([]);
  });

  it('rejects other kubernetes.io labels and malformed keys or values', async () => {
    const reasons = (await validate(['--node-labels=node-role.kubernetes.io/master=,bad key=x,ok=bad value'])).map(
      (i) => `${i.source}: ${i.reason}`,
    );
    expect(reasons).toEqual([
      expect.stringMatching(/^flag --node-labels: unknown 'kubernetes.io' or 'k8s.io' label "node-role.kubernetes.io\/master"/),
      expect.stringMatching(/^flag --node-labels: invalid label key "bad key"/),
      'flag --node-labels: invalid label value "bad value" for "ok"',
    ]);
  });

  it('checks --node-ip addresses, allowing one of each family', async () => {
    expect(await validate(['--node-ip=10.0.0.5,fd00::5'])).toEqual([]);
    expect((await validate(['--node-ip=10.0.0.300'])).map((i) => i.reason)).toEqual(['"10.0.0.300" is not a valid IP address']);
    expect((await validate(['--node-ip=10.0.0.5,10.0.0.6'])).map((i) => i.reason)).toEqual([
      'at most two addresses, one IPv4 and one IPv6 (dual-stack), may be given',
    ]);
  });
});

describe('kubelet-ts extension flags', () => {
  it('parses --static-object-dir and --evict-static-pods (off by default, as upstream never evicts static pods)', () => {
    expect(parseKubeletArgs([]).flags.evictStaticPods).toBe(false);
    const a = parseKubeletArgs(['--static-object-dir=/etc/kubelet-ts/objects', '--evict-static-pods']);
    expect(a.errors).toEqual([]);
    expect(a.flags.staticObjectDir).toBe('/etc/kubelet-ts/objects');
    expect(a.flags.evictStaticPods).toBe(true);
  });

  it('parses --max-parallel-starts: twice the CPUs by default, 0 for unlimited, negative refused', () => {
    expect(parseKubeletArgs([]).flags.maxParallelStarts).toBeUndefined();
    expect(effectiveMaxParallelStarts({}, 2)).toBe(4);
    expect(effectiveMaxParallelStarts({}, 1)).toBe(2);
    const set = parseKubeletArgs(['--max-parallel-starts=3']);
    expect(set.errors).toEqual([]);
    expect(effectiveMaxParallelStarts(set.flags, 8)).toBe(3);
    expect(effectiveMaxParallelStarts(parseKubeletArgs(['--max-parallel-starts', '0']).flags, 8)).toBeUndefined();
    expect(validateKubeletFlags(parseKubeletArgs(['--max-parallel-starts=-1']).flags)).toEqual([
      { source: 'flag --max-parallel-starts', path: '', reason: 'must be 0 (unlimited) or more, got -1' },
    ]);
  });

  // Found by the command-line fuzzer: `--a<newline>E kubelet: …` printed as two lines of the error
  // report (the second one forged), and `--=x` was an "unknown flag: --" with no name.
  it('quotes a flag name that is not printable ASCII and calls a nameless flag bad syntax, as pflag', () => {
    expect(parseKubeletArgs(['--a\nE kubelet: fake=1', '-\u001b[31m', '--=x', '---x', '-- ']).errors).toEqual([
      { source: 'flag "--a\\nE kubelet: fake"', path: '', reason: 'unknown flag: "--a\\nE kubelet: fake"' },
      { source: 'flag "-\\u001b"', path: '', reason: `unknown shorthand flag: '\u001b' in "-\\u001b[31m"` },
      { source: 'command line', path: '', reason: 'bad flag syntax: "--=x"' },
      { source: 'command line', path: '', reason: 'bad flag syntax: "---x"' },
      { source: 'flag "-- "', path: '', reason: 'unknown flag: "-- "' },
    ]);
  });
});
