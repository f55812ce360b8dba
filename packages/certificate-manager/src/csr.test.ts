import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  digestedName,
  kubeletClientUsages,
  kubeletServingUsages,
  makeCsrPem,
  nodeClientSubject,
  nodeServingTemplate,
  parseCsrPem,
} from './csr.js';
import { CertificateError } from './errors.js';
import { generatePrivateKeyPem, parsePrivateKeyPem } from './keys.js';

const dir = mkdtempSync(join(tmpdir(), 'cm-csr-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `openssl req -verify -noout -text` on a PEM request: the tool's own check of the structure and signature. */
function opensslReq(pem: string): string {
  const file = join(dir, `req-${Math.random().toString(36).slice(2)}.pem`);
  writeFileSync(file, pem);
  const result = spawnSync('openssl', ['req', '-in', file, '-verify', '-noout', '-text'], { encoding: 'utf8' });
  // openssl 3 prints "Certificate request self-signature verify OK" on stderr.
  expect(result.status).toBe(0);
  return `${result.stdout}${result.stderr}`;
}

describe('makeCsrPem', () => {
  it('builds a PKCS#10 request that openssl verifies: subject O=system:nodes, CN=system:node:<node>, ECDSA P-256 with SHA-256', async () => {
    const key = parsePrivateKeyPem(await generatePrivateKeyPem());
    const pem = makeCsrPem(key, nodeClientSubject('node-a'));
    expect(pem).toMatch(/^-----BEGIN CERTIFICATE REQUEST-----\n/);
    const text = opensslReq(pem);
    expect(text).toContain('verify OK');
    expect(text).toContain('Subject: O = system:nodes, CN = system:node:node-a');
    expect(text).toContain('Signature Algorithm: ecdsa-with-SHA256');
    expect(text).toContain('ASN1 OID: prime256v1');
    expect(text).toContain('Version: 1 (0x0)');
    expect(text).toMatch(/Attributes:\n\s+\(none\)|Attributes:\n\s+a0:00/);
  });

  it('signs with an RSA key as SHA-256 with RSA, which openssl verifies too', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const text = opensslReq(makeCsrPem(privateKey, { commonName: 'system:node:rsa', organization: ['system:nodes', 'extra org'] }));
    expect(text).toContain('Signature Algorithm: sha256WithRSAEncryption');
    // Go puts every organization in one multi-valued RDN.
    expect(text).toMatch(/Subject: O = (system:nodes \+ O = extra org|extra org \+ O = system:nodes), CN = system:node:rsa/);
  });

  it('writes a non-printable value as UTF8String and reads it back', async () => {
    const key = parsePrivateKeyPem(await generatePrivateKeyPem());
    const parsed = parseCsrPem(makeCsrPem(key, { commonName: 'système:node_x*', organization: [] }));
    expect(parsed.subject).toEqual({ commonName: 'système:node_x*', organization: [] });
    expect(opensslReq(makeCsrPem(key, { commonName: 'système', organization: [] }))).toContain('verify OK');
  });
});

describe('serving requests', () => {
  it('asks for the DNS names and IP addresses in an extensionRequest that openssl reads, and reads them back', async () => {
    const key = parsePrivateKeyPem(await generatePrivateKeyPem());
    const pem = makeCsrPem(key, nodeClientSubject('node-a'), {
      dnsNames: ['node-a', 'node-a.lan'],
      ipAddresses: ['10.0.0.5', 'fd00::1:2'],
    });
    const text = opensslReq(pem);
    expect(text).toContain('verify OK');
    expect(text).toContain('Requested Extensions:');
    expect(text).toMatch(
      /X509v3 Subject Alternative Name: \n\s+DNS:node-a, DNS:node-a\.lan, IP Address:10\.0\.0\.5, IP Address:FD00:0:0:0:0:0:1:2/,
    );
    const parsed = parseCsrPem(pem);
    expect(parsed.dnsNames).toEqual(['node-a', 'node-a.lan']);
    expect(parsed.ipAddresses).toEqual(['10.0.0.5', 'fd00::1:2']);
    expect(parseCsrPem(makeCsrPem(key, nodeClientSubject('node-a')))).toMatchObject({ dnsNames: [], ipAddresses: [] });
  });

  it('uses server auth, with key encipherment only for RSA', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    expect(kubeletServingUsages(ec)).toEqual(['digital signature', 'server auth']);
    expect(kubeletServingUsages(rsa)).toEqual(['digital signature', 'key encipherment', 'server auth']);
  });

  it('builds the template from the node addresses as upstream: hostname, DNS and IPs once each, sorted; none without an IP', () => {
    expect(
      nodeServingTemplate('node-a', [
        { type: 'InternalIP', address: '10.0.0.5' },
        { type: 'Hostname', address: 'node-a' },
        { type: 'ExternalIP', address: '192.0.2.7' },
        { type: 'InternalDNS', address: 'node-a.cluster' },
        { type: 'ExternalDNS', address: 'node-a.example' },
        { type: 'InternalIP', address: '10.0.0.5' },
        { type: 'ExternalIP', address: 'not-an-ip' },
        { type: 'Hostname', address: '10.0.0.9' },
        { type: 'InternalIP', address: '' },
      ]),
    ).toEqual({
      subject: { commonName: 'system:node:node-a', organization: ['system:nodes'] },
      dnsNames: ['node-a', 'node-a.cluster', 'node-a.example'],
      ipAddresses: ['10.0.0.5', '10.0.0.9', '192.0.2.7'],
    });
    expect(nodeServingTemplate('node-a', [{ type: 'Hostname', address: 'node-a' }])).toBeUndefined();
  });
});

