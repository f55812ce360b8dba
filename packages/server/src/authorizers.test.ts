import { FakeClock } from '@kubelet-ts/common/testing';
import type { UserInfo } from './auth.js';
import { alwaysAllowAuthorizer, createWebhookAuthorizer, nodeRequestAttributes, subjectAccessReviewFor } from './authorizers.js';
import { FakeSubjectAccessReviewer } from './testing/fake-reviewers.js';

const alice: UserInfo = { name: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a'] } };
const subresources = (method: string, path: string): string[] =>
  nodeRequestAttributes(alice, method, path, 'node-1').map((a) => a.subresource);

describe('nodeRequestAttributes', () => {
  it('fills the upstream attribute record for nodes/<name>', () => {
    expect(nodeRequestAttributes(alice, 'GET', '/stats/summary', 'node-1')).toEqual([
      {
        user: alice,
        verb: 'get',
        namespace: '',
        apiGroup: '',
        apiVersion: 'v1',
        resource: 'nodes',
        subresource: 'stats',
        name: 'node-1',
        resourceRequest: true,
        path: '/stats/summary',
      },
    ]);
  });

  it.each([
    ['POST', 'create'],
    ['GET', 'get'],
    ['PUT', 'update'],
    ['PATCH', 'patch'],
    ['DELETE', 'delete'],
    ['HEAD', ''],
    ['OPTIONS', ''],
  ])('maps %s to the verb %j', (method, verb) => {
    expect(nodeRequestAttributes(alice, method, '/exec/ns/p/c', 'n').map((a) => a.verb)).toEqual([verb]);
  });

  it.each([
    ['/pods', ['pods', 'proxy']],
    ['/pods/', ['pods', 'proxy']],
    ['/healthz', ['healthz', 'proxy']],
    ['/healthz/syncloop', ['healthz', 'proxy']],
    ['/configz', ['configz', 'proxy']],
    ['/runningpods', ['pods', 'proxy']],
    ['/runningpods/', ['pods', 'proxy']],
    ['/stats', ['stats']],
    ['/stats/summary', ['stats']],
    ['/metrics', ['metrics']],
    ['/metrics/cadvisor', ['metrics']],
    ['/logs/', ['log']],
    ['/logs/messages', ['log']],
    ['/checkpoint/ns/p/c', ['checkpoint']],
    ['/statusz', ['statusz']],
    ['/flagz', ['configz']],
    ['/containerLogs/ns/p/c', ['proxy']],
    ['/exec/ns/p/c', ['proxy']],
    // /debug/pprof/ and /debug/flags/v have no subresource of their own upstream.
    ['/debug/pprof/profile', ['proxy']],
    ['/debug/flags/v', ['proxy']],
    ['/spec/', ['proxy']],
    ['/', ['proxy']],
    // isSubpath is the path itself or below it, never a longer name
    ['/podsx', ['proxy']],
    ['/statsfoo', ['proxy']],
    ['/metricsz', ['proxy']],
    ['/healthzz', ['proxy']],
    ['/runningpodsx', ['proxy']],
  ])('authorizes %s as nodes/%j', (path, expected) => {
    expect(subresources('GET', path)).toEqual(expected);
  });
});

describe('subjectAccessReviewFor', () => {
  it('builds the authorization.k8s.io/v1 review upstream posts, omitting empty fields', () => {
    const [attrs] = nodeRequestAttributes({ name: 'bob', groups: [] }, 'GET', '/pods', 'node-1');
    expect(subjectAccessReviewFor(attrs!)).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { resourceAttributes: { verb: 'get', version: 'v1', resource: 'nodes', subresource: 'pods', name: 'node-1' }, user: 'bob' },
    });
    const [full] = nodeRequestAttributes(alice, 'POST', '/exec/a/b/c', 'node-1');
    expect(subjectAccessReviewFor(full!).spec).toEqual({
      resourceAttributes: { verb: 'create', version: 'v1', resource: 'nodes', subresource: 'proxy', name: 'node-1' },
      user: 'alice',
      groups: ['devs', 'system:authenticated'],
      extra: { scopes: ['a'] },
      uid: 'u-1',
    });
  });
});

describe('alwaysAllowAuthorizer', () => {
  it('allows everything', async () => {
    const [attrs] = nodeRequestAttributes(alice, 'DELETE', '/anything', 'n');
    expect(await alwaysAllowAuthorizer.authorize(attrs!)).toEqual({ decision: 'allow', reason: '' });
  });
});

