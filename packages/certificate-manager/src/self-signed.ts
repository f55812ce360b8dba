// The kubelet's serving certificate when none is configured (cmd/kubelet/app InitializeTLS with
// client-go certutil.GenerateSelfSignedCertKey): a one-year CA and a server certificate it signs,
// written once to <cert-dir>/kubelet.crt (certificate, then CA) and kubelet.key.
import { X509Certificate, generateKeyPair } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import { CertificateError } from './errors.js';
import { issueCertificate } from './internal/certificate.js';
import { encodeName } from './internal/x509.js';
import { parsePrivateKeyPem } from './keys.js';

const generate = promisify(generateKeyPair);

/** Upstream's file names in --cert-dir. */
export const SELF_SIGNED_CERT_FILE = 'kubelet.crt';
export const SELF_SIGNED_KEY_FILE = 'kubelet.key';

const HOUR_MS = 3_600_000;
/** certutil: valid from an hour ago, for a year. */
const MAX_AGE_MS = 365 * 24 * HOUR_MS;

export interface SelfSignedPair {
  /** The server certificate followed by its CA, PEM. */
  certificatePem: string;
  /** The server certificate's key, `RSA PRIVATE KEY` PEM. */
  keyPem: string;
}

export interface SelfSignedOptions {
  /** The node's hostname (or an IP): the certificate names it (a DNS name, or an IP address). */
  host: string;
  /** More subjectAltName entries (upstream passes none). */
  alternateIPs?: readonly string[];
  alternateDNS?: readonly string[];
  clock?: Clock;
}

/**
 * certutil.GenerateSelfSignedCertKey: RSA 2048 keys; a CA `<host>-ca@<unix seconds>` (certSign) and a
 * server certificate `<host>@<unix seconds>` for server auth naming `host` and the alternates.
 */
export async function generateSelfSignedPair(options: SelfSignedOptions): Promise<SelfSignedPair> {
  const now = (options.clock ?? systemClock).now();
  const notBefore = now - HOUR_MS;
  const notAfter = notBefore + MAX_AGE_MS;
  const seconds = Math.floor(now / 1000);
  const [ca, server] = await Promise.all([generate('rsa', { modulusLength: 2048 }), generate('rsa', { modulusLength: 2048 })]);
  const caSubject = { commonName: `${options.host}-ca@${seconds}`, organization: [] };
  const caPem = issueCertificate(
    {
      subject: caSubject,
      publicKey: ca.publicKey,
      notBefore,
      notAfter,
      serialNumber: Buffer.from([1]),
      keyUsage: ['keyEncipherment', 'digitalSignature', 'certSign'],
      isCA: true,
    },
    { name: encodeName(caSubject), privateKey: ca.privateKey },
  );
  const hostIsIP = isIP(options.host) !== 0;
  const serverPem = issueCertificate(
    {
      subject: { commonName: `${options.host}@${seconds}`, organization: [] },
      publicKey: server.publicKey,
      notBefore,
      notAfter,
      serialNumber: Buffer.from([2]),
      keyUsage: ['keyEncipherment', 'digitalSignature'],
      extKeyUsage: ['server auth'],
      ipAddresses: [...(hostIsIP ? [options.host] : []), ...(options.alternateIPs ?? [])],
      dnsNames: [...(hostIsIP ? [] : [options.host]), ...(options.alternateDNS ?? [])],
    },
    { name: encodeName(caSubject), privateKey: ca.privateKey },
  );
  return { certificatePem: serverPem + caPem, keyPem: server.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string };
}

async function readablePair(certFile: string, keyFile: string): Promise<SelfSignedPair | undefined> {
  try {
    const [certificatePem, keyPem] = await Promise.all([fs.readFile(certFile, 'utf8'), fs.readFile(keyFile, 'utf8')]);
    new X509Certificate(certificatePem);
    parsePrivateKeyPem(keyPem);
    return { certificatePem, keyPem };
  } catch {
    return undefined;
  }
}

export interface EnsureSelfSignedOptions extends SelfSignedOptions {
  certDir: string;
  logger?: Logger;
}

/**
 * Upstream InitializeTLS without tlsCertFile/tlsPrivateKeyFile: the pair in `<certDir>/kubelet.crt`
 * and `kubelet.key` when both read, else a new one written there (certificate 0644, key 0600).
 */
export async function ensureSelfSignedPair(
  options: EnsureSelfSignedOptions,
): Promise<SelfSignedPair & { certFile: string; keyFile: string }> {
  const certFile = join(options.certDir, SELF_SIGNED_CERT_FILE);
  const keyFile = join(options.certDir, SELF_SIGNED_KEY_FILE);
  const existing = await readablePair(certFile, keyFile);
  if (existing !== undefined) return { ...existing, certFile, keyFile };
  const pair = await generateSelfSignedPair(options);
  try {
    await fs.mkdir(options.certDir, { recursive: true, mode: 0o755 });
    await fs.writeFile(certFile, pair.certificatePem, { mode: 0o644 });
    await fs.writeFile(keyFile, pair.keyPem, { mode: 0o600 });
  } catch (err) {
    throw new CertificateError('STORE', `unable to write the self-signed serving certificate to ${options.certDir}: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  (options.logger ?? noopLogger).info('Generated a self-signed serving certificate', { certFile, keyFile, host: options.host });
  return { ...pair, certFile, keyFile };
}
