import type { SecureVersion } from 'node:tls';
import { ServerError } from '../errors.js';

/** `tlsMinVersion` names (Go's constant names) to node's. */
const TLS_VERSIONS: Readonly<Record<string, SecureVersion>> = {
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
};

/**
 * The TLS 1.0–1.2 suites Go implements, by IANA name (what `tlsCipherSuites` takes, via component-base's
 * cliflag), to OpenSSL's names. The two short CHACHA20 names are cliflag's legacy aliases.
 */
const TLS12_SUITES: Readonly<Record<string, string>> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: 'ECDHE-RSA-DES-CBC3-SHA',
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: 'ECDHE-ECDSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: 'ECDHE-RSA-RC4-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: 'DES-CBC3-SHA',
  TLS_RSA_WITH_RC4_128_SHA: 'RC4-SHA',
};

/** Go always enables these under TLS 1.3 and ignores them in the list; they are accepted and change nothing. */
const TLS13_SUITES = new Set(['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256']);

/** node's `minVersion` for a `tlsMinVersion` name; unset is TLS 1.2 (Go's server default). */
export function tlsMinVersion(name: string | undefined): SecureVersion {
  if (name === undefined || name === '') return 'TLSv1.2';
  const version = TLS_VERSIONS[name];
  if (version === undefined) {
    throw new ServerError(
      'INVALID_TLS_CONFIG',
      `unknown tlsMinVersion ${JSON.stringify(name)} (one of ${Object.keys(TLS_VERSIONS).join(', ')})`,
    );
  }
  return version;
}

/**
 * node's `ciphers` string for `tlsCipherSuites` (undefined: node's defaults); an unknown name is
 * INVALID_TLS_CONFIG naming it. `tls13Only`: only TLS 1.3 names were given, so Go offers no TLS 1.2 suite
 * at all (OpenSSL refuses an empty list; the caller raises the minimum version instead).
 */
export function tlsCiphers(names: readonly string[] | undefined): { ciphers?: string; tls13Only: boolean } {
  if (names === undefined || names.length === 0) return { tls13Only: false };
  const openssl: string[] = [];
  for (const name of names) {
    if (TLS13_SUITES.has(name)) continue;
    const mapped = TLS12_SUITES[name];
    if (mapped === undefined) throw new ServerError('INVALID_TLS_CONFIG', `unsupported tlsCipherSuites name ${JSON.stringify(name)}`);
    if (!openssl.includes(mapped)) openssl.push(mapped);
  }
  return openssl.length === 0 ? { tls13Only: true } : { ciphers: openssl.join(':'), tls13Only: false };
}
