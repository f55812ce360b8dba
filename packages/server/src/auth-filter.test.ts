import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { RecordingLogger } from '@kubelet-ts/common/testing';
import type { AuthenticationResult, Authenticator, Authorizer, AuthorizationDecision } from './auth.js';
import { createAuthFilter } from './auth-filter.js';
import { sendText } from './router.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

const authenticatorOf = (result: AuthenticationResult | Error): Authenticator => ({
  authenticate: () => (result instanceof Error ? Promise.reject(result) : Promise.resolve(result)),
});
const alice: AuthenticationResult = { kind: 'authenticated', user: { name: 'alice', groups: ['system:authenticated'] } };

async function serve(authenticator: Authenticator, authorizer: Authorizer, logger = new RecordingLogger()): Promise<string> {
  const filter = createAuthFilter({ authenticator, authorizer, nodeName: 'node-1', logger });
  const server = createServer(filter((_req, res) => sendText(res, 200, 'handler ran')));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function get(url: string, method = 'GET'): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { method });
  return { status: res.status, body: await res.text() };
}

const deciding = (decide: (sub: string) => AuthorizationDecision | Error, seen: string[] = []): Authorizer => ({
  authorize: (attrs) => {
    seen.push(attrs.subresource);
    const d = decide(attrs.subresource);
    return d instanceof Error ? Promise.reject(d) : Promise.resolve({ decision: d, reason: '' });
  },
});

describe('createAuthFilter', () => {
  it('answers 401 "Unauthorized" without a user, logging a failure but not a missing credential', async () => {
    const logger = new RecordingLogger();
    const allow = deciding(() => 'allow');
    expect(await get(`${await serve(authenticatorOf({ kind: 'not-authenticated' }), allow, logger)}/pods`)).toEqual({
      status: 401,
      body: 'Unauthorized',
    });
    expect(logger.records).toHaveLength(0);
    expect(await get(`${await serve(authenticatorOf({ kind: 'failed', message: 'invalid bearer token' }), allow, logger)}/pods`)).toEqual({
      status: 401,
      body: 'Unauthorized',
    });
    expect(await get(`${await serve(authenticatorOf(new Error('authenticator crashed')), allow, logger)}/pods`)).toEqual({
      status: 401,
      body: 'Unauthorized',
    });
    expect(logger.find('Unable to authenticate the request').map((r) => r.fields.err)).toEqual([
      'invalid bearer token',
      'authenticator crashed',
    ]);
  });

  it('tries the fine-grained subresource first and passes on the first allow', async () => {
    const seen: string[] = [];
    const base = await serve(
      authenticatorOf(alice),
      deciding((sub) => (sub === 'proxy' ? 'allow' : 'no-opinion'), seen),
    );
    expect(await get(`${base}/pods`)).toEqual({ status: 200, body: 'handler ran' });
    expect(seen).toEqual(['pods', 'proxy']);
    seen.length = 0;
    const fine = await serve(
      authenticatorOf(alice),
      deciding((sub) => (sub === 'pods' ? 'allow' : 'deny'), seen),
    );
    expect((await get(`${fine}/pods`)).status).toBe(200);
    expect(seen).toEqual(['pods']);
  });

  it('answers 403 with upstream text listing every subresource tried', async () => {
    const base = await serve(
      authenticatorOf(alice),
      deciding(() => 'deny'),
    );
    expect(await get(`${base}/healthz`)).toEqual({
      status: 403,
      body: 'Forbidden (user=alice, verb=get, resource=nodes, subresource(s)=[healthz proxy])\n',
    });
    expect(await get(`${base}/exec/ns/pod/c`, 'POST')).toEqual({
      status: 403,
      body: 'Forbidden (user=alice, verb=create, resource=nodes, subresource(s)=[proxy])\n',
    });
  });

  it('answers 500 "Authorization error (…)" when the authorizer errs, naming the attribute set', async () => {
    const logger = new RecordingLogger();
    const base = await serve(
      authenticatorOf(alice),
      deciding((sub) => (sub === 'pods' ? 'no-opinion' : new Error('webhook down'))),
      logger,
    );
    expect(await get(`${base}/pods`)).toEqual({
      status: 500,
      body: 'Authorization error (user=alice, verb=get, resource=nodes, subresource=proxy)',
    });
    expect(logger.find('Authorization error')[0]?.fields).toMatchObject({ user: 'alice', subresource: 'proxy', err: 'webhook down' });
  });

  it('answers 400 to an authenticated request whose URI does not parse, instead of failing uncaught (found by fuzzing)', async () => {
    const logger = new RecordingLogger();
    const base = await serve(
      authenticatorOf(alice),
      deciding(() => 'allow'),
      logger,
    );
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: Number(new URL(base).port) }, () =>
        socket.write('GET http://kubelet.local:99999/healthz HTTP/1.1\r\nHost: node\r\nConnection: close\r\n\r\n'),
      );
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
      socket.on('error', reject);
      socket.on('close', () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n[^]*\r\n\r\n400 Bad Request$/);
    expect(logger.find('auth filter failed')).toEqual([]);
  });
});
