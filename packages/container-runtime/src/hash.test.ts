import type { Container, Pod } from '@kubelet-ts/api';
import { backoffKey, hashContainer } from './hash.js';

describe('hashContainer', () => {
  // pkg/kubelet/container/helpers_test.go (1.34): TestHashContainer and TestHashContainerWithoutResources.
  it("matches the upstream kubelet's own test vectors", () => {
    const testContainer: Container = {
      name: 'test_container',
      image: 'foo/image:v1',
      args: ['/bin/sh', '-c', 'echo abc'],
      ports: [{ containerPort: 8001 }],
    };
    expect(hashContainer(testContainer)).toBe('8e45cbd0');
    const resized: Container = {
      name: 'foo',
      image: 'bar',
      resources: { limits: { cpu: '200m', memory: '200Mi' }, requests: { cpu: '100m', memory: '100Mi' } },
      resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'RestartContainer' }],
    };
    expect(hashContainer(resized)).toBe('11a6d6d6');
  });

  it('depends on the name and the image only, as upstream since 1.31', () => {
    const a = hashContainer({ name: 'c', image: 'busybox', command: ['sleep', '1'] });
    expect(hashContainer({ name: 'c', image: 'busybox', command: ['sleep', '2'], env: [{ name: 'X', value: '1' }] })).toBe(a);
    expect(hashContainer({ name: 'c', image: 'busybox:2', command: ['sleep', '1'] })).not.toBe(a);
    expect(hashContainer({ name: 'd', image: 'busybox', command: ['sleep', '1'] })).not.toBe(a);
    expect(a).toMatch(/^[0-9a-f]{1,8}$/);
  });

  it('backoffKey is name_namespace_uid_container_hash', () => {
    const app = { name: 'app', image: 'busybox' };
    const pod: Pod = { metadata: { name: 'web', namespace: 'prod', uid: 'u-1' }, spec: { containers: [app] } };
    expect(backoffKey(pod, app)).toBe(`web_prod_u-1_app_${hashContainer(app)}`);
  });
});
