import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from '@kubelet-ts/api';
import { RecordingLogger } from '@kubelet-ts/common/testing';
import { createRuntimeHelper } from './runtime-helper.js';
import type { RuntimeHelperDeps } from './runtime-helper.js';
import { makePod } from './testing/make-pod.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'runtime-helper-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function helper(extra: Partial<RuntimeHelperDeps> = {}) {
  return createRuntimeHelper({ rootDir: root, nodeName: 'node-1', getNodeIPs: () => ['192.168.1.10'], resolvConf: '', ...extra });
}

const HEADER = [
  '# Kubernetes-managed hosts file.',
  '127.0.0.1\tlocalhost',
  '::1\tlocalhost ip6-localhost ip6-loopback',
  'fe00::0\tip6-localnet',
  'fe00::0\tip6-mcastprefix',
  'fe00::1\tip6-allnodes',
  'fe00::2\tip6-allrouters',
].join('\n');

describe('createRuntimeHelper', () => {
  it('puts pods under <rootDir>/pods/<uid> and has no cgroup parent unless given one', () => {
    expect(helper().getPodDir('abc')).toBe(join(root, 'pods', 'abc'));
    const pod = makePod();
    expect(helper().getPodCgroupParent(pod)).toBeUndefined();
    expect(helper({ getPodCgroupParent: (p) => `/kubepods/pod${p.metadata.uid}` }).getPodCgroupParent(pod)).toBe(
      `/kubepods/pod${pod.metadata.uid}`,
    );
  });

  it('reads node allocatable at each container start for limits the container does not set: cpu in millicores', async () => {
    let allocatable = { cpuMilli: 1500, memoryBytes: 3 * 1024 ** 2 };
    const h = helper({ getNodeAllocatable: () => allocatable });
    const pod = makePod({
      containers: [
        {
          name: 'app',
          env: [
            { name: 'CPU_M', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1m' } } },
            { name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } },
            { name: 'MEM_MI', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } },
          ],
        },
      ],
    });
    const env = async () => (await h.generateRunContainerOptions(pod, pod.spec.containers[0]!, [])).env;
    // 1500 millicores: 1500 in 1m and 2 cores rounded up (not 1500 cores, not 1.5m).
    expect(await env()).toEqual([
      { name: 'CPU_M', value: '1500' },
      { name: 'CPU', value: '2' },
      { name: 'MEM_MI', value: '3' },
    ]);
    allocatable = { cpuMilli: 2500, memoryBytes: 5 * 1024 ** 2 };
    expect((await env()).map((e) => e.value)).toEqual(['2500', '3', '5']);
    // Without a getter, unset limits read 0.
    expect((await helper().generateRunContainerOptions(pod, pod.spec.containers[0]!, [])).env.map((e) => e.value)).toEqual(['0', '0', '0']);
  });

  it('writes the managed /etc/hosts with the pod IP, hostname and host aliases, and mounts it', async () => {
    const pod = makePod({ name: 'web', spec: { hostAliases: [{ ip: '10.1.2.3', hostnames: ['foo.local', 'bar.local'] }] } });
    const options = await helper().generateRunContainerOptions(pod, pod.spec.containers[0]!, ['10.88.0.7']);
    const hostsPath = join(root, 'pods', pod.metadata.uid, 'etc-hosts');
    expect(options.hostname).toBe('web');
    expect(options.mounts).toEqual([{ containerPath: '/etc/hosts', hostPath: hostsPath, readOnly: false, selinuxRelabel: true }]);
    expect(await readFile(hostsPath, 'utf8')).toBe(
      `${HEADER}\n10.88.0.7\tweb\n\n# Entries added by HostAliases.\n10.1.2.3\tfoo.local\tbar.local\n`,
    );
  });

  it('uses spec.hostname and the subdomain FQDN in /etc/hosts', async () => {
    const pod = makePod({ name: 'web-0', namespace: 'prod', spec: { hostname: 'db', subdomain: 'cluster' } });
    const options = await helper({ clusterDomain: 'cluster.local' }).generateRunContainerOptions(pod, pod.spec.containers[0]!, [
      '10.88.0.7',
    ]);
    expect(options.hostname).toBe('db');
    const hosts = await readFile(join(root, 'pods', pod.metadata.uid, 'etc-hosts'), 'utf8');
    expect(hosts.endsWith('10.88.0.7\tdb.cluster.prod.svc.cluster.local\tdb\n')).toBe(true);
  });

  it('truncates a long hostname to 63 characters without a trailing dash', () => {
    const name = `${'a'.repeat(62)}-bbbb`;
    const pod = makePod({ name });
    return helper()
      .generateRunContainerOptions(pod, pod.spec.containers[0]!, [])
      .then((o) => expect(o.hostname).toBe('a'.repeat(62)));
  });

  it("gives host-network pods the node's hosts file with their host aliases (upstream nodeHostsFileContent)", async () => {
    const nodeHosts = join(root, 'node-hosts');
    await writeFile(nodeHosts, '127.0.0.1\tlocalhost\n10.0.0.5\tnode-a\n');
    const pod = makePod({ hostNetwork: true, spec: { hostAliases: [{ ip: '123.45.67.89', hostnames: ['foo', 'bar'] }] } });
    const options = await helper({ nodeHostsFile: nodeHosts }).generateRunContainerOptions(pod, pod.spec.containers[0]!, ['192.168.1.10']);
    const hostsPath = join(root, 'pods', pod.metadata.uid, 'etc-hosts');
    expect(options.mounts).toEqual([{ containerPath: '/etc/hosts', hostPath: hostsPath, readOnly: false, selinuxRelabel: true }]);
    expect(await readFile(hostsPath, 'utf8')).toBe(
      '# Kubernetes-managed hosts file (host network).\n127.0.0.1\tlocalhost\n10.0.0.5\tnode-a\n\n# Entries added by HostAliases.\n123.45.67.89\tfoo\tbar\n',
    );
  });

  it('does not manage /etc/hosts for pod-network pods without IP, or containers mounting their own', async () => {
    const noIp = makePod();
    expect((await helper().generateRunContainerOptions(noIp, noIp.spec.containers[0]!, [])).mounts).toEqual([]);
    const own = makePod();
    const volumes = {
      waitForAttachAndMount: async () => undefined,
      getMountsForContainer: async () => [{ containerPath: '/etc/hosts', hostPath: '/srv/hosts', readOnly: true }],
      teardownPod: async () => undefined,
    };
    const mounts = (await helper({ volumes }).generateRunContainerOptions(own, own.spec.containers[0]!, ['10.88.0.7'])).mounts;
    expect(mounts).toEqual([{ containerPath: '/etc/hosts', hostPath: '/srv/hosts', readOnly: true }]);
  });

  it('passes env through makeEnvironmentVariables', async () => {
    const pod = makePod({
      name: 'web',
      containers: [{ name: 'app', env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] }],
    });
    const options = await helper().generateRunContainerOptions(pod, pod.spec.containers[0]!, []);
    expect(options.env).toEqual([{ name: 'POD', value: 'web' }]);
  });
});

