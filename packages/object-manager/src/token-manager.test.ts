import type { TokenRequest } from '@kubelet-ts/api';
import { FakeClock, RecordingLogger } from '@kubelet-ts/common/testing';
import { ObjectManagerError } from './errors.js';
import { FakeTokenRequestApi } from './testing/index.js';
import { createTokenManager, createTokenRequestApi } from './token-manager.js';

const request = (expirationSeconds = 3600, uid = 'uid-p', audiences: string[] | null = ['api']): TokenRequest => ({
  spec: {
    ...(audiences !== null ? { audiences } : {}),
    expirationSeconds,
    boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p', uid },
  },
});

function setup(random = () => 0) {
  const clock = new FakeClock();
  const api = new FakeTokenRequestApi(clock);
  const logger = new RecordingLogger();
  const tokens = createTokenManager({ api, clock, logger, random });
  const token = async (tr = request()) => (await tokens.getServiceAccountToken('ns', 'sa', tr)).status?.token;
  return { clock, api, logger, tokens, token };
}

describe('token manager', () => {
  it('caches by name, namespace, audiences, expiration and bound pod, with upstream-shaped keys', async () => {
    const { api, tokens, token } = setup();
    expect(await token()).toBe('token-1');
    expect(await token()).toBe('token-1');
    expect(await token(request(7200))).toBe('token-2');
    expect(await token(request(3600, 'uid-other'))).toBe('token-3');
    expect(await token(request(3600, 'uid-p', null))).toBe('token-4');
    expect(api.calls).toHaveLength(4);
    expect(api.calls[0]).toMatchObject({ namespace: 'ns', serviceAccount: 'sa' });
    expect(tokens.keys()[0]).toBe(
      '"sa"/"ns"/[]string{"api"}/3600/v1.BoundObjectReference{Kind:"Pod", APIVersion:"v1", Name:"p", UID:"uid-p"}',
    );
    expect(tokens.keys()[3]).toContain('/[]string(nil)/');
  });

  it('refreshes within 20 % of the TTL of expiry: not at 80 %, just after it', async () => {
    const { clock, token } = setup();
    await token(); // 3600 s: refresh after 2880 s
    await clock.advance(2_880_000);
    expect(await token()).toBe('token-1');
    await clock.advance(1);
    expect(await token()).toBe('token-2');
  });

  it('refreshes up to 9 s earlier with the jitter (whole seconds of rand × 10 s)', async () => {
    const { clock, token } = setup(() => 0.95); // 9 s
    await token();
    await clock.advance(2_871_000);
    expect(await token()).toBe('token-1');
    await clock.advance(1);
    expect(await token()).toBe('token-2');
  });

  it('refreshes a token older than 24 h whatever its TTL', async () => {
    const { clock, token } = setup();
    const week = 7 * 24 * 3600;
    await token(request(week));
    await clock.advance(24 * 3600 * 1000);
    expect(await token(request(week))).toBe('token-1');
    await clock.advance(1);
    expect(await token(request(week))).toBe('token-2');
  });

  it('refreshes when the clock went back before the issue time', async () => {
    const { clock, token } = setup();
    await token();
    clock.setNow(clock.now() - 1000);
    expect(await token()).toBe('token-2');
  });

  it('keeps the old token through a failed refresh while it is valid, then fails with upstream messages', async () => {
    const { api, clock, logger, token } = setup();
    api.failNext(new Error('boom'));
    const first = await token().catch((e: unknown) => e);
    expect(ObjectManagerError.is(first, 'TOKEN_REQUEST')).toBe(true);
    expect((first as Error).message).toBe('failed to fetch token: boom');

    expect(await token()).toBe('token-2');
    await clock.advance(3_000_000); // past 80 %, still valid
    api.failNext(new Error('api down'));
    expect(await token()).toBe('token-2');
    expect(logger.find("Couldn't update token")[0]?.fields).toMatchObject({ err: 'api down' });

    await clock.advance(600_500); // expired at 3600 s, not swept yet (the sweep runs at 3660 s)
    api.failNext(new Error('api down'));
    const expired = await token().catch((e: unknown) => e);
    expect((expired as Error).message).toMatch(/^token "sa"\/"ns"\/.* expired and refresh failed: api down$/);
  });

  it('sweeps expired tokens every minute and forgets the tokens of a deleted pod', async () => {
    const { clock, tokens, token } = setup();
    await token(request(600));
    await token(request(3600, 'uid-q'));
    await token(request(7200, 'uid-q'));
    expect(tokens.keys()).toHaveLength(3);
    await clock.advance(600_000);
    expect(tokens.keys()).toHaveLength(3); // expires at 600 s exactly: not after it yet
    await clock.advance(60_000);
    expect(tokens.keys()).toHaveLength(2);
    tokens.deleteServiceAccountToken('uid-q');
    expect(tokens.keys()).toEqual([]);
    tokens.stop();
    expect(clock.pendingTimers).toBe(0);
  });

  it('posts a TokenRequest to the service account token subresource and validates the answer', async () => {
    const posts: { path: string; body: unknown }[] = [];
    let answer: (body: object) => unknown = (body) => ({ ...body, status: { token: 'jwt', expirationTimestamp: '2026-01-01T01:00:00Z' } });
    const client = {
      create: async (path: string, body: unknown, options?: { schema?: { parse(v: unknown): unknown } }) => {
        posts.push({ path, body });
        return options?.schema?.parse(answer(body as object));
      },
    };
    const api = createTokenRequestApi(client as never);
    expect((await api.createToken('ns', 'sa', request())).status?.token).toBe('jwt');
    expect(posts[0]).toEqual({
      path: '/api/v1/namespaces/ns/serviceaccounts/sa/token',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: request().spec },
    });
    answer = (body) => ({ ...body, status: { token: 42 } });
    await expect(api.createToken('ns', 'sa', request())).rejects.toThrow(/token/);
  });
});
