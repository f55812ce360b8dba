import { ConfigMapSchema, SecretSchema, decodeConfigMap, decodeSecret } from './config-objects.js';
import { TokenRequestSchema } from './token-request.js';

describe('ConfigMap and Secret', () => {
  it('decodes binaryData and Secret data from base64, stringData over data, Opaque by default', () => {
    const cm = ConfigMapSchema.parse({
      metadata: { name: 'cfg', namespace: 'ns' },
      data: { a: 'x' },
      binaryData: { b: Buffer.from([0, 1, 2]).toString('base64') },
    });
    expect(decodeConfigMap(cm)).toEqual({ namespace: 'ns', name: 'cfg', data: { a: 'x' }, binaryData: { b: Buffer.from([0, 1, 2]) } });
    const secret = SecretSchema.parse({
      metadata: { name: 's', namespace: 'ns' },
      data: { user: Buffer.from('root').toString('base64'), pw: Buffer.from('old').toString('base64') },
      stringData: { pw: 'new' },
    });
    expect(decodeSecret(secret)).toEqual({
      namespace: 'ns',
      name: 's',
      type: 'Opaque',
      data: { user: Buffer.from('root'), pw: Buffer.from('new') },
    });
  });

  it('rejects values that are not base64 and immutable that is not a boolean, naming the field', () => {
    const bad = SecretSchema.safeParse({ metadata: { name: 's' }, data: { k: 'not base64!' } });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['data', 'k']);
    expect(ConfigMapSchema.safeParse({ metadata: { name: 'c' }, immutable: 'yes' }).error?.issues[0]?.path).toEqual(['immutable']);
  });

  it('parses a TokenRequest answer with its status', () => {
    const tr = TokenRequestSchema.parse({
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: { audiences: ['api'], expirationSeconds: 3600, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p', uid: 'u' } },
      status: { token: 'jwt', expirationTimestamp: '2026-01-01T01:00:00Z' },
    });
    expect(tr.status?.token).toBe('jwt');
    expect(TokenRequestSchema.safeParse({ spec: {}, status: { token: 'x' } }).success).toBe(false);
  });
});
