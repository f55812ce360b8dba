import { createPublicKey, sign, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import {
  Tag,
  bitString,
  contextTag,
  decodeOid,
  derNull,
  directoryString,
  octetString,
  oid,
  readChildren,
  readElement,
  readOnly,
  sequence,
  set,
  smallInteger,
} from './der.js';
import type { Element } from './der.js';
import { SUBJECT_ALT_NAME_OID, parseSubjectAltName, subjectAltName } from './san.js';

/** PKCS #9 extensionRequest: the extensions a certification request asks for. */
const EXTENSION_REQUEST_OID = '1.2.840.113549.1.9.14';

export const OID = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  ecdsaWithSha384: '1.2.840.10045.4.3.3',
  ecdsaWithSha512: '1.2.840.10045.4.3.4',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  sha384WithRsa: '1.2.840.113549.1.1.12',
  sha512WithRsa: '1.2.840.113549.1.1.13',
} as const;

/** The subject of a request or certificate, as the kubelet's templates and checks use it. */
export interface Subject {
  commonName: string;
  organization: string[];
}

/** One attribute of a distinguished name, in encoding order. */
export interface NameAttribute {
  oid: string;
  value: string;
}

export interface SignatureAlgorithm {
  oid: string;
  hash: 'sha256' | 'sha384' | 'sha512';
  /** RSA algorithm identifiers carry NULL parameters; ECDSA ones carry none (RFC 5758). */
  rsa: boolean;
}

const ALGORITHMS: readonly SignatureAlgorithm[] = [
  { oid: OID.ecdsaWithSha256, hash: 'sha256', rsa: false },
  { oid: OID.ecdsaWithSha384, hash: 'sha384', rsa: false },
  { oid: OID.ecdsaWithSha512, hash: 'sha512', rsa: false },
  { oid: OID.sha256WithRsa, hash: 'sha256', rsa: true },
  { oid: OID.sha384WithRsa, hash: 'sha384', rsa: true },
  { oid: OID.sha512WithRsa, hash: 'sha512', rsa: true },
];

/** What Go's x509 picks for a key: ECDSA with the curve's hash size, SHA-256 with RSA. */
export function signatureAlgorithmFor(key: KeyObject): SignatureAlgorithm {
  const type = key.asymmetricKeyType;
  if (type === 'rsa') return ALGORITHMS[3] as SignatureAlgorithm;
  if (type === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return ALGORITHMS[0] as SignatureAlgorithm;
    if (curve === 'secp384r1') return ALGORITHMS[1] as SignatureAlgorithm;
    if (curve === 'secp521r1') return ALGORITHMS[2] as SignatureAlgorithm;
    throw new Error(`unsupported elliptic curve ${String(curve)}`);
  }
  throw new Error(`unsupported key type ${String(type)} (ECDSA or RSA only)`);
}

export function algorithmIdentifier(algorithm: SignatureAlgorithm): Buffer {
  return algorithm.rsa ? sequence(oid(algorithm.oid), derNull()) : sequence(oid(algorithm.oid));
}

/**
 * A Name in the order Go's pkix.Name.ToRDNSequence writes it: organizations (all in one RDN, as Go
 * does), then the common name.
 */
export function encodeName(subject: Subject): Buffer {
  const rdns: Buffer[] = [];
  if (subject.organization.length > 0) {
    rdns.push(set(...subject.organization.map((o) => sequence(oid(OID.organization), directoryString(o)))));
  }
  if (subject.commonName !== '') rdns.push(set(sequence(oid(OID.commonName), directoryString(subject.commonName))));
  return sequence(...rdns);
}

const STRING_TAGS = new Set([Tag.Utf8String, Tag.PrintableString, 0x14 /* T61 */, 0x16 /* IA5 */, 0x1e /* BMP */]);

export function decodeName(name: Element): NameAttribute[] {
  if (name.tag !== Tag.Sequence) throw new Error('Name: expected a SEQUENCE');
  const attributes: NameAttribute[] = [];
  for (const rdn of readChildren(name.content)) {
    if (rdn.tag !== Tag.Set) throw new Error('Name: expected a SET per relative distinguished name');
    for (const atv of readChildren(rdn.content)) {
      const [type, value] = readChildren(atv.content);
      if (type?.tag !== Tag.Oid || value === undefined) throw new Error('Name: malformed attribute');
      if (!STRING_TAGS.has(value.tag as never)) throw new Error(`Name: attribute ${decodeOid(type.content)} is not a string`);
      const text = value.tag === 0x1e ? Buffer.from(value.content).swap16().toString('utf16le') : value.content.toString('utf8');
      attributes.push({ oid: decodeOid(type.content), value: text });
    }
  }
  return attributes;
}

export function subjectOf(attributes: readonly NameAttribute[]): Subject {
  const cn = attributes.filter((a) => a.oid === OID.commonName);
  return {
    commonName: cn.at(-1)?.value ?? '',
    organization: attributes.filter((a) => a.oid === OID.organization).map((a) => a.value),
  };
}

