import { PodSchema } from '@kubelet-ts/api';
import type { Pod } from '@kubelet-ts/api';
import { RecordingLogger } from '@kubelet-ts/common/testing';
import { AdmissionError, createSysctlAdmitHandler, safeSysctls, sysctlToDots, validateAllowedUnsafeSysctls } from './index.js';
import type { PodAdmitResult } from './index.js';

const KERNEL = '6.8.0-45-generic';

function pod(sysctls: string[], spec: Record<string, unknown> = {}): Pod {
  return PodSchema.parse({
    metadata: { name: 'web', namespace: 'default', uid: 'u' },
    spec: {
      containers: [{ name: 'app', image: 'nginx' }],
      securityContext: { sysctls: sysctls.map((name) => ({ name, value: '1' })) },
      ...spec,
    },
  });
}

const forbidden = (why: string): PodAdmitResult => ({ admit: false, reason: 'SysctlForbidden', message: `forbidden sysctl: ${why}` });

describe('the safe set (v1.34)', () => {
  it('is the full list on a recent kernel', () => {
    expect(safeSysctls(KERNEL)).toEqual([
      'kernel.shm_rmid_forced',
      'net.ipv4.ip_local_port_range',
      'net.ipv4.tcp_syncookies',
      'net.ipv4.ping_group_range',
      'net.ipv4.ip_unprivileged_port_start',
      'net.ipv4.ip_local_reserved_ports',
      'net.ipv4.tcp_keepalive_time',
      'net.ipv4.tcp_fin_timeout',
      'net.ipv4.tcp_keepalive_intvl',
      'net.ipv4.tcp_keepalive_probes',
      'net.ipv4.tcp_rmem',
      'net.ipv4.tcp_wmem',
    ]);
  });

  it.each<[string, string[]]>([
    ['4.14.0', ['net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem']],
    ['4.5.7', ['net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem']],
    [
      '3.16',
      [
        'net.ipv4.tcp_keepalive_time',
        'net.ipv4.tcp_fin_timeout',
        'net.ipv4.tcp_keepalive_intvl',
        'net.ipv4.tcp_keepalive_probes',
        'net.ipv4.tcp_rmem',
        'net.ipv4.tcp_wmem',
      ],
    ],
    [
      '3.10.0-1160.el7.x86_64',
      [
        'net.ipv4.ip_local_reserved_ports',
        'net.ipv4.tcp_keepalive_time',
        'net.ipv4.tcp_fin_timeout',
        'net.ipv4.tcp_keepalive_intvl',
        'net.ipv4.tcp_keepalive_probes',
        'net.ipv4.tcp_rmem',
        'net.ipv4.tcp_wmem',
      ],
    ],
  ])('leaves out on kernel %s the sysctls it does not namespace', (kernel, dropped) => {
    const logger = new RecordingLogger();
    const all = safeSysctls(KERNEL);
    expect(safeSysctls(kernel, logger)).toEqual(all.filter((s) => !dropped.includes(s)));
    expect(logger.find('dropping the sysctl').map((r) => r.fields?.['sysctl'])).toEqual(dropped);
  });

  it('keeps only the always-namespaced ones when the kernel version is unknown, and logs an error', () => {
    const logger = new RecordingLogger();
    expect(safeSysctls('unknown', logger)).toEqual([
      'kernel.shm_rmid_forced',
      'net.ipv4.ip_local_port_range',
      'net.ipv4.tcp_syncookies',
      'net.ipv4.ping_group_range',
      'net.ipv4.ip_unprivileged_port_start',
    ]);
    expect(logger.find('Failed to get kernel version')).toHaveLength(1);
  });
});

