import { X509Certificate, createPublicKey, generateKeyPairSync } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { parseCsrPem } from '../csr.js';
import type { Subject } from '../csr.js';
import { issueCertificate } from '../internal/certificate.js';
import { certificateSubject, certificateSubjectElement, encodeName, subjectOf } from '../internal/x509.js';
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
  /** subjectAltName entries. */
  dnsNames?: readonly string[];
  ipAddresses?: readonly string[];
}

/** An in-memory certificate authority for tests: ECDSA P-256, no openssl needed. */
export interface TestCa {
  certificatePem: string;
  privateKey: KeyObject;
  subject: Subject;
  /** A certificate (PEM) signed by this CA. */
  issue(options: IssueOptions): string;
  /**
   * Signs a PEM `CERTIFICATE REQUEST` as the kubelet signers would: its subject, key and requested
   * subjectAltName, client auth (or server auth for a serving request).
   */
  signCsr(csrPem: string, validity: { notBefore: number; notAfter: number }, extKeyUsage?: 'client auth' | 'server auth'): string;
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

  const issue = (o: IssueOptions): string =>
    issueCertificate(
      {
        subject: o.subject,
        publicKey: o.publicKey,
        notBefore: o.notBefore,
        notAfter: o.notAfter,
        keyUsage: o.isCA === true ? ['digitalSignature', 'certSign', 'crlSign'] : ['digitalSignature'],
        ...(o.isCA === true ? { isCA: true } : { extKeyUsage: [o.extKeyUsage ?? 'client auth'] }),
        ...(o.dnsNames !== undefined ? { dnsNames: o.dnsNames } : {}),
        ...(o.ipAddresses !== undefined ? { ipAddresses: o.ipAddresses } : {}),
      },
      { name: issuerName, privateKey },
    );

  const notBefore = options.notBefore ?? Date.now() - 3600_000;
  const certificatePem =
    existing?.certificatePem ??
    issue({ subject, publicKey: privateKey, notBefore, notAfter: notBefore + 10 * 365 * 86_400_000, isCA: true });
  return {
    certificatePem,
    privateKey,
    subject,
    issue,
    signCsr(csrPem, validity, extKeyUsage = 'client auth') {
      const request = parseCsrPem(csrPem);
      if (!request.signedBy(createPublicKey({ key: request.publicKeyDer, format: 'der', type: 'spki' }))) {
        throw new Error('test CA: the request is not signed by its own key');
      }
      return issue({
        subject: request.subjectDer,
        publicKey: request.publicKeyDer,
        ...validity,
        extKeyUsage,
        dnsNames: request.dnsNames,
        ipAddresses: request.ipAddresses,
      });
    },
  };
}
