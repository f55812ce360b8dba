// The subjectAltName extension's value (RFC 5280 4.2.1.6): what certificates and requests name besides their subject.
import { isIP } from 'node:net';
import { Tag, readChildren, readOnly, sequence, tlv } from './der.js';

export const SUBJECT_ALT_NAME_OID = '2.5.29.17';

/** Go's net.IP in a certificate: 4 bytes for IPv4, 16 for IPv6. */
function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  if (isIP(ip) !== 6 || ip.includes('.')) throw new Error(`not an IP address a certificate can name: ${ip}`);
  const [head = '', tail = ''] = ip.split('::');
  const groups = (part: string): number[] => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const h = groups(head);
  const t = ip.includes('::') ? groups(tail) : [];
  const all = [...h, ...Array<number>(8 - h.length - t.length).fill(0), ...t];
  return Buffer.from(all.flatMap((g) => [g >> 8, g & 0xff]));
}

export function subjectAltName(dnsNames: readonly string[], ips: readonly string[]): Buffer {
  const names = [
    ...dnsNames.map((n) => tlv(0x82, Buffer.from(n, 'ascii'))), // [2] dNSName
    ...ips.map((ip) => tlv(0x87, ipBytes(ip))), // [7] iPAddress
  ];
  return sequence(...names);
}

/** Go's String() of a 4- or 16-byte IP. */
function ipString(bytes: Buffer): string {
  if (bytes.length === 4) return [...bytes].join('.');
  const groups: string[] = [];
  for (let i = 0; i + 1 < bytes.length; i += 2) groups.push(((bytes[i] as number) * 256 + (bytes[i + 1] as number)).toString(16));
  // The longest run of zero groups (two or more) becomes `::`.
  let best = { at: -1, len: 0 };
  for (let i = 0; i < groups.length;) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < groups.length && groups[j] === '0') j++;
    if (j - i > best.len) best = { at: i, len: j - i };
    i = j;
  }
  if (best.len < 2) return groups.join(':');
  return `${groups.slice(0, best.at).join(':')}::${groups.slice(best.at + best.len).join(':')}`;
}

/** The DNS names and IP addresses of a subjectAltName value (GeneralNames); other kinds are skipped. */
export function parseSubjectAltName(value: Buffer): { dnsNames: string[]; ipAddresses: string[] } {
  const names = readChildren(readOnly(value, Tag.Sequence, 'subjectAltName').content);
  const dnsNames: string[] = [];
  const ipAddresses: string[] = [];
  for (const name of names) {
    if (name.tag === 0x82) dnsNames.push(name.content.toString('ascii'));
    else if (name.tag === 0x87 && (name.content.length === 4 || name.content.length === 16)) ipAddresses.push(ipString(name.content));
  }
  return { dnsNames, ipAddresses };
}
