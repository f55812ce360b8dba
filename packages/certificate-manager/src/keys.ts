import { createPrivateKey, generateKeyPair } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '@kubelet-ts/common';
import { errorMessage, noopLogger } from '@kubelet-ts/common';
import { CertificateError } from './errors.js';
import { decodePemBlocks } from './internal/pem.js';

const generate = promisify(generateKeyPair);

/** PEM block types of private keys keyutil reads (client-go util/keyutil). */
export const PrivateKeyBlockType = {
  EC: 'EC PRIVATE KEY',
  RSA: 'RSA PRIVATE KEY',
  PKCS8: 'PRIVATE KEY',
} as const;

const DER_TYPE: Record<string, 'sec1' | 'pkcs1' | 'pkcs8'> = {
  [PrivateKeyBlockType.EC]: 'sec1',
  [PrivateKeyBlockType.RSA]: 'pkcs1',
  [PrivateKeyBlockType.PKCS8]: 'pkcs8',
};

/**
 * A new ECDSA P-256 key as an `EC PRIVATE KEY` (SEC 1) PEM block, what upstream's
 * keyutil.MakeEllipticPrivateKeyPEM and the certificate manager write; Node's TLS reads it as is.
 */
export async function generatePrivateKeyPem(): Promise<string> {
  const { privateKey } = await generate('ec', { namedCurve: 'prime256v1' });
  return privateKey.export({ type: 'sec1', format: 'pem' }) as string;
}

/**
 * The first private key among the PEM blocks (`EC PRIVATE KEY`, `RSA PRIVATE KEY` or `PRIVATE KEY`);
 * other blocks (certificates, `EC PARAMETERS`) are skipped, as keyutil.ParsePrivateKeyPEM does.
 */
export function parsePrivateKeyPem(pem: string | Buffer): KeyObject {
  for (const block of decodePemBlocks(pem)) {
    const type = DER_TYPE[block.type];
    if (type === undefined) continue;
    try {
      const key = createPrivateKey({ key: block.der, format: 'der', type });
      if (key.asymmetricKeyType === 'ec' || key.asymmetricKeyType === 'rsa') return key;
    } catch {
      // keyutil goes on to the next block too
    }
  }
  throw new CertificateError('INVALID_KEY', 'data does not contain a valid RSA or ECDSA private key');
}

const isNotFound = (err: unknown): boolean => (err as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';

/**
 * keyutil.LoadOrGenerateKeyFile: the key in `path`, or a new P-256 key written there (0600, parent
 * 0755) so that the next start reuses it when a CSR fails. A file that holds no valid key is replaced
 * (upstream returns an error and the kubelet never bootstraps until someone deletes the file).
 */
export async function loadOrGenerateKeyFile(path: string, logger: Logger = noopLogger): Promise<{ keyPem: string; generated: boolean }> {
  try {
    const data = await fs.readFile(path, 'utf8');
    parsePrivateKeyPem(data);
    return { keyPem: data, generated: false };
  } catch (err) {
    if (!isNotFound(err) && !CertificateError.is(err, 'INVALID_KEY')) {
      throw new CertificateError('INVALID_KEY', `error loading key from ${path}: ${errorMessage(err)}`, { cause: err });
    }
    if (!isNotFound(err)) logger.warn('Replacing an unreadable private key file', { path, err: errorMessage(err) });
  }
  const keyPem = await generatePrivateKeyPem();
  try {
    await fs.mkdir(dirname(path), { recursive: true, mode: 0o755 });
    await fs.writeFile(path, keyPem, { mode: 0o600 });
    await fs.chmod(path, 0o600);
  } catch (err) {
    throw new CertificateError('INVALID_KEY', `error writing key to ${path}: ${errorMessage(err)}`, { cause: err });
  }
  return { keyPem, generated: true };
}
