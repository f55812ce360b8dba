import { X509Certificate, createPublicKey, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { parseCsrPem } from '../csr.js';
import type { Subject } from '../csr.js';
import { bitString, contextTag, derBoolean, octetString, oid, sequence, smallInteger, unsignedInteger, x509Time } from '../internal/der.js';
import { encodePem } from '../internal/pem.js';
import {
  algorithmIdentifier,
  certificateSubject,
  certificateSubjectElement,
  encodeName,
  signatureAlgorithmFor,
  subjectOf,
} from '../internal/x509.js';
import { parsePrivateKeyPem } from '../keys.js';

/** What a certificate of the test CA says. */
export interface IssueOptions {
  /** Either a subject, or the encoded Name of a request. */
  subject: Subject | Buffer;
  /** The subject's key (public or private), or an encoded SubjectPublicKeyInfo. */
  publicKey: KeyObject | Buffer;
  notBefore: number;
  notAfter: number;
  /** `client auth` (default) or `server auth` extended key usage; none for a CA. */
  extKeyUsage?: 'client auth' | 'server auth';
  isCA?: boolean;
}

/** An in-memory certificate authority for tests: ECDSA P-256, no openssl needed. */
export interface TestCa {
  certificatePem: string;
  privateKey: KeyObject;
  subject: Subject;
  /** A certificate (PEM) signed by this CA. */
  issue(options: IssueOptions): string;
  /** Signs a PEM `CERTIFICATE REQUEST` as a kubelet client signer would: its subject and key, client auth. */
  signCsr(csrPem: string, validity: { notBefore: number; notAfter: number }): string;
}

const EXT = {
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  clientAuth: '1.3.6.1.5.5.7.3.2',
  serverAuth: '1.3.6.1.5.5.7.3.1',
} as const;

const extension = (id: string, critical: boolean, value: Buffer): Buffer =>
  critical ? sequence(oid(id), derBoolean(true), octetString(value)) : sequence(oid(id), octetString(value));

// KeyUsage bits (RFC 5280 4.2.1.3): digitalSignature = bit 0, keyCertSign = bit 5, cRLSign = bit 6.
const keyUsageBits = (ca: boolean): Buffer => (ca ? Buffer.from([0x03, 0x02, 0x01, 0x86]) : Buffer.from([0x03, 0x02, 0x07, 0x80]));

function spkiOf(key: KeyObject | Buffer): Buffer {
  if (Buffer.isBuffer(key)) return key;
  return (key.type === 'public' ? key : createPublicKey(key)).export({ type: 'spki', format: 'der' });
}

export interface TestCaOptions {
  commonName?: string;
  /** Validity start of a generated CA; default an hour ago (it lasts ten years). */
  notBefore?: number;
  /** An existing CA to sign with instead (a test cluster's CA: certificates the real API server accepts). */
  existing?: { certificatePem: string; keyPem: string };
}

/** Makes a CA (ECDSA P-256), or wraps an existing one (ECDSA or RSA). */
export function createTestCa(options: TestCaOptions = {}): TestCa {
  const existing = options.existing;
  const privateKey =
    existing !== undefined ? parsePrivateKeyPem(existing.keyPem) : generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
  const existingCert = existing !== undefined ? new X509Certificate(existing.certificatePem) : undefined;
  const subject: Subject =
    existingCert !== undefined
      ? subjectOf(certificateSubject(existingCert.raw))
      : { commonName: options.commonName ?? 'kubelet-ts test CA', organization: [] };
  const issuerName = existingCert !== undefined ? certificateSubjectElement(existingCert.raw).raw : encodeName(subject);
  const algorithm = signatureAlgorithmFor(privateKey);

  const issue = (o: IssueOptions): string => {
    const extensions: Buffer[] = [
      extension(EXT.keyUsage, true, keyUsageBits(o.isCA === true)),
      extension(EXT.basicConstraints, true, o.isCA === true ? sequence(derBoolean(true)) : sequence()),
    ];
    if (o.isCA !== true) {
      extensions.push(extension(EXT.extKeyUsage, false, sequence(oid(o.extKeyUsage === 'server auth' ? EXT.serverAuth : EXT.clientAuth))));
    }
    const serial = randomBytes(16);
    serial[0] = (serial[0] ?? 0) & 0x7f;
    const tbs = sequence(
      contextTag(0, smallInteger(2)),
      unsignedInteger(serial),
      algorithmIdentifier(algorithm),
      issuerName,
      sequence(x509Time(o.notBefore), x509Time(o.notAfter)),
      Buffer.isBuffer(o.subject) ? o.subject : encodeName(o.subject),
      spkiOf(o.publicKey),
      contextTag(3, sequence(...extensions)),
    );
    const signature = sign(algorithm.hash, tbs, privateKey);
    return encodePem('CERTIFICATE', sequence(tbs, algorithmIdentifier(algorithm), bitString(signature)));
  };

  const notBefore = options.notBefore ?? Date.now() - 3600_000;
  const certificatePem =
    existing?.certificatePem ??
    issue({ subject, publicKey: privateKey, notBefore, notAfter: notBefore + 10 * 365 * 86_400_000, isCA: true });
  return {
    certificatePem,
    privateKey,
    subject,
    issue,
    signCsr(csrPem, validity) {
      const request = parseCsrPem(csrPem);
      if (!request.signedBy(createPublicKey({ key: request.publicKeyDer, format: 'der', type: 'spki' }))) {
        throw new Error('test CA: the request is not signed by its own key');
      }
      return issue({ subject: request.subjectDer, publicKey: request.publicKeyDer, ...validity });
    },
  };
}
