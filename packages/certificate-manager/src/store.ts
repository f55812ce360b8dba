import type { KeyObject, X509Certificate } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { Stats } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import { KUBELET_CLIENT_PAIR_PREFIX } from './constants.js';
import { CertificateError } from './errors.js';
import { decodePemBlocks, encodePem } from './internal/pem.js';
import { parsePrivateKeyPem } from './keys.js';
import { parseCertificateChain } from './request.js';

/** A certificate chain with its key, as read from the store. */
export interface CertificatePair {
  /** The file it was read from. */
  path: string;
  /** The leaf first, then intermediates. */
  chain: X509Certificate[];
  leaf: X509Certificate;
  privateKey: KeyObject;
  /** The certificate blocks, PEM. */
  certificatePem: string;
  /** The key block, PEM, as stored. */
  keyPem: string;
  /** The leaf's validity, ms since the epoch. */
  notBefore: number;
  notAfter: number;
}

/** client-go certificate.FileStore: where the current pair lives and how a new one replaces it. */
export interface FileStore {
  /** `<certDir>/<prefix>-current.pem`: the path the written kubeconfig names for both cert and key. */
  currentPath(): string;
  /**
   * The current pair: `<prefix>-current.pem`, else `certFile` + `keyFile`, else `<prefix>.crt` +
   * `<prefix>.key` in the cert dir. Undefined when none exists; a pair that does not load is an error.
   */
  current(): Promise<CertificatePair | undefined>;
  /**
   * Writes `<prefix>-<YYYY-MM-DD-HH-MM-SS>.pem` (the chain, then the key; 0600) and points
   * `<prefix>-current.pem` at it atomically: a symlink `<prefix>-updated.pem` renamed over it.
   */
  update(certificatePem: string, keyPem: string): Promise<CertificatePair>;
}

export interface FileStoreOptions {
  certDir: string;
  /** Default `kubelet-client`. */
  pairNamePrefix?: string;
  /** Explicit files (the kubeconfig's client-certificate / client-key), read when there is no current pair. */
  certFile?: string;
  keyFile?: string;
  /** Names the files by local time, as upstream's time.Now().Format. */
  clock?: Pick<Clock, 'now'>;
  logger?: Logger;
}

const storeError = (message: string, err?: unknown): CertificateError =>
  new CertificateError(
    'STORE',
    err === undefined ? message : `${message}: ${errorMessage(err)}`,
    err === undefined ? undefined : { cause: err },
  );

async function lstatOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await fs.lstat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw storeError(`cannot stat ${path}`, err);
  }
}

