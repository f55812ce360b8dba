import { tlsCiphers, tlsMinVersion } from './tls.js';

describe('TLS option names', () => {
  it('maps tlsMinVersion names to node versions, TLS 1.2 by default', () => {
    expect(tlsMinVersion(undefined)).toBe('TLSv1.2');
    expect(tlsMinVersion('VersionTLS10')).toBe('TLSv1');
    expect(tlsMinVersion('VersionTLS11')).toBe('TLSv1.1');
    expect(tlsMinVersion('VersionTLS12')).toBe('TLSv1.2');
    expect(tlsMinVersion('VersionTLS13')).toBe('TLSv1.3');
    expect(() => tlsMinVersion('TLSv1.2')).toThrow(
      expect.objectContaining({ code: 'INVALID_TLS_CONFIG', message: expect.stringContaining('"TLSv1.2"') }),
    );
  });

  it('maps Go cipher suite names to OpenSSL names, TLS 1.3 names accepted and left to the defaults', () => {
    expect(tlsCiphers(undefined)).toEqual({ tls13Only: false });
    expect(tlsCiphers([])).toEqual({ tls13Only: false });
    expect(
      tlsCiphers([
        'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
        'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
        'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305',
        'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
        'TLS_AES_128_GCM_SHA256',
        'TLS_RSA_WITH_AES_128_CBC_SHA',
      ]),
    ).toEqual({
      ciphers: 'ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-CHACHA20-POLY1305:AES128-SHA',
      tls13Only: false,
    });
    expect(tlsCiphers(['TLS_AES_256_GCM_SHA384'])).toEqual({ tls13Only: true });
    expect(() => tlsCiphers(['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'ECDHE-RSA-AES128-GCM-SHA256'])).toThrow(
      'unsupported tlsCipherSuites name "ECDHE-RSA-AES128-GCM-SHA256"',
    );
  });
});
