import { X509Certificate } from 'node:crypto';
import { ServerError } from '../errors.js';

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Every certificate of a PEM bundle; a bundle without one (or with a broken one) is INVALID_TLS_CONFIG naming `source`. */
export function parsePemCertificates(pem: string | Buffer, source: string): X509Certificate[] {
  const blocks = String(pem).match(PEM_CERT) ?? [];
  if (blocks.length === 0) throw new ServerError('INVALID_TLS_CONFIG', `${source}: no PEM certificate found`);
  return blocks.map((block, i) => {
    try {
      return new X509Certificate(block);
    } catch (err) {
      throw new ServerError('INVALID_TLS_CONFIG', `${source}: certificate ${i + 1} cannot be parsed`, { cause: err });
    }
  });
}
