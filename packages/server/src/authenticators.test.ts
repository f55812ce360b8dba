import type { IncomingMessage } from 'node:http';
import { FakeClock } from '@kubelet-ts/common/testing';
import type { AuthenticationResult, Authenticator } from './auth.js';
import { createWebSocketProtocolAuthenticator, createWebhookTokenAuthenticator, unionAuthenticator } from './authenticators.js';
import { FakeTokenReviewer } from './testing/fake-reviewers.js';

const request = (headers: Record<string, string> = {}): IncomingMessage =>
  ({
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
    socket: {},
  }) as unknown as IncomingMessage;
const fixed = (result: AuthenticationResult): Authenticator & { calls: number } => {
  const a = {
    calls: 0,
    authenticate: () => {
      a.calls++;
      return Promise.resolve(result);
    },
  };
  return a;
};

describe('createWebhookTokenAuthenticator', () => {
  it('authenticates a bearer token through a TokenReview and removes the header', async () => {
    const reviewer = new FakeTokenReviewer();
    reviewer.setUser('good', {
      name: 'system:serviceaccount:kube-system:metrics',
      uid: 'sa-1',
      groups: ['system:serviceaccounts'],
      extra: { x: ['y'] },
    });
    const authn = createWebhookTokenAuthenticator({ reviewer, clock: new FakeClock() });
    const req = request({ Authorization: 'Bearer good' });
    expect(await authn.authenticate(req)).toEqual({
      kind: 'authenticated',
      user: { name: 'system:serviceaccount:kube-system:metrics', uid: 'sa-1', groups: ['system:serviceaccounts'], extra: { x: ['y'] } },
    });
    expect(req.headers.authorization).toBeUndefined();
    expect(reviewer.calls).toEqual(['good']);
  });

  it('is not-authenticated without a bearer token, and fails on a token that does not authenticate', async () => {
    const reviewer = new FakeTokenReviewer();
    const authn = createWebhookTokenAuthenticator({ reviewer, clock: new FakeClock() });
    expect(await authn.authenticate(request())).toEqual({ kind: 'not-authenticated' });
    expect(await authn.authenticate(request({ Authorization: 'Basic dXNlcjpwYXNz' }))).toEqual({ kind: 'not-authenticated' });
    expect(await authn.authenticate(request({ Authorization: 'Bearer ' }))).toEqual({ kind: 'not-authenticated' });
    expect(await authn.authenticate(request({ Authorization: 'bearer bad' }))).toEqual({ kind: 'failed', message: 'invalid bearer token' });
    expect(reviewer.calls).toEqual(['bad']);
  });

  it('caches answers by token for 2 minutes, successes and rejections alike, but not errors', async () => {
    const clock = new FakeClock();
    const reviewer = new FakeTokenReviewer();
    reviewer.setUser('good', { name: 'alice', groups: [] });
    const authn = createWebhookTokenAuthenticator({ reviewer, clock });
    for (let i = 0; i < 3; i++) {
      await authn.authenticate(request({ Authorization: 'Bearer good' }));
      await authn.authenticate(request({ Authorization: 'Bearer bad' }));
    }
    expect(reviewer.calls).toEqual(['good', 'bad']);
    await clock.advance(119_999);
    await authn.authenticate(request({ Authorization: 'Bearer good' }));
    expect(reviewer.calls).toHaveLength(2);
    await clock.advance(1);
    await authn.authenticate(request({ Authorization: 'Bearer good' }));
    await authn.authenticate(request({ Authorization: 'Bearer bad' }));
    expect(reviewer.calls).toEqual(['good', 'bad', 'good', 'bad']);

    reviewer.failWith(new Error('connection refused'));
    expect(await authn.authenticate(request({ Authorization: 'Bearer other' }))).toEqual({
      kind: 'failed',
      message: 'token review failed: connection refused',
    });
    reviewer.failWith(undefined);
    reviewer.setUser('other', { name: 'bob', groups: [] });
    expect(await authn.authenticate(request({ Authorization: 'Bearer other' }))).toMatchObject({ kind: 'authenticated' });
  });

  it('fails with the review status.error (uncached), and on a reply that is not a TokenReview', async () => {
    const clock = new FakeClock();
    const reviewer = new FakeTokenReviewer();
    reviewer.setReply('expired', { status: { authenticated: false, error: 'token has expired' } });
    reviewer.setReply('garbage', { status: { authenticated: 'true' } });
    const authn = createWebhookTokenAuthenticator({ reviewer, clock, cacheTtlMs: 60_000 });
    expect(await authn.authenticate(request({ Authorization: 'Bearer expired' }))).toEqual({
      kind: 'failed',
      message: 'token has expired',
    });
    await authn.authenticate(request({ Authorization: 'Bearer expired' }));
    expect(await authn.authenticate(request({ Authorization: 'Bearer garbage' }))).toEqual({
      kind: 'failed',
      message: 'token review reply is not a TokenReview at status.authenticated: Invalid input: expected boolean, received string',
    });
    expect(reviewer.calls).toEqual(['expired', 'expired', 'garbage']);
  });

  it('requires the token to be meant for one of the configured audiences', async () => {
    const reviewer = new FakeTokenReviewer();
    reviewer.setReply('t', { status: { authenticated: true, user: { username: 'u' }, audiences: ['other'] } });
    reviewer.setReply('k', { status: { authenticated: true, user: { username: 'u' }, audiences: ['kubelet'] } });
    const authn = createWebhookTokenAuthenticator({ reviewer, clock: new FakeClock(), audiences: ['kubelet'] });
    expect(await authn.authenticate(request({ Authorization: 'Bearer t' }))).toMatchObject({
      kind: 'failed',
      message: expect.stringContaining('is invalid for the target audiences'),
    });
    expect(await authn.authenticate(request({ Authorization: 'Bearer k' }))).toMatchObject({
      kind: 'authenticated',
      user: { name: 'u', groups: [] },
    });
  });

  it('aborts a review that outlives its deadline', async () => {
    const clock = new FakeClock();
    const authn = createWebhookTokenAuthenticator({
      clock,
      timeoutMs: 1_000,
      reviewer: {
        review: (_token, signal) =>
          new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason as Error))),
      },
    });
    const pending = authn.authenticate(request({ Authorization: 'Bearer slow' }));
    await clock.advance(1_000);
    expect(await pending).toEqual({ kind: 'failed', message: 'token review failed: token review timed out after 1000ms' });
  });
});

