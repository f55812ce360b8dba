// Builds X.509 v3 certificates (RFC 5280): the kubelet's self-signed serving pair and the test CA.
import { createPublicKey, randomBytes, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { bitString, contextTag, derBoolean, octetString, oid, sequence, smallInteger, tlv, unsignedInteger, x509Time } from './der.js';
import { encodePem } from './pem.js';
import { SUBJECT_ALT_NAME_OID, subjectAltName } from './san.js';
import { algorithmIdentifier, encodeName, signatureAlgorithmFor } from './x509.js';
import type { Subject } from './x509.js';

const EXT = {
  subjectAltName: SUBJECT_ALT_NAME_OID,
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  clientAuth: '1.3.6.1.5.5.7.3.2',
  serverAuth: '1.3.6.1.5.5.7.3.1',
} as const;

/** KeyUsage bits (RFC 5280 4.2.1.3), as named by Go's x509. */
export const KEY_USAGE = { digitalSignature: 0, keyEncipherment: 2, certSign: 5, crlSign: 6 } as const;

export interface CertificateTemplate {
  /** Either a subject, or an encoded Name (a request's). */
  subject: Subject | Buffer;
  /** The subject's key (public or private), or an encoded SubjectPublicKeyInfo. */
  publicKey: KeyObject | Buffer;
  notBefore: number;
  notAfter: number;
  /** Default: 16 random bytes. */
  serialNumber?: Buffer;
  keyUsage: ReadonlyArray<keyof typeof KEY_USAGE>;
  extKeyUsage?: ReadonlyArray<'client auth' | 'server auth'>;
  isCA?: boolean;
  /** subjectAltName: DNS names and IP addresses. */
  dnsNames?: readonly string[];
  ipAddresses?: readonly string[];
}

export interface Issuer {
  /** The issuer's encoded Name (a self-signed certificate's own subject). */
  name: Buffer;
  privateKey: KeyObject;
}

const extension = (id: string, critical: boolean, value: Buffer): Buffer =>
  critical ? sequence(oid(id), derBoolean(true), octetString(value)) : sequence(oid(id), octetString(value));

/** A BIT STRING of the named bits, trailing zero bits dropped as DER wants. */
function keyUsageBits(usages: ReadonlyArray<keyof typeof KEY_USAGE>): Buffer {
  let bits = 0;
  for (const u of usages) bits |= 0x8000 >> KEY_USAGE[u];
  const bytes = bits & 0xff ? [bits >> 8, bits & 0xff] : [bits >> 8];
  const last = bytes[bytes.length - 1] ?? 0;
  let unused = 0;
  while (unused < 7 && last !== 0 && (last & (1 << unused)) === 0) unused++;
  return tlv(0x03, Buffer.from([unused, ...bytes]));
}

function spkiOf(key: KeyObject | Buffer): Buffer {
  if (Buffer.isBuffer(key)) return key;
  return (key.type === 'public' ? key : createPublicKey(key)).export({ type: 'spki', format: 'der' });
}

/** The certificate (PEM) of `template`, signed by `issuer`. */
export function issueCertificate(template: CertificateTemplate, issuer: Issuer): string {
  const algorithm = signatureAlgorithmFor(issuer.privateKey);
  const extensions: Buffer[] = [extension(EXT.keyUsage, true, keyUsageBits(template.keyUsage))];
  if (template.extKeyUsage !== undefined && template.extKeyUsage.length > 0) {
    const usages = template.extKeyUsage.map((u) => oid(u === 'server auth' ? EXT.serverAuth : EXT.clientAuth));
    extensions.push(extension(EXT.extKeyUsage, false, sequence(...usages)));
  }
  extensions.push(extension(EXT.basicConstraints, true, template.isCA === true ? sequence(derBoolean(true)) : sequence()));
  const dns = template.dnsNames ?? [];
  const ips = template.ipAddresses ?? [];
  if (dns.length > 0 || ips.length > 0) extensions.push(extension(EXT.subjectAltName, false, subjectAltName(dns, ips)));
  let serial = template.serialNumber;
  if (serial === undefined) {
    serial = randomBytes(16);
    serial[0] = (serial[0] ?? 0) & 0x7f;
  }
  const tbs = sequence(
    contextTag(0, smallInteger(2)),
    unsignedInteger(serial),
    algorithmIdentifier(algorithm),
    issuer.name,
    sequence(x509Time(template.notBefore), x509Time(template.notAfter)),
    Buffer.isBuffer(template.subject) ? template.subject : encodeName(template.subject),
    spkiOf(template.publicKey),
    contextTag(3, sequence(...extensions)),
  );
  const signature = sign(algorithm.hash, tbs, issuer.privateKey);
  return encodePem('CERTIFICATE', sequence(tbs, algorithmIdentifier(algorithm), bitString(signature)));
}
