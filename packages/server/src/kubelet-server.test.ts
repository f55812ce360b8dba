import { request } from 'node:https';
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import type { ConnectionOptions } from 'node:tls';
import { RecordingLogger } from '@kubelet-ts/common/testing';
import { createTestPki } from '../test/pki.js';
import type { KeyPair, TestPki } from '../test/pki.js';
import type { AuthorizationAttributes, Authorizer } from './auth.js';
import { createWebhookTokenAuthenticator, createX509Authenticator, unionAuthenticator } from './authenticators.js';
import { alwaysAllowAuthorizer } from './authorizers.js';
import type { KubeletHttpServer } from './http-server.js';
import { createKubeletServer } from './kubelet-server.js';
import { createRouter, sendJson } from './router.js';
import { FakeTokenReviewer } from './testing/fake-reviewers.js';

let pki: TestPki;
let ca: KeyPair;
let serving: KeyPair;
let alice: KeyPair;
let serverOnly: KeyPair;
let noCn: KeyPair;
let stranger: KeyPair;

beforeAll(() => {
  pki = createTestPki();
  ca = pki.ca('client-ca');
  const other = pki.ca('other-ca');
  serving = pki.issue(ca, 'serving', '/CN=node-1', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth');
  alice = pki.issue(ca, 'alice', '/O=devs/O=ops/CN=alice', 'extendedKeyUsage=clientAuth');
  serverOnly = pki.issue(ca, 'server-only', '/CN=mallory', 'extendedKeyUsage=serverAuth');
  noCn = pki.issue(ca, 'no-cn', '/O=devs', 'extendedKeyUsage=clientAuth');
  stranger = pki.issue(other, 'stranger', '/CN=alice/O=system:masters', 'extendedKeyUsage=clientAuth');
});
afterAll(() => pki.cleanup());

const open: KubeletHttpServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

class RecordingAuthorizer implements Authorizer {
  readonly seen: AuthorizationAttributes[] = [];
  authorize(attrs: AuthorizationAttributes) {
    this.seen.push(attrs);
    return Promise.resolve({ decision: 'allow' as const, reason: '' });
  }
}

async function start(options: { anonymous: boolean; authorizer?: Authorizer; reviewer?: FakeTokenReviewer; logger?: RecordingLogger }) {
  const router = createRouter();
  router.get('/stats/summary', (_req, res) => sendJson(res, 200, { node: { nodeName: 'node-1' } }));
  const server = createKubeletServer({
    router,
    tls: { cert: serving.cert, key: serving.key, clientCA: ca.cert },
    authenticator: unionAuthenticator(
      [
        createX509Authenticator({ clientCA: ca.cert }),
        createWebhookTokenAuthenticator({ reviewer: options.reviewer ?? new FakeTokenReviewer() }),
      ],
      { anonymous: options.anonymous },
    ),
    authorizer: options.authorizer ?? alwaysAllowAuthorizer,
    nodeName: 'node-1',
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
  });
  open.push(server);
  const { port } = await server.listen('127.0.0.1', 0);
  return port;
}

function get(
  port: number,
  path: string,
  client?: KeyPair,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        ca: ca.cert,
        agent: false,
        headers,
        ...(client !== undefined ? { cert: client.cert, key: client.key } : {}),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('createKubeletServer (https, real certificates)', () => {
  it('authenticates a client certificate signed by the client CA: CN is the user, O the groups', async () => {
    const authorizer = new RecordingAuthorizer();
    const port = await start({ anonymous: false, authorizer });
    expect(await get(port, '/stats/summary', alice)).toEqual({ status: 200, body: '{"node":{"nodeName":"node-1"}}' });
    expect(authorizer.seen[0]).toMatchObject({
      user: { name: 'alice', groups: ['devs', 'ops', 'system:authenticated'] },
      verb: 'get',
      resource: 'nodes',
      subresource: 'stats',
      name: 'node-1',
    });
  });

  it('answers 401 to a certificate of another CA, one without clientAuth usage, no credentials, and a bad token', async () => {
    const logger = new RecordingLogger();
    const port = await start({ anonymous: false, logger });
    expect(await get(port, '/stats/summary', stranger)).toEqual({ status: 401, body: 'Unauthorized' });
    expect(logger.find('Unable to authenticate')[0]?.fields.err).toMatch(/^verifying certificate CN=alice, SN=\w+ failed: /);
    expect(await get(port, '/stats/summary', serverOnly)).toEqual({ status: 401, body: 'Unauthorized' });
    expect(await get(port, '/stats/summary')).toEqual({ status: 401, body: 'Unauthorized' });
    expect(await get(port, '/stats/summary', undefined, { Authorization: 'Bearer nope' })).toEqual({ status: 401, body: 'Unauthorized' });
  });

  it('lets a certificate without a CN fall through to the other authenticators', async () => {
    const authorizer = new RecordingAuthorizer();
    const port = await start({ anonymous: true, authorizer });
    expect((await get(port, '/stats/summary', noCn)).status).toBe(200);
    expect(authorizer.seen[0]?.user).toEqual({ name: 'system:anonymous', groups: ['system:unauthenticated'] });
  });

  it('with anonymous on, a request without credentials reaches the authorizer as system:anonymous; a failed one stays 401', async () => {
    const authorizer = new RecordingAuthorizer();
    const port = await start({ anonymous: true, authorizer });
    expect((await get(port, '/pods')).status).toBe(404); // authorized (pods, first), then the router's 404
    expect(authorizer.seen.map((a) => [a.user.name, a.user.groups, a.subresource])).toEqual([
      ['system:anonymous', ['system:unauthenticated'], 'pods'],
    ]);
    expect(await get(port, '/stats/summary', stranger)).toEqual({ status: 401, body: 'Unauthorized' });
  });

  it('authenticates a bearer token through the TokenReview port', async () => {
    const reviewer = new FakeTokenReviewer();
    reviewer.setUser('sa-token', { name: 'system:serviceaccount:monitoring:prometheus', groups: ['system:serviceaccounts'] });
    const authorizer = new RecordingAuthorizer();
    const port = await start({ anonymous: false, authorizer, reviewer });
    expect((await get(port, '/stats/summary', undefined, { Authorization: 'Bearer sa-token' })).status).toBe(200);
    expect(authorizer.seen[0]?.user.name).toBe('system:serviceaccount:monitoring:prometheus');
  });

  it('rejects unknown TLS names as INVALID_TLS_CONFIG, naming them', () => {
    const base = {
      router: createRouter(),
      authenticator: unionAuthenticator([], { anonymous: true }),
      authorizer: alwaysAllowAuthorizer,
      nodeName: 'n',
    };
    expect(() => createKubeletServer({ ...base, tls: { ...serving, minVersion: 'VersionTLS14' } })).toThrow(
      expect.objectContaining({ code: 'INVALID_TLS_CONFIG', message: expect.stringContaining('VersionTLS14') }),
    );
    expect(() =>
      createKubeletServer({ ...base, tls: { ...serving, cipherSuites: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_FOO'] } }),
    ).toThrow('unsupported tlsCipherSuites name "TLS_FOO"');
    expect(() => createKubeletServer({ ...base, tls: { ...serving, clientCA: 'not a pem' } })).toThrow(
      'clientCA: no PEM certificate found',
    );
  });

  it('serves only the configured TLS versions and cipher suites', async () => {
    const handshake = (port: number, options: ConnectionOptions): Promise<string> =>
      new Promise((resolve) => {
        const socket = connect({ host: '127.0.0.1', port, ca: ca.cert, ...options }, () => {
          resolve(`${socket.getProtocol() ?? ''} ${socket.getCipher().name}`);
          socket.end();
        });
        socket.on('error', () => resolve('failed'));
      });
    const listen = async (tls: { minVersion?: string; cipherSuites?: string[] }): Promise<number> => {
      const server = createKubeletServer({
        router: createRouter(),
        tls: { ...serving, ...tls },
        authenticator: unionAuthenticator([], { anonymous: true }),
        authorizer: alwaysAllowAuthorizer,
        nodeName: 'node-1',
      });
      open.push(server);
      return (await server.listen('127.0.0.1', 0)).port;
    };
    const suites = await listen({ cipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', 'TLS_AES_128_GCM_SHA256'] });
    expect(await handshake(suites, { maxVersion: 'TLSv1.2' })).toBe('TLSv1.2 ECDHE-ECDSA-AES128-GCM-SHA256');
    expect(await handshake(suites, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES256-GCM-SHA384' })).toBe('failed');
    expect(await handshake(suites, {})).toMatch(/^TLSv1\.3 /);
    const tls13 = await listen({ minVersion: 'VersionTLS13' });
    expect(await handshake(tls13, { maxVersion: 'TLSv1.2' })).toBe('failed');
    expect(await handshake(tls13, {})).toMatch(/^TLSv1\.3 /);
    const only13 = await listen({ cipherSuites: ['TLS_AES_256_GCM_SHA384'] });
    expect(await handshake(only13, {})).toMatch(/^TLSv1\.3 /);
    expect(await handshake(only13, { maxVersion: 'TLSv1.2' })).toBe('failed');
  });
});

describe('the serving certificate', () => {
  /** The certificate a new TLS connection is served (its fingerprint), or the handshake's error. */
  function servedCertificate(port: number): Promise<string> {
    return new Promise((resolve) => {
      const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
        resolve(socket.getPeerX509Certificate()?.fingerprint256 ?? 'none');
        socket.destroy();
      });
      socket.on('error', (err) => resolve(`error: ${err.message}`));
    });
  }
  const fingerprint = (pem: string): string => new X509Certificate(pem).fingerprint256;

  it('fails handshakes until a pair is set, then serves each new pair to new connections', async () => {
    const server = createKubeletServer({
      router: createRouter(),
      tls: {},
      authenticator: unionAuthenticator([], { anonymous: true }),
      authorizer: alwaysAllowAuthorizer,
      nodeName: 'node-1',
    });
    open.push(server);
    const { port } = await server.listen('127.0.0.1', 0);
    expect(await servedCertificate(port)).toMatch(/^error: /);
    server.setCertificate({ cert: serving.cert, key: serving.key });
    expect(await servedCertificate(port)).toBe(fingerprint(serving.cert));
    const next = pki.issue(ca, 'serving-2', '/CN=node-1', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth');
    server.setCertificate({ cert: next.cert, key: next.key });
    expect(await servedCertificate(port)).toBe(fingerprint(next.cert));
  });

  it("refuses a pair whose key is not the certificate's, and keeps serving the previous one", async () => {
    const server = createKubeletServer({
      router: createRouter(),
      tls: { cert: serving.cert, key: serving.key },
      authenticator: unionAuthenticator([], { anonymous: true }),
      authorizer: alwaysAllowAuthorizer,
      nodeName: 'node-1',
    });
    open.push(server);
    const { port } = await server.listen('127.0.0.1', 0);
    expect(() => server.setCertificate({ cert: alice.cert, key: serving.key })).toThrow(/serving certificate cannot be used/);
    expect(await servedCertificate(port)).toBe(fingerprint(serving.cert));
  });
});
