import type { ConfigMap, Secret } from '@kubelet-ts/api';
import { newPod } from '@kubelet-ts/api/testing';
import { FakeClock } from '@kubelet-ts/common/testing';
import { createObjectSource, createServiceAccountTokenSource } from './adapters.js';
import { FakeObjectManager, FakeTokenRequestApi } from './testing/index.js';
import { createTokenManager } from './token-manager.js';

describe('adapters', () => {
  it('decodes ConfigMap binaryData and Secret data to Buffers; absent is undefined', async () => {
    const configMaps = new FakeObjectManager<ConfigMap>();
    const secrets = new FakeObjectManager<Secret>();
    configMaps.set({ metadata: { name: 'cm', namespace: 'ns', uid: '' }, data: { a: 'x' }, binaryData: { b: 'AAEC' } });
    secrets.set({ metadata: { name: 's', namespace: 'ns', uid: '' }, data: { pw: Buffer.from('secret').toString('base64') } });
    const source = createObjectSource({ configMaps, secrets });
    expect(await source.getConfigMap('ns', 'cm')).toEqual({
      namespace: 'ns',
      name: 'cm',
      data: { a: 'x' },
      binaryData: { b: Buffer.from([0, 1, 2]) },
    });
    expect(await source.getSecret('ns', 's')).toEqual({ namespace: 'ns', name: 's', type: 'Opaque', data: { pw: Buffer.from('secret') } });
    expect(await source.getConfigMap('ns', 'nope')).toBeUndefined();
    expect(await source.getSecret('ns', 'nope')).toBeUndefined();
  });

  it('requests a token of the pod service account bound to the pod, the audience only when set', async () => {
    const clock = new FakeClock();
    const api = new FakeTokenRequestApi(clock);
    const tokens = createTokenManager({ api, clock, random: () => 0 });
    const source = createServiceAccountTokenSource(tokens);
    const pod = newPod({ name: 'web', namespace: 'shop', uid: 'u1', spec: { serviceAccountName: 'builder' } });
    expect(await source.getServiceAccountToken(pod, { audience: '', expirationSeconds: 3607 })).toBe('token-1');
    expect(await source.getServiceAccountToken(pod, { audience: 'vault', expirationSeconds: 3607 })).toBe('token-2');
    expect(api.calls.map((c) => [c.namespace, c.serviceAccount, c.tokenRequest.spec])).toEqual([
      ['shop', 'builder', { expirationSeconds: 3607, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'web', uid: 'u1' } }],
      [
        'shop',
        'builder',
        { audiences: ['vault'], expirationSeconds: 3607, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'web', uid: 'u1' } },
      ],
    ]);
    await expect(source.getServiceAccountToken(newPod({ name: 'x' }), { audience: '', expirationSeconds: 600 })).rejects.toMatchObject({
      code: 'TOKEN_REQUEST',
    });
    tokens.stop();
  });
});