describe('createWebhookAuthorizer', () => {
  const attrsFor = (path: string, user: UserInfo = alice) => nodeRequestAttributes(user, 'GET', path, 'node-1')[0]!;

  it('maps allowed, denied and neither to allow, deny and no-opinion, with the reason', async () => {
    const reviewer = new FakeSubjectAccessReviewer((sar) => {
      const sub = (sar.spec.resourceAttributes as { subresource: string }).subresource;
      if (sub === 'stats') return { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "x"' };
      if (sub === 'log') return { allowed: false, denied: true, reason: 'explicitly denied' };
      return { allowed: false };
    });
    const authorizer = createWebhookAuthorizer({ reviewer, clock: new FakeClock() });
    expect(await authorizer.authorize(attrsFor('/stats/summary'))).toEqual({
      decision: 'allow',
      reason: 'RBAC: allowed by ClusterRoleBinding "x"',
    });
    expect(await authorizer.authorize(attrsFor('/logs/x'))).toEqual({ decision: 'deny', reason: 'explicitly denied' });
    expect(await authorizer.authorize(attrsFor('/metrics'))).toEqual({ decision: 'no-opinion', reason: '' });
    expect(reviewer.calls[0]).toMatchObject({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: 'alice' },
    });
  });

  it('caches allowed answers for 5 minutes and the others for 30 seconds, by the review spec', async () => {
    const clock = new FakeClock();
    const reviewer = new FakeSubjectAccessReviewer((sar) => ({
      allowed: (sar.spec.resourceAttributes as { subresource: string }).subresource === 'stats',
    }));
    const authorizer = createWebhookAuthorizer({ reviewer, clock });
    const allowed = attrsFor('/stats/summary');
    const denied = attrsFor('/metrics');
    await authorizer.authorize(allowed);
    await authorizer.authorize(denied);
    await authorizer.authorize(allowed);
    await authorizer.authorize(denied);
    expect(reviewer.calls).toHaveLength(2);
    // Another user is another review.
    await authorizer.authorize(attrsFor('/stats/summary', { name: 'bob', groups: [] }));
    expect(reviewer.calls).toHaveLength(3);

    await clock.advance(30_000);
    await authorizer.authorize(allowed);
    await authorizer.authorize(denied);
    expect(reviewer.calls).toHaveLength(4); // only the denial was asked again

    await clock.advance(270_000);
    await authorizer.authorize(allowed);
    expect(reviewer.calls).toHaveLength(5);
  });

  it('honours custom TTLs', async () => {
    const clock = new FakeClock();
    const reviewer = new FakeSubjectAccessReviewer(() => ({ allowed: true }));
    const authorizer = createWebhookAuthorizer({ reviewer, clock, authorizedTtlMs: 1_000 });
    await authorizer.authorize(attrsFor('/pods'));
    await clock.advance(999);
    await authorizer.authorize(attrsFor('/pods'));
    expect(reviewer.calls).toHaveLength(1);
    await clock.advance(1);
    await authorizer.authorize(attrsFor('/pods'));
    expect(reviewer.calls).toHaveLength(2);
  });

  it('rejects on a reviewer error, a reply that is not a review, or allowed and denied at once, caching no error', async () => {
    const clock = new FakeClock();
    const reviewer = new FakeSubjectAccessReviewer(() => ({ allowed: true }));
    const authorizer = createWebhookAuthorizer({ reviewer, clock });
    reviewer.failWith(new Error('connection refused'));
    await expect(authorizer.authorize(attrsFor('/pods'))).rejects.toMatchObject({
      code: 'WEBHOOK_FAILED',
      message: 'subject access review failed: connection refused',
    });
    reviewer.failWith(undefined);
    expect(await authorizer.authorize(attrsFor('/pods'))).toMatchObject({ decision: 'allow' });

    const broken = createWebhookAuthorizer({ reviewer: { review: () => Promise.resolve({ status: { allowed: 'yes' } }) }, clock });
    await expect(broken.authorize(attrsFor('/pods'))).rejects.toThrow('not a SubjectAccessReview at status.allowed');
    const both = createWebhookAuthorizer({ reviewer: new FakeSubjectAccessReviewer(() => ({ allowed: true, denied: true })), clock });
    await expect(both.authorize(attrsFor('/pods'))).rejects.toThrow('returned both allow and deny response');
  });
});