/** Exists, following symlinks (a dangling link does not exist), as Go's os.Stat. */
async function exists(path: string | undefined): Promise<boolean> {
  if (path === undefined || path === '') return false;
  try {
    await fs.stat(path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw storeError(`cannot stat ${path}`, err);
  }
}

/** Reads a chain and its key (one file may hold both, as tls.LoadX509KeyPair reads it) and checks they match. */
export async function loadCertificatePair(certFile: string, keyFile: string = certFile): Promise<CertificatePair> {
  let certText: string;
  let keyText: string;
  try {
    certText = await fs.readFile(certFile, 'utf8');
    keyText = keyFile === certFile ? certText : await fs.readFile(keyFile, 'utf8');
  } catch (err) {
    throw storeError(`could not read the cert/key pair from ${JSON.stringify(certFile)}`, err);
  }
  return certificatePairFromPem(certText, keyText, certFile);
}

/** The pair from PEM text; throws INVALID_CERTIFICATE / INVALID_KEY naming `source`. */
export function certificatePairFromPem(certText: string, keyText: string, source: string): CertificatePair {
  const chain = parseCertificateChain(certText, source);
  const leaf = chain[0] as X509Certificate;
  let privateKey: KeyObject;
  try {
    privateKey = parsePrivateKeyPem(keyText);
  } catch (err) {
    throw new CertificateError('INVALID_KEY', `${source}: ${errorMessage(err)}`, { cause: err });
  }
  if (!leaf.checkPrivateKey(privateKey)) {
    throw new CertificateError('INVALID_CERTIFICATE', `${source}: private key does not match public key`);
  }
  const keyBlock = decodePemBlocks(keyText).find((b) => b.type.endsWith('PRIVATE KEY'));
  return {
    path: source,
    chain,
    leaf,
    privateKey,
    certificatePem: chain.map((c) => encodePem('CERTIFICATE', c.raw)).join(''),
    keyPem: keyBlock === undefined ? '' : encodePem(keyBlock.type, keyBlock.der),
    notBefore: Date.parse(leaf.validFrom),
    notAfter: Date.parse(leaf.validTo),
  };
}

const two = (n: number): string => String(n).padStart(2, '0');

/** Go's "2006-01-02-15-04-05" in local time. */
export function pairTimestamp(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}-${two(d.getHours())}-${two(d.getMinutes())}-${two(d.getSeconds())}`;
}

export function createFileStore(options: FileStoreOptions): FileStore {
  const { certDir, clock = systemClock, logger = noopLogger } = options;
  const prefix = options.pairNamePrefix ?? KUBELET_CLIENT_PAIR_PREFIX;
  const file = (qualifier: string): string => join(certDir, `${prefix}-${qualifier}.pem`);
  const currentPath = file('current');
  const updatedPath = file('updated');
  let recovered: Promise<void> | undefined;

  // An update interrupted between the two renames left only `updated`: finish it (store.recover).
  const recover = async (): Promise<void> => {
    if (await exists(currentPath)) return;
    const updated = await lstatOrUndefined(updatedPath);
    if (updated === undefined) return;
    if (!updated.isSymbolicLink()) throw storeError(`expected ${JSON.stringify(updatedPath)} to be a symlink but it is a file`);
    try {
      await fs.rename(updatedPath, currentPath);
    } catch (err) {
      throw storeError(`unable to rename ${JSON.stringify(updatedPath)} to ${JSON.stringify(currentPath)}`, err);
    }
  };
  const ready = (): Promise<void> => {
    recovered ??= recover().catch((err: unknown) => {
      recovered = undefined;
      throw err;
    });
    return recovered;
  };

  const updateSymlink = async (target: string): Promise<void> => {
    const current = await lstatOrUndefined(currentPath);
    if (current !== undefined && !current.isSymbolicLink()) {
      throw storeError(`expected ${JSON.stringify(currentPath)} to be a symlink but it is a file`);
    }
    const updated = await lstatOrUndefined(updatedPath);
    if (updated !== undefined && !updated.isSymbolicLink()) {
      throw storeError(`expected ${JSON.stringify(updatedPath)} to be a symlink but it is a file`);
    }
    try {
      if (updated !== undefined) await fs.unlink(updatedPath);
      await fs.symlink(resolve(target), updatedPath);
      // rename(2) replaces `current` in one step: a reader sees the old pair or the new one, never
      // nothing (upstream removes `current` first, which leaves a moment without it).
      await fs.rename(updatedPath, currentPath);
    } catch (err) {
      throw storeError(`unable to point ${JSON.stringify(currentPath)} at ${JSON.stringify(target)}`, err);
    }
  };

  return {
    currentPath: () => currentPath,
    async current() {
      await ready();
      if (await exists(currentPath)) {
        logger.debug('Loading cert/key pair', { path: currentPath });
        return loadCertificatePair(currentPath);
      }
      if ((await exists(options.certFile)) && (await exists(options.keyFile))) {
        return loadCertificatePair(options.certFile as string, options.keyFile);
      }
      const crt = join(certDir, `${prefix}.crt`);
      const key = join(certDir, `${prefix}.key`);
      if ((await exists(crt)) && (await exists(key))) return loadCertificatePair(crt, key);
      return undefined;
    },
    async update(certificatePem, keyPem) {
      await ready();
      // Validate before anything touches the disk: the chain parses and the key goes with it.
      const pair = certificatePairFromPem(certificatePem, keyPem, 'the new cert/key pair');
      const keyBlock = decodePemBlocks(keyPem)[0];
      if (keyBlock === undefined) throw new CertificateError('INVALID_KEY', 'invalid key data');
      const target = file(pairTimestamp(clock.now()));
      try {
        await fs.mkdir(certDir, { recursive: true, mode: 0o755 });
        await fs.writeFile(target, pair.certificatePem + encodePem(keyBlock.type, keyBlock.der), { mode: 0o600 });
        // writeFile's mode applies to a new file only; an overwritten one keeps its mode otherwise.
        await fs.chmod(target, 0o600);
      } catch (err) {
        throw storeError(`could not write ${JSON.stringify(target)}`, err);
      }
      const written = await loadCertificatePair(target);
      await updateSymlink(target);
      return { ...written, path: currentPath };
    },
  };
}
