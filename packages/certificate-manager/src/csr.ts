import { createHash, createPublicKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { errorMessage } from '@kubelet-ts/common';
import { KeyUsage, NODES_GROUP, NODE_USER_PREFIX } from './constants.js';
import { CertificateError } from './errors.js';
import { decodePemBlocks, encodePem } from './internal/pem.js';
import { buildCertificationRequest, parseCertificationRequest, requestSignedBy, subjectOf } from './internal/x509.js';
import type { NameAttribute, ParsedRequest, Subject } from './internal/x509.js';

export type { NameAttribute, Subject };

/** The PEM block type of a PKCS#10 request. */
export const CERTIFICATE_REQUEST_BLOCK = 'CERTIFICATE REQUEST';

/** The subject of a kubelet client certificate: `CN=system:node:<node>, O=system:nodes`. */
export function nodeClientSubject(nodeName: string): Subject {
  return { commonName: `${NODE_USER_PREFIX}${nodeName}`, organization: [NODES_GROUP] };
}

/** What a certificate is requested for: its subject and the names besides it (subjectAltName). */
export interface CsrTemplate {
  subject: Subject;
  dnsNames?: readonly string[];
  ipAddresses?: readonly string[];
}

/**
 * A PKCS#10 CertificationRequest for `subject` (and the DNS names and IP addresses of `altNames` in an
 * extensionRequest), signed with `privateKey` (ECDSA with the curve's hash, or SHA-256 with RSA), as a
 * `CERTIFICATE REQUEST` PEM block (certutil.MakeCSR / x509.CreateCertificateRequest).
 */
export function makeCsrPem(privateKey: KeyObject, subject: Subject, altNames: Pick<CsrTemplate, 'dnsNames' | 'ipAddresses'> = {}): string {
  try {
    return encodePem(CERTIFICATE_REQUEST_BLOCK, buildCertificationRequest(privateKey, subject, altNames));
  } catch (err) {
    throw new CertificateError('INVALID_KEY', `unable to generate certificate request: ${errorMessage(err)}`, { cause: err });
  }
}

/** A decoded request: its subject and key, and whether a given key signed it. */
export interface CertificateRequestInfo {
  subject: Subject;
  /** Every attribute of the subject in encoding order (ensureCompatible compares them all). */
  subjectAttributes: NameAttribute[];
  /** The encoded subject Name, DER (a signer copies it into the certificate). */
  subjectDer: Buffer;
  /** The request's SubjectPublicKeyInfo, DER. */
  publicKeyDer: Buffer;
  /** The subjectAltName it asks for (extensionRequest). */
  dnsNames: string[];
  ipAddresses: string[];
  signedBy(publicKey: KeyObject): boolean;
}

/** Decodes the first `CERTIFICATE REQUEST` block; anything else is an INVALID_REQUEST error. */
export function parseCsrPem(pem: string | Buffer): CertificateRequestInfo {
  const block = decodePemBlocks(pem)[0];
  if (block?.type !== CERTIFICATE_REQUEST_BLOCK) {
    throw new CertificateError('INVALID_REQUEST', `PEM block type must be ${CERTIFICATE_REQUEST_BLOCK}`);
  }
  let parsed: ParsedRequest;
  try {
    parsed = parseCertificationRequest(block.der);
  } catch (err) {
    throw new CertificateError('INVALID_REQUEST', `invalid certificate request: ${errorMessage(err)}`, { cause: err });
  }
  return {
    subject: subjectOf(parsed.subject),
    subjectAttributes: parsed.subject,
    subjectDer: parsed.subjectDer,
    publicKeyDer: parsed.publicKeyDer,
    dnsNames: parsed.dnsNames,
    ipAddresses: parsed.ipAddresses,
    signedBy: (publicKey) => requestSignedBy(parsed, publicKey),
  };
}

const base64url = (data: Uint8Array): string => Buffer.from(data).toString('base64url');

/**
 * The name of the bootstrap CSR (bootstrap.go digestedName): `node-csr-` + unpadded base64url of the
 * SHA-512/256 of, for each of the public key (PKIX DER), the common name, every organization and
 * every usage in order, its unpadded base64url followed by `|`. The same key, subject and usages give
 * the same name across restarts, so a kubelet finds its own pending CSR again.
 */
export function digestedName(publicKey: KeyObject, subject: Subject, usages: readonly string[]): string {
  const hash = createHash('sha512-256');
  const write = (data: Uint8Array): void => {
    hash.update(base64url(data));
    hash.update('|');
  };
  write((publicKey.type === 'public' ? publicKey : createPublicKey(publicKey)).export({ type: 'spki', format: 'der' }));
  write(Buffer.from(subject.commonName, 'utf8'));
  for (const o of subject.organization) write(Buffer.from(o, 'utf8'));
  for (const usage of usages) write(Buffer.from(usage, 'utf8'));
  return `node-csr-${base64url(hash.digest())}`;
}

/**
 * Usages of a rotation CSR (certificate.DefaultKubeletClientGetUsages): key encipherment only for
 * RSA keys, which can do it.
 */
export function kubeletClientUsages(privateKey: KeyObject): KeyUsage[] {
  return privateKey.asymmetricKeyType === 'rsa'
    ? [KeyUsage.DigitalSignature, KeyUsage.KeyEncipherment, KeyUsage.ClientAuth]
    : [KeyUsage.DigitalSignature, KeyUsage.ClientAuth];
}

/** Usages of a serving CSR (certificate.DefaultKubeletServingGetUsages): key encipherment only for RSA keys. */
export function kubeletServingUsages(privateKey: KeyObject): KeyUsage[] {
  return privateKey.asymmetricKeyType === 'rsa'
    ? [KeyUsage.DigitalSignature, KeyUsage.KeyEncipherment, KeyUsage.ServerAuth]
    : [KeyUsage.DigitalSignature, KeyUsage.ServerAuth];
}

/**
 * The serving certificate's template from the node's addresses (upstream newGetTemplateFn and
 * addressesToHostnamesAndIPs): `system:node:<node>` in `system:nodes`; Hostname (as an IP when it parses
 * as one), InternalDNS and ExternalDNS as DNS names; InternalIP and ExternalIP as IPs; each once, sorted.
 * Undefined while the node has no IP address: upstream requests no serving certificate without one.
 */
export function nodeServingTemplate(
  nodeName: string,
  addresses: ReadonlyArray<{ type: string; address: string }>,
): CsrTemplate | undefined {
  const dnsNames = new Set<string>();
  const ips = new Set<string>();
  for (const { type, address } of addresses) {
    if (address === '') continue;
    const ip = isIP(address) !== 0;
    if (type === 'Hostname') (ip ? ips : dnsNames).add(address);
    else if ((type === 'InternalIP' || type === 'ExternalIP') && ip) ips.add(address);
    else if (type === 'InternalDNS' || type === 'ExternalDNS') dnsNames.add(address);
  }
  if (ips.size === 0) return undefined;
  return { subject: nodeClientSubject(nodeName), dnsNames: [...dnsNames].sort(), ipAddresses: [...ips].sort() };
}
