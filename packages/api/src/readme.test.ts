// The README's usage snippet, run as a test so it cannot rot.
import { formatIssue, getPodQOSClass, parsePod, podFullName, quantityMilliValue, Reason } from './index.js';
import type { Pod } from './index.js';
import { newPod } from './testing/index.js';

describe('README usage', () => {
  it('parses, defaults and inspects a manifest as shown', () => {
    const manifest: unknown = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web' },
      spec: { containers: [{ name: 'app', image: 'nginx:1.25', resources: { limits: { cpu: '500m', memory: '64Mi' } } }] },
    };
    const result = parsePod(manifest, '/etc/kubernetes/manifests/web.yaml');
    if (!result.ok) throw new Error(result.errors.map(formatIssue).join('\n'));
    const pod: Pod = result.pod;
    expect(podFullName(pod)).toBe('web_default');
    expect(getPodQOSClass(pod)).toBe('Guaranteed');
    expect(quantityMilliValue(pod.spec.containers[0]?.resources?.limits?.cpu ?? 0)).toBe(500);
    expect(Reason.CrashLoopBackOff).toBe('CrashLoopBackOff');
  });

  it('prints the error lines shown', () => {
    const result = parsePod(
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'web' },
        spec: { containers: [{ name: 'Foo', image: 'nginx', livenessProbe: { exec: { command: ['true'] }, successThreshold: 2 } }] },
      },
      '/etc/kubernetes/manifests/web.yaml',
    );
    expect(result.ok ? [] : result.errors.map(formatIssue)).toEqual([
      `/etc/kubernetes/manifests/web.yaml: spec.containers[0].name: Invalid value "Foo": must be a DNS-1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit`,
      '/etc/kubernetes/manifests/web.yaml: spec.containers[0].livenessProbe.successThreshold: Invalid value 2: must be 1',
    ]);
  });

  it('builds test pods with newPod', () => {
    const pod = newPod({ name: 'web', containers: [{ name: 'app', image: 'nginx:1.25' }], spec: { restartPolicy: 'Never' } });
    expect(pod.metadata.uid).toBe('uid-web');
    expect(pod.spec.restartPolicy).toBe('Never');
    expect(pod.spec.containers[0]?.imagePullPolicy).toBe('IfNotPresent');
  });
});