describe('sysctl admission', () => {
  const handler = createSysctlAdmitHandler({
    kernelVersion: KERNEL,
    allowedUnsafeSysctls: ['kernel.msg*', 'net.core.somaxconn', 'fs.mqueue.*', 'kernel.sem'],
  });

  it.each<[string, string[], Record<string, unknown>, PodAdmitResult]>([
    ['no sysctls', [], {}, { admit: true }],
    ['a safe sysctl', ['net.ipv4.tcp_syncookies'], {}, { admit: true }],
    ['a safe sysctl with slashes', ['net/ipv4/ip_local_port_range'], {}, { admit: true }],
    ['a sysctl neither safe nor allowed', ['kernel.shmmax'], {}, forbidden('"kernel.shmmax" not allowlisted')],
    ['an allowed unsafe sysctl', ['net.core.somaxconn'], {}, { admit: true }],
    ['an allowed pattern', ['kernel.msgmax', 'fs.mqueue.msg_max'], {}, { admit: true }],
    [
      'the first bad one of several, in dots',
      ['net.ipv4.tcp_syncookies', 'vm/swappiness', 'kernel.domainname'],
      {},
      forbidden('"vm.swappiness" not allowlisted'),
    ],
    [
      'a net sysctl with hostNetwork',
      ['net.ipv4.tcp_syncookies'],
      { hostNetwork: true },
      forbidden('"net.ipv4.tcp_syncookies" not allowed with host net enabled'),
    ],
    [
      'a net pattern match with hostNetwork',
      ['net.core.somaxconn'],
      { hostNetwork: true },
      forbidden('"net.core.somaxconn" not allowed with host net enabled'),
    ],
    ['an ipc sysctl with hostNetwork', ['kernel.shm_rmid_forced'], { hostNetwork: true }, { admit: true }],
    [
      'an ipc sysctl with hostIPC',
      ['kernel.shm_rmid_forced'],
      { hostIPC: true },
      forbidden('"kernel.shm_rmid_forced" not allowed with host ipc enabled'),
    ],
    [
      'an ipc pattern match with hostIPC',
      ['kernel.msgmnb'],
      { hostIPC: true },
      forbidden('"kernel.msgmnb" not allowed with host ipc enabled'),
    ],
    ['kernel.sem with hostIPC', ['kernel.sem'], { hostIPC: true }, forbidden('"kernel.sem" not allowed with host ipc enabled')],
    ['a net sysctl with hostIPC', ['net.core.somaxconn'], { hostIPC: true }, { admit: true }],
  ])('%s', (_name, sysctls, spec, expected) => {
    expect(handler.admit({ pod: pod(sysctls, spec), otherPods: [] })).toEqual(expected);
  });

  it('forbids the kernel-gated safe sysctls on an old kernel', () => {
    const old = createSysctlAdmitHandler({ kernelVersion: '4.4.0' });
    expect(old.admit({ pod: pod(['net.ipv4.tcp_keepalive_time']), otherPods: [] })).toEqual(
      forbidden('"net.ipv4.tcp_keepalive_time" not allowlisted'),
    );
    expect(old.admit({ pod: pod(['net.ipv4.ip_local_reserved_ports']), otherPods: [] })).toEqual({ admit: true });
  });

  it('admits a pod without a security context', () => {
    const bare = PodSchema.parse({ metadata: { name: 'web' }, spec: { containers: [{ name: 'app', image: 'nginx' }] } });
    expect(createSysctlAdmitHandler({ kernelVersion: KERNEL }).admit({ pod: bare, otherPods: [] })).toEqual({ admit: true });
  });
});

describe('allowedUnsafeSysctls validation (upstream NewAllowlist)', () => {
  it('accepts names and patterns known to be namespaced, with dots or slashes', () => {
    expect(
      validateAllowedUnsafeSysctls([
        'net.*',
        'net/core/somaxconn',
        'kernel.shm*',
        'kernel.msgmax',
        'kernel.sem',
        'fs.mqueue.*',
        'net.ipv4.conf.eth0/100.rp_filter',
      ]),
    ).toEqual([]);
  });

  it('names each bad entry', () => {
    const pattern = '([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*([a-z0-9][-_a-z0-9]*)?[a-z0-9*]';
    expect(
      validateAllowedUnsafeSysctls([
        'Net.Core',
        'kernel.*',
        'vm.swappiness',
        'net.core.somaxconn',
        `net.${'a'.repeat(250)}`,
        '*',
        'net.*.foo',
      ]),
    ).toEqual([
      `sysctl "Net.Core" must have at most 253 characters and match regex ${pattern}`,
      'the sysctls "kernel.*" are not known to be namespaced',
      'the sysctl "vm.swappiness" are not known to be namespaced',
      `sysctl "net.${'a'.repeat(250)}" must have at most 253 characters and match regex ${pattern}`,
      'the sysctls "*" are not known to be namespaced',
      `sysctl "net.*.foo" must have at most 253 characters and match regex ${pattern}`,
    ]);
  });

  it('makes the handler factory throw AdmissionError with the first bad entry, as the upstream kubelet refuses to start', () => {
    let thrown: unknown;
    try {
      createSysctlAdmitHandler({ kernelVersion: KERNEL, allowedUnsafeSysctls: ['net.core.somaxconn', 'vm.*', 'user.*'] });
    } catch (err) {
      thrown = err;
    }
    expect(AdmissionError.is(thrown, 'INVALID_SYSCTL_ALLOWLIST')).toBe(true);
    expect((thrown as Error).message).toBe('the sysctls "vm.*" are not known to be namespaced');
  });
});

describe('sysctlToDots (ConvertSysctlVariableToDotsSeparator)', () => {
  it.each([
    ['net.ipv4.ip_forward', 'net.ipv4.ip_forward'],
    ['net/ipv4/ip_forward', 'net.ipv4.ip_forward'],
    ['net/ipv4/conf/eno2.100/rp_filter', 'net.ipv4.conf.eno2/100.rp_filter'],
    ['net.ipv4.conf.eno2/100.rp_filter', 'net.ipv4.conf.eno2/100.rp_filter'],
    ['kernel', 'kernel'],
    ['', ''],
  ])('%s → %s', (input, output) => {
    expect(sysctlToDots(input)).toBe(output);
  });
});

describe('objects that are not the Pod they are typed as', () => {
  it('refuses a pod without a spec with UnexpectedAdmissionError instead of throwing', () => {
    const p = { metadata: { name: 'web', namespace: 'default', uid: 'u' } } as unknown as Pod;
    const result = createSysctlAdmitHandler({ kernelVersion: KERNEL }).admit({ pod: p, otherPods: [] });
    expect(result).toEqual({
      admit: false,
      reason: 'UnexpectedAdmissionError',
      message: expect.stringMatching(/^Failed to admit pod: .+/),
    });
  });
});