/** A request as node parses it: `rawHeaders` in order, `headers` lower-cased (repeats joined with `, `). */
const rawRequest = (rawHeaders: string[]): IncomingMessage => {
  const headers: Record<string, string> = {};
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const key = (rawHeaders[i] as string).toLowerCase();
    const value = rawHeaders[i + 1] as string;
    headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`;
  }
  return { headers, rawHeaders: [...rawHeaders], socket: {} } as unknown as IncomingMessage;
};
const bearerProtocol = (token: string): string => `base64url.bearer.authorization.k8s.io.${Buffer.from(token).toString('base64url')}`;
const webSocket = (...protocols: string[]): string[] => [
  'Connection',
  'Upgrade',
  'Upgrade',
  'websocket',
  ...protocols.flatMap((p) => ['Sec-WebSocket-Protocol', p]),
];

describe('createWebSocketProtocolAuthenticator', () => {
  const setup = () => {
    const reviewer = new FakeTokenReviewer();
    reviewer.setUser('sa-token', { name: 'system:serviceaccount:ns:viewer', groups: ['system:serviceaccounts'] });
    const clock = new FakeClock();
    const tokens = createWebhookTokenAuthenticator({ reviewer, clock });
    return { reviewer, clock, tokens, authn: createWebSocketProtocolAuthenticator({ tokens }) };
  };

  it('authenticates the token of a base64url.bearer.authorization.k8s.io subprotocol and removes that entry', async () => {
    const { authn, reviewer } = setup();
    const req = rawRequest([
      'Host',
      'node-1',
      ...webSocket(`v5.channel.k8s.io, ${bearerProtocol('sa-token')}`, 'v4.channel.k8s.io'),
      'X-Other',
      'kept',
    ]);
    expect(await authn.authenticate(req)).toEqual({
      kind: 'authenticated',
      user: { name: 'system:serviceaccount:ns:viewer', groups: ['system:serviceaccounts'] },
    });
    expect(reviewer.calls).toEqual(['sa-token']);
    // Go's Header.Set: one header, the other entries joined with ",", where the first one was.
    expect(req.headers['sec-websocket-protocol']).toBe('v5.channel.k8s.io,v4.channel.k8s.io');
    expect(req.rawHeaders).toEqual([
      'Host',
      'node-1',
      'Connection',
      'Upgrade',
      'Upgrade',
      'websocket',
      'Sec-WebSocket-Protocol',
      'v5.channel.k8s.io,v4.channel.k8s.io',
      'X-Other',
      'kept',
    ]);
  });

  it('shares the bearer-token cache: a token reviewed once is not reviewed again either way', async () => {
    const { authn, tokens, reviewer, clock } = setup();
    await tokens.authenticate(request({ Authorization: 'Bearer sa-token' }));
    await authn.authenticate(rawRequest(webSocket(`v5.channel.k8s.io,${bearerProtocol('sa-token')}`)));
    expect(reviewer.calls).toEqual(['sa-token']);
    await clock.advance(120_000);
    await authn.authenticate(rawRequest(webSocket(`v5.channel.k8s.io,${bearerProtocol('sa-token')}`)));
    expect(reviewer.calls).toEqual(['sa-token', 'sa-token']);
  });

  it('ignores requests that are not WebSocket upgrades, and WebSocket requests without a token', async () => {
    const { authn, reviewer } = setup();
    const protocol = ['Sec-WebSocket-Protocol', `v5.channel.k8s.io, ${bearerProtocol('sa-token')}`];
    for (const headers of [
      protocol,
      ['Connection', 'Upgrade', 'Upgrade', 'SPDY/3.1', ...protocol],
      ['Connection', 'keep-alive', 'Upgrade', 'websocket', ...protocol],
      // Go reads the first Connection header only.
      ['Connection', 'keep-alive', 'Connection', 'Upgrade', 'Upgrade', 'websocket', ...protocol],
      webSocket('v5.channel.k8s.io'),
      webSocket(),
      // An empty token is no token.
      webSocket(`v5.channel.k8s.io, ${bearerProtocol('')}`),
    ]) {
      const req = rawRequest(headers);
      expect([headers, await authn.authenticate(req)]).toEqual([headers, { kind: 'not-authenticated' }]);
    }
    expect(reviewer.calls).toEqual([]);
    // Case and list position do not matter for the upgrade headers, as upstream's regexp.
    expect(
      await authn.authenticate(
        rawRequest([
          'connection',
          'keep-alive, UPGRADE',
          'upgrade',
          'WebSocket',
          'Sec-WebSocket-Protocol',
          `x, ${bearerProtocol('sa-token')}`,
        ]),
      ),
    ).toMatchObject({ kind: 'authenticated' });
  });

  it('fails with upstream texts on two tokens, a malformed one, or a token without another subprotocol', async () => {
    const { authn, reviewer } = setup();
    const cases: Array<[string[], string]> = [
      [
        webSocket(`v5.channel.k8s.io, ${bearerProtocol('a')}`, bearerProtocol('b')),
        'multiple base64.bearer.authorization tokens specified',
      ],
      [
        webSocket(`v5.channel.k8s.io, ${bearerProtocol('')}, ${bearerProtocol('b')}`),
        'multiple base64.bearer.authorization tokens specified',
      ],
      [
        webSocket('v5.channel.k8s.io, base64url.bearer.authorization.k8s.io.c2EtdG9rZW4='),
        'invalid base64.bearer.authorization token encoding',
      ],
      [
        webSocket('v5.channel.k8s.io, base64url.bearer.authorization.k8s.io.c2E+dG9r'),
        'invalid base64.bearer.authorization token encoding',
      ],
      [
        webSocket('v5.channel.k8s.io, base64url.bearer.authorization.k8s.io.c2EtdG9rZW4xY'),
        'invalid base64.bearer.authorization token encoding',
      ],
      [
        webSocket(`v5.channel.k8s.io, base64url.bearer.authorization.k8s.io.${Buffer.from([0xff, 0xfe]).toString('base64url')}`),
        'invalid base64.bearer.authorization token',
      ],
      [webSocket(bearerProtocol('sa-token')), 'missing additional subprotocol'],
    ];
    for (const [headers, message] of cases) {
      const req = rawRequest(headers);
      expect([headers, await authn.authenticate(req)]).toEqual([headers, { kind: 'failed', message }]);
      expect(req.rawHeaders).toEqual(headers);
    }
    expect(reviewer.calls).toEqual([]);
  });

  it('fails on a token the review rejects, leaving the header as it was', async () => {
    const { authn, reviewer } = setup();
    const headers = webSocket(`v5.channel.k8s.io, ${bearerProtocol('stolen')}`);
    const req = rawRequest(headers);
    expect(await authn.authenticate(req)).toEqual({ kind: 'failed', message: 'invalid bearer token' });
    expect(req.rawHeaders).toEqual(headers);
    expect(reviewer.calls).toEqual(['stolen']);
    // An empty entry beside the token counts as another subprotocol (Go splits on "," and keeps it).
    const trailing = rawRequest(webSocket(`${bearerProtocol('sa-token')},`));
    expect(await authn.authenticate(trailing)).toMatchObject({ kind: 'authenticated' });
    expect(trailing.headers['sec-websocket-protocol']).toBe('');
  });
});

describe('unionAuthenticator', () => {
  const alice: AuthenticationResult = { kind: 'authenticated', user: { name: 'alice', groups: ['devs'] } };

  it('takes the first authenticated user and adds system:authenticated', async () => {
    const second = fixed({ kind: 'authenticated', user: { name: 'bob', groups: [] } });
    const union = unionAuthenticator([fixed({ kind: 'not-authenticated' }), fixed(alice), second], { anonymous: false });
    expect(await union.authenticate(request())).toEqual({
      kind: 'authenticated',
      user: { name: 'alice', groups: ['devs', 'system:authenticated'] },
    });
    expect(second.calls).toBe(0);
  });

  it('lets a later authenticator succeed after an earlier one failed', async () => {
    const union = unionAuthenticator([fixed({ kind: 'failed', message: 'bad cert' }), fixed(alice)], { anonymous: false });
    expect(await union.authenticate(request())).toMatchObject({ kind: 'authenticated', user: { name: 'alice' } });
  });

  it('makes an unrecognised request anonymous only when enabled', async () => {
    const none = [fixed({ kind: 'not-authenticated' })];
    expect(await unionAuthenticator(none, { anonymous: false }).authenticate(request())).toEqual({ kind: 'not-authenticated' });
    expect(await unionAuthenticator(none, { anonymous: true }).authenticate(request())).toEqual({
      kind: 'authenticated',
      user: { name: 'system:anonymous', groups: ['system:unauthenticated'] },
    });
    expect(await unionAuthenticator([], { anonymous: true }).authenticate(request())).toMatchObject({ user: { name: 'system:anonymous' } });
  });

  it('keeps a failure a failure with anonymous on, and turns a rejecting authenticator into one', async () => {
    const throwing: Authenticator = { authenticate: () => Promise.reject(new Error('boom')) };
    const union = unionAuthenticator([fixed({ kind: 'failed', message: 'invalid bearer token' }), throwing], { anonymous: true });
    expect(await union.authenticate(request())).toEqual({ kind: 'failed', message: '[invalid bearer token, boom]' });
  });
});
