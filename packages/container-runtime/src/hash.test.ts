import type { Pod } from '@kubelet-ts/api';
import { backoffKey, hashContainer } from './hash.js';
import { fnv1a32 } from './internal/fnv.js';

describe('hashContainer', () => {
  it('is FNV-1a 32 (known vectors)', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
  });

  it('is stable across key order and empty fields, and changes when the spec changes', () => {
    const a = hashContainer({ name: 'c', image: 'busybox', command: ['sleep', '1'] });
    const b = hashContainer({ command: ['sleep', '1'], image: 'busybox', name: 'c', args: [], env: undefined });
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{1,8}$/);
    expect(hashContainer({ name: 'c', image: 'busybox', command: ['sleep', '2'] })).not.toBe(a);
    expect(hashContainer({ name: 'c', image: 'busybox:2', command: ['sleep', '1'] })).not.toBe(a);
  });

  it('backoffKey is name_namespace_uid_container_hash', () => {
    const app = { name: 'app', image: 'busybox' };
    const pod: Pod = { metadata: { name: 'web', namespace: 'prod', uid: 'u-1' }, spec: { containers: [app] } };
    expect(backoffKey(pod, app)).toBe(`web_prod_u-1_app_${hashContainer(app)}`);
  });
});
