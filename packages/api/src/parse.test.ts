import { MAX_NESTING_DEPTH, findTooDeep, formatIssue, formatPath, parsePod } from './parse.js';
import type { PodIssue } from './parse.js';

const manifest = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', creationTimestamp: null },
  spec,
  ...extra,
});

const errorsOf = (input: unknown, source = 'web.yaml'): string[] => {
  const result = parsePod(input, source);
  if (result.ok) throw new Error('expected parse to fail');
  return result.errors.map(formatIssue);
};

describe('parsePod', () => {
  it('returns a defaulted pod for a valid manifest, keeping unknown fields', () => {
    const result = parsePod(
      manifest({ containers: [{ name: 'app', image: 'nginx:1.25', futureField: { a: 1 } }], futureSpec: true }),
      'web.yaml',
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.pod.metadata.namespace).toBe('default');
    expect(result.pod.spec.restartPolicy).toBe('Always');
    expect(result.pod.spec.containers[0]?.futureField).toEqual({ a: 1 });
    expect(result.pod.spec.futureSpec).toBe(true);
    expect(result.pod.metadata.creationTimestamp).toBeUndefined();
  });

  it('names source, field path and reason for an invalid container name', () => {
    expect(errorsOf(manifest({ containers: [{ name: 'Foo', image: 'nginx' }] }))).toEqual([
      expect.stringMatching(/^web\.yaml: spec\.containers\[0\]\.name: Invalid value "Foo": must be a DNS-1123 label/),
    ]);
  });

  it('reports type errors from the schema with the path and what was expected', () => {
    expect(errorsOf(manifest({ containers: [{ name: 'a', image: 'x', ports: [{ containerPort: '80' }] }] }))).toEqual([
      'web.yaml: spec.containers[0].ports[0].containerPort: Invalid value "80": expected an integer, got a string',
    ]);
    expect(errorsOf(manifest({ containers: [{ image: 'x' }] }))).toEqual(['web.yaml: spec.containers[0].name: Required value']);
    expect(errorsOf(manifest({ containers: [{ name: 'a', image: 'x', livenessProbe: { tcpSocket: { port: true } } }] }))).toEqual([
      'web.yaml: spec.containers[0].livenessProbe.tcpSocket.port: Invalid value true: expected an integer or a string, got a boolean',
    ]);
  });

  it('rejects invalid quantities with the resource name in the path', () => {
    expect(errorsOf(manifest({ containers: [{ name: 'a', image: 'x', resources: { limits: { memory: '1GB' } } }] }))).toEqual([
      expect.stringContaining('web.yaml: spec.containers[0].resources.limits[memory]: Invalid value "1GB": quantities must match'),
    ]);
  });

  it('requires kind Pod and apiVersion v1 unless told otherwise', () => {
    expect(errorsOf({ ...manifest({ containers: [{ name: 'a', image: 'x' }] }), kind: 'Deployment', apiVersion: 'apps/v1' })).toEqual([
      'web.yaml: kind: Invalid value "Deployment": must be "Pod"',
      'web.yaml: apiVersion: Invalid value "apps/v1": must be "v1"',
    ]);
    expect(errorsOf({ metadata: { name: 'a' } })[0]).toContain("kind: Required value: Object 'Kind' is missing");
    const item = parsePod({ metadata: { name: 'a' }, spec: { containers: [{ name: 'a', image: 'x' }] } }, 'list', {
      requireTypeMeta: false,
    });
    expect(item.ok).toBe(true);
  });

  it('rejects input that is not an object', () => {
    expect(errorsOf('hello')).toEqual(['web.yaml: Invalid value: expected a Pod object, got a string']);
    expect(errorsOf([1])).toEqual(['web.yaml: Invalid value: expected a Pod object, got an array']);
  });

  it('reports a pod without containers', () => {
    expect(errorsOf(manifest({}))).toEqual(['web.yaml: spec.containers: Required value']);
    expect(errorsOf({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' } })).toEqual(['web.yaml: spec.containers: Required value']);
  });
});

describe('formatIssue and formatPath', () => {
  it('prints source: path: reason, and omits an empty path', () => {
    const issue: PodIssue = { source: '/etc/kubernetes/manifests/a.yaml', path: 'spec', reason: 'Required value' };
    expect(formatIssue(issue)).toBe('/etc/kubernetes/manifests/a.yaml: spec: Required value');
    expect(formatIssue({ ...issue, path: '' })).toBe('/etc/kubernetes/manifests/a.yaml: Required value');
  });

  it('prints indexes and map keys in brackets', () => {
    expect(formatPath(['spec', 'containers', 2, 'resources', 'limits', 'nvidia.com/gpu'])).toBe(
      'spec.containers[2].resources.limits[nvidia.com/gpu]',
    );
    expect(formatPath(['metadata', 'labels', 'app'])).toBe('metadata.labels[app]');
  });
});

describe('parsePod nesting limit', () => {
  // Found by the static manifest fuzzer: an unknown field nested 2 000 levels deep overflowed the
  // stack (stripNulls, structuredClone) and the RangeError escaped parsePod.
  it('refuses an object nested deeper than MAX_NESTING_DEPTH, naming where, instead of overflowing the stack', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 50_000; i++) deep = { a: deep };
    expect(errorsOf(manifest({ containers: [{ name: 'app', image: 'nginx' }] }, { extra: deep }))).toEqual([
      `web.yaml: extra.a.a.a.a.a.a.a…: Invalid value: nested more than ${MAX_NESTING_DEPTH} levels deep`,
    ]);
    let deepArray: unknown = [];
    for (let i = 0; i < 50_000; i++) deepArray = [deepArray];
    const result = parsePod(manifest({ containers: [{ name: 'app', image: 'nginx', args: deepArray }] }), 'web.yaml');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.map((e) => e.path)).toEqual(['spec.containers[0].args[0][0][0][0]…']);
  });

  it('accepts objects up to MAX_NESTING_DEPTH levels', () => {
    let deep: unknown = 1;
    for (let i = 0; i < MAX_NESTING_DEPTH - 2; i++) deep = { a: deep };
    expect(findTooDeep({ x: deep }, MAX_NESTING_DEPTH)).toBeUndefined();
    expect(parsePod(manifest({ containers: [{ name: 'app', image: 'nginx' }] }, { extra: deep }), 'web.yaml').ok).toBe(true);
  });
});