describe('parseCsrPem', () => {
  it('reads back the subject and the key, and checks who signed it', async () => {
    const key = parsePrivateKeyPem(await generatePrivateKeyPem());
    const other = parsePrivateKeyPem(await generatePrivateKeyPem());
    const parsed = parseCsrPem(makeCsrPem(key, nodeClientSubject('n1')));
    expect(parsed.subject).toEqual({ commonName: 'system:node:n1', organization: ['system:nodes'] });
    expect(parsed.subjectAttributes).toEqual([
      { oid: '2.5.4.10', value: 'system:nodes' },
      { oid: '2.5.4.3', value: 'system:node:n1' },
    ]);
    expect(parsed.publicKeyDer).toEqual(createPublicKey(key).export({ type: 'spki', format: 'der' }));
    expect(parsed.signedBy(createPublicKey(key))).toBe(true);
    expect(parsed.signedBy(createPublicKey(other))).toBe(false);
  });

  it('reads a request made by openssl', () => {
    const keyFile = join(dir, 'openssl.key');
    execFileSync('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', keyFile]);
    const pem = execFileSync('openssl', ['req', '-new', '-key', keyFile, '-subj', '/O=system:nodes/CN=system:node:from-openssl'], {
      encoding: 'utf8',
    });
    const parsed = parseCsrPem(pem);
    expect(parsed.subject).toEqual({ commonName: 'system:node:from-openssl', organization: ['system:nodes'] });
    expect(parsed.signedBy(createPublicKey(parsePrivateKeyPem(execFileSync('cat', [keyFile]))))).toBe(true);
  });

  it('rejects other PEM blocks and broken DER with INVALID_REQUEST', () => {
    expect(() => parseCsrPem('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n')).toThrow(
      expect.objectContaining({ code: 'INVALID_REQUEST', message: 'PEM block type must be CERTIFICATE REQUEST' }),
    );
    expect(() => parseCsrPem('-----BEGIN CERTIFICATE REQUEST-----\nMAMCAQA=\n-----END CERTIFICATE REQUEST-----\n')).toThrow(
      CertificateError,
    );
    expect(() => parseCsrPem('no pem at all')).toThrow(CertificateError);
  });
});

describe('digestedName', () => {
  // The rule of bootstrap.go digestedName, spelled out with openssl's own SHA-512/256.
  function expectedName(keyPem: string, parts: string[]): string {
    const keyFile = join(dir, 'digest.key');
    writeFileSync(keyFile, keyPem);
    const spki = execFileSync('openssl', ['pkey', '-in', keyFile, '-pubout', '-outform', 'DER']);
    const stream = [spki, ...parts.map((p) => Buffer.from(p))].map((b) => `${b.toString('base64url')}|`).join('');
    const digest = execFileSync('openssl', ['dgst', '-sha512-256', '-binary'], { input: stream });
    return `node-csr-${digest.toString('base64url')}`;
  }

  it('hashes base64url(public key)|base64url(CN)|base64url(O)…|base64url(usage)… with SHA-512/256', async () => {
    const keyPem = await generatePrivateKeyPem();
    const key = parsePrivateKeyPem(keyPem);
    const name = digestedName(key, nodeClientSubject('node-a'), kubeletClientUsages(key));
    expect(name).toMatch(/^node-csr-[A-Za-z0-9_-]{43}$/);
    expect(name).toBe(expectedName(keyPem, ['system:node:node-a', 'system:nodes', 'digital signature', 'client auth']));
    expect(digestedName(key, nodeClientSubject('node-a'), ['digital signature', 'key encipherment', 'client auth'])).toBe(
      expectedName(keyPem, ['system:node:node-a', 'system:nodes', 'digital signature', 'key encipherment', 'client auth']),
    );
  });

  it('is stable for the same inputs and changes with each of them, delimiters included', async () => {
    const key = parsePrivateKeyPem(await generatePrivateKeyPem());
    const other = parsePrivateKeyPem(await generatePrivateKeyPem());
    const base = digestedName(key, { commonName: 'foo', organization: ['bar'] }, ['client auth']);
    expect(digestedName(key, { commonName: 'foo', organization: ['bar'] }, ['client auth'])).toBe(base);
    expect(digestedName(createPublicKey(key), { commonName: 'foo', organization: ['bar'] }, ['client auth'])).toBe(base);
    const variants = [
      digestedName(other, { commonName: 'foo', organization: ['bar'] }, ['client auth']),
      digestedName(key, { commonName: 'foob', organization: ['ar'] }, ['client auth']),
      digestedName(key, { commonName: 'foo', organization: ['bar'] }, ['digital signature', 'client auth']),
    ];
    for (const variant of variants) expect(variant).not.toBe(base);
    expect(createHash('sha512-256').digest().length).toBe(32);
  });
});

describe('kubeletClientUsages', () => {
  it('asks for key encipherment only with an RSA key (DefaultKubeletClientGetUsages)', async () => {
    expect(kubeletClientUsages(parsePrivateKeyPem(await generatePrivateKeyPem()))).toEqual(['digital signature', 'client auth']);
    expect(kubeletClientUsages(generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey)).toEqual([
      'digital signature',
      'key encipherment',
      'client auth',
    ]);
  });
});
