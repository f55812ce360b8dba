import type os from 'node:os';
import { resolveNodeIPs, resolveNodeName } from './node.js';

describe('node identity', () => {
  it('lower-cases and trims the hostname override as upstream', () => {
    expect(resolveNodeName('  Worker-1 ')).toBe('worker-1');
  });

  it('takes --node-ip (dual-stack list) or the first external IPv4 then IPv6 address', () => {
    expect(resolveNodeIPs('10.0.0.5,fd00::5')).toEqual(['10.0.0.5', 'fd00::5']);
    const interfaces = {
      lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true }],
      eth0: [
        { address: 'fe80::1', family: 'IPv6', internal: false },
        { address: 'fd00::7', family: 'IPv6', internal: false },
        { address: '192.0.2.7', family: 'IPv4', internal: false },
      ],
    } as unknown as ReturnType<typeof os.networkInterfaces>;
    expect(resolveNodeIPs(undefined, interfaces)).toEqual(['192.0.2.7', 'fd00::7']);
    expect(resolveNodeIPs('0.0.0.0', interfaces)).toEqual(['192.0.2.7', 'fd00::7']);
  });
});