describe('getPodDNS', () => {
  const resolv = 'nameserver 1.1.1.1\nnameserver 8.8.8.8 # google\nsearch example.com. corp.local .\noptions ndots:2 timeout:1\n';
  const withResolv = async (extra: Partial<RuntimeHelperDeps> = {}) => {
    const path = join(root, 'resolv.conf');
    await writeFile(path, resolv);
    return helper({ resolvConf: path, ...extra });
  };
  const dnsPod = (spec: Partial<Pod['spec']>): Pod => makePod({ namespace: 'prod', spec });

  it('Default uses the node resolv.conf', async () => {
    const dns = await (await withResolv()).getPodDNS(dnsPod({ dnsPolicy: 'Default' }));
    expect(dns).toEqual({ servers: ['1.1.1.1', '8.8.8.8'], searches: ['example.com', 'corp.local'], options: ['ndots:2', 'timeout:1'] });
  });

  it('ClusterFirst without cluster DNS falls back to Default, with a warning', async () => {
    const logger = new RecordingLogger();
    const dns = await (await withResolv({ logger })).getPodDNS(dnsPod({}));
    expect(dns.servers).toEqual(['1.1.1.1', '8.8.8.8']);
    expect(logger.find('Falling back to "Default" policy')).toHaveLength(1);
  });

  it('ClusterFirst with cluster DNS uses it, cluster search domains first, ndots:5', async () => {
    const dns = await (await withResolv({ clusterDNS: ['10.96.0.10'], clusterDomain: 'cluster.local' })).getPodDNS(dnsPod({}));
    expect(dns).toEqual({
      servers: ['10.96.0.10'],
      searches: ['prod.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'example.com', 'corp.local'],
      options: ['ndots:5'],
    });
  });

  it('ClusterFirst on the host network is Default; ClusterFirstWithHostNet is cluster', async () => {
    const h = await withResolv({ clusterDNS: ['10.96.0.10'], clusterDomain: 'cluster.local' });
    expect((await h.getPodDNS(dnsPod({ hostNetwork: true }))).servers).toEqual(['1.1.1.1', '8.8.8.8']);
    expect((await h.getPodDNS(dnsPod({ hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' }))).servers).toEqual(['10.96.0.10']);
  });

  it('None takes only the pod dnsConfig, which other policies merge in (pod options win)', async () => {
    const h = await withResolv();
    const none = await h.getPodDNS(
      dnsPod({ dnsPolicy: 'None', dnsConfig: { nameservers: ['9.9.9.9'], searches: ['a.b'], options: [{ name: 'ndots', value: '1' }] } }),
    );
    expect(none).toEqual({ servers: ['9.9.9.9'], searches: ['a.b'], options: ['ndots:1'] });
    const merged = await h.getPodDNS(
      dnsPod({
        dnsPolicy: 'Default',
        dnsConfig: { nameservers: ['9.9.9.9', '1.1.1.1'], options: [{ name: 'ndots', value: '3' }, { name: 'edns0' }] },
      }),
    );
    expect(merged).toEqual({
      servers: ['1.1.1.1', '8.8.8.8', '9.9.9.9'],
      searches: ['example.com', 'corp.local'],
      options: ['ndots:3', 'timeout:1', 'edns0'],
    });
  });

  it('keeps at most 3 nameservers', async () => {
    const dns = await (await withResolv()).getPodDNS(dnsPod({ dnsPolicy: 'Default', dnsConfig: { nameservers: ['9.9.9.9', '4.4.4.4'] } }));
    expect(dns.servers).toEqual(['1.1.1.1', '8.8.8.8', '9.9.9.9']);
  });

  it('with --resolv-conf "" points host DNS at the local machine', async () => {
    expect(await helper().getPodDNS(dnsPod({ dnsPolicy: 'Default' }))).toEqual({ servers: ['127.0.0.1'], searches: ['.'], options: [] });
  });

  it('fails clearly when the configured resolv.conf cannot be read', async () => {
    await expect(helper({ resolvConf: join(root, 'missing.conf') }).getPodDNS(dnsPod({ dnsPolicy: 'Default' }))).rejects.toThrow(
      'failed to read resolv.conf',
    );
  });
});