/** A PKCS#10 request (RFC 2986): version 0, the subject, the key, no attributes, signed with the key. */
export function buildCertificationRequest(
  privateKey: KeyObject,
  subject: Subject,
  altNames: { dnsNames?: readonly string[]; ipAddresses?: readonly string[] } = {},
): Buffer {
  const algorithm = signatureAlgorithmFor(privateKey);
  const spki = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  const dns = altNames.dnsNames ?? [];
  const ips = altNames.ipAddresses ?? [];
  // Names besides the subject go in an extensionRequest attribute (PKCS #9), as Go writes them;
  // without any, Go writes the attributes as an empty [0].
  const attributes =
    dns.length === 0 && ips.length === 0
      ? Buffer.alloc(0)
      : sequence(oid(EXTENSION_REQUEST_OID), set(sequence(sequence(oid(SUBJECT_ALT_NAME_OID), octetString(subjectAltName(dns, ips))))));
  const info = sequence(smallInteger(0), encodeName(subject), spki, contextTag(0, attributes));
  const signature = sign(algorithm.hash, info, privateKey);
  return sequence(info, algorithmIdentifier(algorithm), bitString(signature));
}

export interface ParsedRequest {
  /** The signed part, as encoded. */
  info: Buffer;
  subject: NameAttribute[];
  /** The encoded Name, for a signer that copies it into a certificate. */
  subjectDer: Buffer;
  /** The encoded SubjectPublicKeyInfo. */
  publicKeyDer: Buffer;
  signatureAlgorithm: SignatureAlgorithm;
  signature: Buffer;
  /** The subjectAltName the request asks for in its extensionRequest attribute. */
  dnsNames: string[];
  ipAddresses: string[];
}

/** The subjectAltName requested among a request's attributes ([0] SET OF Attribute), if any. */
function requestedAltNames(attributes: Element | undefined): { dnsNames: string[]; ipAddresses: string[] } {
  const none = { dnsNames: [], ipAddresses: [] };
  if (attributes === undefined || attributes.tag !== 0xa0) return none;
  for (const attribute of readChildren(attributes.content)) {
    const [type, values] = readChildren(attribute.content);
    if (type?.tag !== Tag.Oid || decodeOid(type.content) !== EXTENSION_REQUEST_OID || values === undefined) continue;
    for (const extensions of readChildren(values.content)) {
      for (const extension of readChildren(extensions.content)) {
        const parts = readChildren(extension.content);
        const id = parts[0];
        const value = parts[parts.length - 1];
        if (id?.tag === Tag.Oid && decodeOid(id.content) === SUBJECT_ALT_NAME_OID && value?.tag === Tag.OctetString) {
          return parseSubjectAltName(value.content);
        }
      }
    }
  }
  return none;
}

function algorithmOf(element: Element | undefined): SignatureAlgorithm {
  const algorithmOid = element === undefined ? undefined : readChildren(element.content)[0];
  if (algorithmOid?.tag !== Tag.Oid) throw new Error('malformed AlgorithmIdentifier');
  const dotted = decodeOid(algorithmOid.content);
  const algorithm = ALGORITHMS.find((a) => a.oid === dotted);
  if (algorithm === undefined) throw new Error(`unsupported signature algorithm ${dotted}`);
  return algorithm;
}

function bitStringBytes(element: Element | undefined): Buffer {
  if (element?.tag !== Tag.BitString || element.content[0] !== 0) throw new Error('malformed signature BIT STRING');
  return element.content.subarray(1);
}

/** Decodes a CertificationRequest; throws with the structure that was wrong. */
export function parseCertificationRequest(der: Buffer): ParsedRequest {
  const outer = readOnly(der, Tag.Sequence, 'CertificationRequest');
  const [info, algorithm, signature] = readChildren(outer.content);
  if (info?.tag !== Tag.Sequence) throw new Error('CertificationRequest: missing certificationRequestInfo');
  const [version, name, spki, attributes] = readChildren(info.content);
  if (version?.tag !== Tag.Integer || name === undefined || spki?.tag !== Tag.Sequence) {
    throw new Error('CertificationRequestInfo: expected version, subject and subjectPKInfo');
  }
  return {
    info: info.raw,
    subject: decodeName(name),
    subjectDer: name.raw,
    publicKeyDer: spki.raw,
    signatureAlgorithm: algorithmOf(algorithm),
    signature: bitStringBytes(signature),
    ...requestedAltNames(attributes),
  };
}

/** True when the request was signed by `publicKey` (upstream ensureCompatible's CheckSignature with our key). */
export function requestSignedBy(request: ParsedRequest, publicKey: KeyObject): boolean {
  try {
    return verify(request.signatureAlgorithm.hash, request.info, publicKey, request.signature);
  } catch {
    return false;
  }
}

/** The subject Name of an encoded certificate: TBSCertificate's sixth field (after the optional [0] version). */
export function certificateSubjectElement(der: Buffer): Element {
  const outer = readElement(der);
  const [tbs] = readChildren(outer.content);
  if (tbs?.tag !== Tag.Sequence) throw new Error('Certificate: missing tbsCertificate');
  const fields = readChildren(tbs.content);
  const offset = fields[0]?.tag === 0xa0 ? 1 : 0;
  const subject = fields[offset + 4];
  if (subject === undefined) throw new Error('Certificate: missing subject');
  return subject;
}

export function certificateSubject(der: Buffer): NameAttribute[] {
  return decodeName(certificateSubjectElement(der));
}
