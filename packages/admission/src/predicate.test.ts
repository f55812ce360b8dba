import type { Node, Pod } from '@kubelet-ts/api';
import { ConfigSourceAnnotationKey, PodSchema } from '@kubelet-ts/api';
import { RecordingLogger } from '@kubelet-ts/common/testing';
import { createPredicateAdmitHandler } from './index.js';
import type { PodAdmitResult } from './index.js';
import { testNode } from './testing/index.js';

/** A pod as the pod sources hand it over: parsed by the shared schema. */
function pod(spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): Pod {
  return PodSchema.parse({
    metadata: { name: 'web', namespace: 'default', uid: 'uid-web', ...metadata },
    spec: { containers: [{ name: 'app', image: 'nginx' }], ...spec },
  });
}

/** One container with these requests. */
function requesting(requests: Record<string, string>, extra: Record<string, unknown> = {}): Pod {
  return pod({ containers: [{ name: 'app', image: 'nginx', resources: { requests } }], ...extra });
}

function other(name: string, spec: Record<string, unknown> = {}, status?: Record<string, unknown>): Pod {
  return PodSchema.parse({
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: { containers: [{ name: 'app', image: 'nginx' }], ...spec },
    ...(status !== undefined ? { status } : {}),
  });
}

/** A container status with what the schema requires besides what a test sets. */
const containerStatus = (fields: Record<string, unknown>): Record<string, unknown> => ({
  ready: true,
  restartCount: 0,
  image: 'nginx',
  imageID: 'sha256:1',
  ...fields,
});

function admit(p: Pod, node: Node = testNode(), otherPods: Pod[] = []): PodAdmitResult {
  return createPredicateAdmitHandler({ getNode: () => node }).admit({ pod: p, otherPods });
}

const refused = (reason: string, message: string): PodAdmitResult => ({ admit: false, reason, message });
const predicate = (name: string, why: string): PodAdmitResult => refused(name, `Predicate ${name} failed: ${why}`);
const NODE_AFFINITY = predicate('NodeAffinity', "node(s) didn't match Pod's node affinity/selector");
const NODE_NAME = predicate('NodeName', "node(s) didn't match the requested node name");
const NODE_PORTS = predicate('NodePorts', "node(s) didn't have free ports for the requested pod ports");
const TAINTS = predicate('TaintToleration', "node(s) had taints that the pod didn't tolerate");
const notEnough = (resource: string, requested: string | number, used: string | number, capacity: string | number): string =>
  `Node didn't have enough resource: ${resource}, requested: ${requested}, used: ${used}, capacity: ${capacity}`;

describe('node info', () => {
  it('refuses with InvalidNodeInfo when the node is unknown or cannot be read', () => {
    const expected = refused('InvalidNodeInfo', 'Kubelet cannot get node info.');
    const logger = new RecordingLogger();
    expect(createPredicateAdmitHandler({ getNode: () => undefined }).admit({ pod: pod(), otherPods: [] })).toEqual(expected);
    const throwing = createPredicateAdmitHandler({
      logger,
      getNode: () => {
        throw new Error('no informer yet');
      },
    });
    expect(throwing.admit({ pod: pod(), otherPods: [] })).toEqual(expected);
    expect(logger.find('Cannot get Node info')[0]?.fields).toMatchObject({ err: 'no informer yet' });
  });

  it('admits a pod that fits an empty node', () => {
    expect(admit(requesting({ cpu: '1', memory: '1Gi' }))).toEqual({ admit: true });
  });
});

describe('OS checks (before anything else)', () => {
  it.each<[string, Pod, PodAdmitResult]>([
    [
      'a kubernetes.io/os pod label other than the kubelet OS',
      pod({}, { labels: { 'kubernetes.io/os': 'windows' } }),
      refused('PodOSSelectorNodeLabelDoesNotMatch', "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label"),
    ],
    ['the kubelet OS in the pod label', pod({}, { labels: { 'kubernetes.io/os': 'linux' } }), { admit: true }],
    [
      'spec.os of another OS',
      pod({ os: { name: 'windows' } }),
      refused('PodOSNotSupported', "Failed to admit pod as the OS field doesn't match node OS"),
    ],
    ['spec.os linux', pod({ os: { name: 'linux' } }), { admit: true }],
  ])('%s', (_name, p, expected) => {
    expect(admit(p)).toEqual(expected);
  });

  it('compares the pod label with the kubelet OS even when the node label says otherwise (as upstream)', () => {
    const node = testNode({ labels: { 'kubernetes.io/os': 'windows' } });
    expect(admit(pod({}, { labels: { 'kubernetes.io/os': 'linux' } }), node)).toEqual({ admit: true });
    expect(
      createPredicateAdmitHandler({ getNode: () => node, os: 'windows' }).admit({ pod: pod({ os: { name: 'windows' } }), otherPods: [] }),
    ).toEqual({ admit: true });
  });

  it('checks the label, then spec.os, before the resources', () => {
    const big = requesting({ cpu: '64' }, { os: { name: 'windows' } });
    expect(admit(big)?.reason).toBe('PodOSNotSupported');
    const labelled = PodSchema.parse({ ...big, metadata: { ...big.metadata, labels: { 'kubernetes.io/os': 'windows' } } });
    expect(admit(labelled)?.reason).toBe('PodOSSelectorNodeLabelDoesNotMatch');
  });
});

describe('supplementalGroupsPolicy', () => {
  const strict = pod({ securityContext: { supplementalGroupsPolicy: 'Strict' } });
  it.each<[string, Pod, Node, PodAdmitResult]>([
    [
      'Strict on a node without the feature',
      strict,
      testNode(),
      refused('SupplementalGroupsPolicyNotSupported', 'SupplementalGroupsPolicy=Strict is not supported in this node'),
    ],
    [
      'Strict on a node that reports false',
      strict,
      testNode({ supplementalGroupsPolicy: false }),
      refused('SupplementalGroupsPolicyNotSupported', 'SupplementalGroupsPolicy=Strict is not supported in this node'),
    ],
    ['Strict on a node with the feature', strict, testNode({ supplementalGroupsPolicy: true }), { admit: true }],
    ['Merge anywhere', pod({ securityContext: { supplementalGroupsPolicy: 'Merge' } }), testNode(), { admit: true }],
  ])('%s', (_name, p, node, expected) => {
    expect(admit(p, node)).toEqual(expected);
  });
});

describe('node resources (noderesources Fits)', () => {
  const node = testNode({
    allocatable: { cpu: '4', memory: '8Gi', 'ephemeral-storage': '10Gi', pods: '3', 'hugepages-2Mi': '1Gi', 'example.com/gpu': '2' },
  });
  const busy = other('busy', {
    containers: [
      {
        name: 'app',
        image: 'nginx',
        resources: { requests: { cpu: '3', memory: '6Gi', 'ephemeral-storage': '8Gi', 'hugepages-2Mi': '512Mi', 'example.com/gpu': '1' } },
      },
    ],
  });

  it.each<[string, Pod, PodAdmitResult]>([
    ['cpu in millicores', requesting({ cpu: '1500m' }), refused('OutOfcpu', notEnough('cpu', 1500, 3000, 4000))],
    ['memory in bytes', requesting({ memory: '3Gi' }), refused('OutOfmemory', notEnough('memory', 3221225472, 6442450944, 8589934592))],
    [
      'ephemeral storage',
      requesting({ 'ephemeral-storage': '4Gi' }),
      refused('OutOfephemeral-storage', notEnough('ephemeral-storage', 4294967296, 8589934592, 10737418240)),
    ],
    [
      'hugepages',
      requesting({ 'hugepages-2Mi': '1Gi' }),
      refused('OutOfhugepages-2Mi', notEnough('hugepages-2Mi', 1073741824, 536870912, 1073741824)),
    ],
    [
      'an extended resource the node advertises',
      requesting({ 'example.com/gpu': '2' }),
      refused('OutOfexample.com/gpu', notEnough('example.com/gpu', 2, 1, 2)),
    ],
    ['what is left exactly', requesting({ cpu: '1', memory: '2Gi', 'example.com/gpu': '1' }), { admit: true }],
    [
      'an extended resource the node does not advertise (ignored, removeMissingExtendedResources)',
      requesting({ 'example.com/fpga': '8' }),
      { admit: true },
    ],
    [
      'hugepages the node does not have (not extended: counted against 0)',
      requesting({ 'hugepages-1Gi': '1Gi' }),
      refused('OutOfhugepages-1Gi', notEnough('hugepages-1Gi', 1073741824, 0, 0)),
    ],
  ])('%s', (_name, p, expected) => {
    expect(admit(p, node, [busy])).toEqual(expected);
  });

  it('refuses the pod over allocatable pods with OutOfpods, before any other resource', () => {
    const full = [busy, other('b'), other('c')];
    expect(admit(pod(), node, full)).toEqual(refused('OutOfpods', notEnough('pods', 1, 3, 3)));
    expect(admit(requesting({ cpu: '2' }), node, full)?.reason).toBe('OutOfpods');
    expect(admit(pod(), node, [busy, other('b')])).toEqual({ admit: true });
  });

  it('reports cpu before memory, memory before ephemeral storage, and scalar resources by name', () => {
    expect(admit(requesting({ cpu: '2', memory: '4Gi' }), node, [busy])?.reason).toBe('OutOfcpu');
    expect(admit(requesting({ memory: '4Gi', 'ephemeral-storage': '4Gi' }), node, [busy])?.reason).toBe('OutOfmemory');
    expect(admit(requesting({ 'hugepages-2Mi': '1Gi', 'example.com/gpu': '2' }), node, [busy])?.reason).toBe('OutOfexample.com/gpu');
  });

  it('ignores missing extended resources in init containers too, but counts them when the node has them', () => {
    const init = (requests: Record<string, string>): Pod =>
      pod({ initContainers: [{ name: 'init', image: 'busybox', resources: { requests } }] });
    expect(admit(init({ 'example.com/fpga': '1' }), node, [busy])).toEqual({ admit: true });
    expect(admit(init({ 'example.com/gpu': '2' }), node, [busy])?.reason).toBe('OutOfexample.com/gpu');
  });

  it('counts a node without allocatable as having room for nothing', () => {
    const bare: Node = { metadata: { name: 'node-a' } };
    expect(admit(pod(), bare)).toEqual(refused('OutOfpods', notEnough('pods', 1, 0, 0)));
  });
});

describe('pod requests as upstream computes them', () => {
  const node = (cpu: string): Node => testNode({ allocatable: { cpu } });
  const app = (cpu: string, name = 'app'): Record<string, unknown> => ({ name, image: 'nginx', resources: { requests: { cpu } } });
  const sidecar = (cpu: string): Record<string, unknown> => ({ ...app(cpu, 'sidecar'), restartPolicy: 'Always' });

  it.each<[string, Record<string, unknown>, number]>([
    ['containers summed', { containers: [app('500m'), app('500m', 'b')] }, 1000],
    [
      'the largest init container when larger than the containers',
      { containers: [app('500m')], initContainers: [app('1500m', 'i1'), app('700m', 'i2')] },
      1500,
    ],
    ['the containers when larger than any init container', { containers: [app('2')], initContainers: [app('1500m', 'i1')] }, 2000],
    [
      'a sidecar with the containers and under the init containers after it',
      { containers: [app('500m'), app('500m', 'b')], initContainers: [sidecar('200m'), app('1500m', 'i1')], overhead: { cpu: '250m' } },
      1950,
    ],
    [
      'an init container before the sidecar does not run beside it',
      { containers: [app('500m'), app('500m', 'b')], initContainers: [app('1500m', 'i1'), sidecar('200m')], overhead: { cpu: '250m' } },
      1750,
    ],
    ['pod overhead added', { containers: [app('1')], overhead: { cpu: '100m' } }, 1100],
    [
      'pod-level requests override the containers',
      { containers: [app('1')], resources: { requests: { cpu: '3' } }, overhead: { cpu: '100m' } },
      3100,
    ],
  ])('%s', (_name, spec, requested) => {
    expect(admit(pod(spec), node('1m'))).toEqual(refused('OutOfcpu', notEnough('cpu', requested, 0, 1)));
    expect(admit(pod(spec), node(`${requested}m`))).toEqual({ admit: true });
  });

  it('counts what other pods request, and a resized pod by its larger status resources', () => {
    const spec = { containers: [app('1')] };
    const resized = other('resized', spec, {
      containerStatuses: [containerStatus({ name: 'app', resources: { requests: { cpu: '2' } }, allocatedResources: { cpu: '1500m' } })],
    });
    expect(admit(requesting({ cpu: '3' }), node('4'), [other('plain', spec)])).toEqual({ admit: true });
    expect(admit(requesting({ cpu: '3' }), node('4'), [resized])).toEqual(refused('OutOfcpu', notEnough('cpu', 3000, 2000, 4000)));
    const infeasible = other(
      'infeasible',
      { containers: [app('3')] },
      {
        conditions: [{ type: 'PodResizePending', status: 'True', reason: 'Infeasible' }],
        containerStatuses: [containerStatus({ name: 'app', resources: { requests: { cpu: '1' } }, allocatedResources: { cpu: '1' } })],
      },
    );
    // An infeasible resize up to 3 cpu never happens: the pod keeps what it runs with.
    expect(admit(requesting({ cpu: '3' }), node('4'), [infeasible])).toEqual({ admit: true });
    const pending = PodSchema.parse({ ...infeasible, status: { ...infeasible.status, conditions: [] } });
    expect(admit(requesting({ cpu: '3' }), node('4'), [pending])).toEqual(refused('OutOfcpu', notEnough('cpu', 3000, 3000, 4000)));
  });
});

describe('node affinity and nodeSelector', () => {
  const node = testNode({ name: 'node-a', labels: { zone: 'a', disk: 'ssd', cores: '8', 'kubernetes.io/os': 'linux' } });
  const required = (...terms: unknown[]): Pod =>
    pod({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } });
  const expr = (key: string, operator: string, values?: string[]): unknown => ({
    matchExpressions: [{ key, operator, ...(values ? { values } : {}) }],
  });

  it.each<[string, Pod, boolean]>([
    ['a nodeSelector the labels match', pod({ nodeSelector: { zone: 'a', disk: 'ssd' } }), true],
    ['a nodeSelector with one label different', pod({ nodeSelector: { zone: 'a', disk: 'hdd' } }), false],
    ['a nodeSelector on a missing label', pod({ nodeSelector: { gpu: 'yes' } }), false],
    ['In', required(expr('zone', 'In', ['b', 'a'])), true],
    ['In, no value matching', required(expr('zone', 'In', ['b'])), false],
    ['NotIn on another value', required(expr('zone', 'NotIn', ['b'])), true],
    ['NotIn on a missing label', required(expr('rack', 'NotIn', ['r1'])), true],
    ['NotIn on the value', required(expr('zone', 'NotIn', ['a'])), false],
    ['Exists', required(expr('disk', 'Exists')), true],
    ['Exists on a missing label', required(expr('gpu', 'Exists')), false],
    ['DoesNotExist', required(expr('gpu', 'DoesNotExist')), true],
    ['Gt', required(expr('cores', 'Gt', ['4'])), true],
    ['Gt, equal', required(expr('cores', 'Gt', ['8'])), false],
    ['Lt', required(expr('cores', 'Lt', ['16'])), true],
    ['Gt on a label that is not a number', required(expr('zone', 'Gt', ['1'])), false],
    [
      'expressions of a term all hold',
      required({
        matchExpressions: [
          { key: 'zone', operator: 'In', values: ['a'] },
          { key: 'disk', operator: 'In', values: ['hdd'] },
        ],
      }),
      false,
    ],
    ['any term holds', required(expr('zone', 'In', ['b']), expr('disk', 'In', ['ssd'])), true],
    ['matchFields metadata.name In', required({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-a'] }] }), true],
    [
      'matchFields metadata.name NotIn',
      required({ matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['node-a'] }] }),
      false,
    ],
    ['no terms select nothing', required(), false],
    ['an empty term selects nothing', required({}), false],
    ['a term with a bad operator is skipped, another matches', required(expr('zone', 'Near', ['a']), expr('zone', 'In', ['a'])), true],
    ['In without values selects nothing', required(expr('zone', 'In', [])), false],
    ['Exists with values selects nothing', required(expr('zone', 'Exists', ['a'])), false],
    ['Gt with a value that is not a number selects nothing', required(expr('cores', 'Gt', ['four'])), false],
    [
      'matchFields with two values selects nothing',
      required({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-a', 'node-b'] }] }),
      false,
    ],
    [
      'nodeSelector and affinity both needed',
      pod({
        nodeSelector: { zone: 'b' },
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [expr('zone', 'Exists')] } } },
      }),
      false,
    ],
    [
      'preferred affinity only',
      pod({
        affinity: {
          nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: expr('zone', 'In', ['b']) }] },
        },
      }),
      true,
    ],
  ])('%s', (_name, p, admitted) => {
    expect(admit(p, node)).toEqual(admitted ? { admit: true } : NODE_AFFINITY);
  });
});

describe('node name, host ports, taints', () => {
  it('refuses a pod bound to another node', () => {
    expect(admit(pod({ nodeName: 'node-b' }))).toEqual(NODE_NAME);
    expect(admit(pod({ nodeName: 'node-a' }))).toEqual({ admit: true });
  });

  const withPorts = (name: string, ports: Record<string, unknown>[], where: 'containers' | 'sidecar' | 'init' = 'containers'): Pod => {
    const c = { name: 'c', image: 'nginx', ports: ports.map((p) => ({ containerPort: 80, ...p })) };
    if (where === 'containers') return other(name, { containers: [c] });
    return other(name, { initContainers: [{ ...c, name: 'i', ...(where === 'sidecar' ? { restartPolicy: 'Always' } : {}) }] });
  };

  it.each<[string, Record<string, unknown>, Pod, boolean]>([
    ['the same port, both on every IP', { hostPort: 8080 }, withPorts('o', [{ hostPort: 8080 }]), false],
    ['the same port, another protocol', { hostPort: 8080, protocol: 'UDP' }, withPorts('o', [{ hostPort: 8080 }]), true],
    ['an empty protocol is TCP', { hostPort: 8080, protocol: 'TCP' }, withPorts('o', [{ hostPort: 8080, protocol: '' }]), false],
    ['an IP against 0.0.0.0', { hostPort: 8080, hostIP: '10.0.0.1' }, withPorts('o', [{ hostPort: 8080 }]), false],
    ['0.0.0.0 against an IP', { hostPort: 8080 }, withPorts('o', [{ hostPort: 8080, hostIP: '10.0.0.1' }]), false],
    ['two different IPs', { hostPort: 8080, hostIP: '10.0.0.2' }, withPorts('o', [{ hostPort: 8080, hostIP: '10.0.0.1' }]), true],
    ['the same IP', { hostPort: 8080, hostIP: '10.0.0.1' }, withPorts('o', [{ hostPort: 8080, hostIP: '10.0.0.1' }]), false],
    ['another port', { hostPort: 8081 }, withPorts('o', [{ hostPort: 8080 }]), true],
    ["a sidecar's host port is held", { hostPort: 8080 }, withPorts('o', [{ hostPort: 8080 }], 'sidecar'), false],
    ["a plain init container's host port is not", { hostPort: 8080 }, withPorts('o', [{ hostPort: 8080 }], 'init'), true],
    ['container ports without a host port never conflict', { containerPort: 8080 }, withPorts('o', [{ containerPort: 8080 }]), true],
  ])('%s', (_name, port, existing, admitted) => {
    const p = pod({ containers: [{ name: 'app', image: 'nginx', ports: [{ containerPort: 80, ...port }] }] });
    expect(admit(p, testNode(), [existing])).toEqual(admitted ? { admit: true } : NODE_PORTS);
  });

  it("counts the new pod's sidecar ports", () => {
    const p = pod({
      initContainers: [{ name: 's', image: 'envoy', restartPolicy: 'Always', ports: [{ containerPort: 9901, hostPort: 9901 }] }],
    });
    expect(admit(p, testNode(), [withPorts('o', [{ hostPort: 9901 }])])).toEqual(NODE_PORTS);
  });

  const tainted = testNode({
    taints: [
      { key: 'dedicated', value: 'db', effect: 'NoExecute' },
      { key: 'gpu', effect: 'NoSchedule' },
    ],
  });
  it.each<[string, Record<string, unknown>[] | undefined, boolean]>([
    ['no tolerations', undefined, false],
    ['Equal with the value', [{ key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoExecute' }], true],
    ['an empty operator is Equal', [{ key: 'dedicated', value: 'db' }], true],
    ['Equal with another value', [{ key: 'dedicated', value: 'web' }], false],
    ['Exists on the key', [{ key: 'dedicated', operator: 'Exists' }], true],
    ['Exists without a key tolerates everything', [{ operator: 'Exists' }], true],
    ['another effect', [{ key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' }], false],
  ])('a NoExecute taint (NoSchedule ones are ignored): %s', (_name, tolerations, admitted) => {
    expect(admit(pod(tolerations ? { tolerations } : {}), tainted)).toEqual(admitted ? { admit: true } : TAINTS);
  });

  it('does not check taints for static pods', () => {
    const fromFile = pod({}, { annotations: { [ConfigSourceAnnotationKey]: 'file' } });
    const fromApi = pod({}, { annotations: { [ConfigSourceAnnotationKey]: 'api' } });
    expect(admit(fromFile, tainted)).toEqual({ admit: true });
    expect(admit(fromApi, tainted)).toEqual(TAINTS);
  });
});

describe('order of generalFilter: the first failure wins', () => {
  const node = testNode({ allocatable: { cpu: '1' }, labels: { zone: 'a' }, taints: [{ key: 'k', effect: 'NoExecute' }] });
  const holder = other('holder', { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80, hostPort: 80 }] }] });
  const failing = {
    cpu: {
      containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '2' } }, ports: [{ containerPort: 80, hostPort: 80 }] }],
    },
    affinity: { nodeSelector: { zone: 'b' } },
    nodeName: { nodeName: 'node-b' },
  };

  it.each<[string, Record<string, unknown>, string]>([
    ['resources before node affinity', { ...failing.cpu, ...failing.affinity, ...failing.nodeName }, 'OutOfcpu'],
    [
      'node affinity before node name',
      {
        ...failing.affinity,
        ...failing.nodeName,
        containers: [{ name: 'app', image: 'nginx', ports: [{ containerPort: 80, hostPort: 80 }] }],
      },
      'NodeAffinity',
    ],
    [
      'node name before host ports',
      { ...failing.nodeName, containers: [{ name: 'app', image: 'nginx', ports: [{ containerPort: 80, hostPort: 80 }] }] },
      'NodeName',
    ],
    [
      'host ports before taints',
      { containers: [{ name: 'app', image: 'nginx', ports: [{ containerPort: 80, hostPort: 80 }] }] },
      'NodePorts',
    ],
    ['taints last', {}, 'TaintToleration'],
  ])('%s', (_name, spec, reason) => {
    expect(admit(pod(spec), node, [holder])?.reason).toBe(reason);
  });

  it('logs the refusal at debug level, as upstream at -v=2', () => {
    const logger = new RecordingLogger();
    createPredicateAdmitHandler({ getNode: () => node, logger }).admit({ pod: pod({ nodeName: 'node-b' }), otherPods: [] });
    expect(logger.find('Predicate failed on Pod')).toEqual([
      expect.objectContaining({ level: 'debug', fields: expect.objectContaining({ pod: 'default/web', err: NODE_NAME.message }) }),
    ]);
  });
});

describe('bad input never throws', () => {
  /** A pod that skipped the schema (a source that did not validate): objects as they came. */
  const unchecked = (spec: Record<string, unknown>): Pod =>
    ({ metadata: { name: 'web', namespace: 'default', uid: 'u' }, spec }) as unknown as Pod;

  it('refuses a quantity that does not parse, naming the field', () => {
    const p = unchecked({ containers: [{ name: 'app', resources: { requests: { cpu: 'lots' } } }] });
    expect(admit(p)).toEqual(
      refused(
        'UnexpectedAdmissionError',
        'Failed to admit pod: invalid pod spec: spec.containers[0].resources.requests[cpu]: quantity "lots" is invalid: quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'',
      ),
    );
  });

  it('refuses a malformed affinity or pod-level resources, naming the field', () => {
    expect(
      admit(
        unchecked({
          containers: [],
          affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: 'zone=a' } } },
        }),
      ),
    ).toEqual(
      refused(
        'UnexpectedAdmissionError',
        'Failed to admit pod: invalid pod spec: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Invalid input: expected array, received string',
      ),
    );
    const result = admit(unchecked({ containers: [], resources: { requests: { cpu: [] } } }));
    expect(result.reason).toBe('UnexpectedAdmissionError');
    expect(result.message).toMatch(/^Failed to admit pod: invalid pod spec: spec\.resources: requests\.cpu: /);
  });

  it('refuses an absurd request with OutOf… and the integer upstream would print', () => {
    expect(admit(requesting({ memory: '1e30' }))).toEqual(
      refused('OutOfmemory', notEnough('memory', '1000000000000000019884624838656', 0, 8589934592)),
    );
  });

  it('counts a bad quantity of another pod as nothing, and says so in the log', () => {
    const logger = new RecordingLogger();
    const broken = {
      ...other('broken'),
      spec: { containers: [{ name: 'c', resources: { requests: { cpu: 'x', memory: '1Gi' } } }] },
    } as unknown as Pod;
    const result = createPredicateAdmitHandler({ getNode: () => testNode({ allocatable: { cpu: '1' } }), logger }).admit({
      pod: requesting({ cpu: '1' }),
      otherPods: [broken],
    });
    expect(result).toEqual({ admit: true });
    expect(logger.find('does not parse')[0]?.fields).toMatchObject({
      pod: 'default/broken',
      err: expect.stringContaining('spec.containers[0].resources.requests[cpu]'),
    });
  });

  it('admits a pod with no containers and no spec fields on a node with no labels or taints', () => {
    expect(admit(unchecked({ containers: [] }), { metadata: { name: 'node-a' }, status: { allocatable: { pods: '1' } } })).toEqual({
      admit: true,
    });
  });
});

describe('objects that are not the Pod they are typed as', () => {
  it.each<[string, unknown]>([
    ['no containers', { metadata: { name: 'web', namespace: 'default', uid: 'u' }, spec: {} }],
    ['no spec', { metadata: { name: 'web', namespace: 'default', uid: 'u' } }],
  ])('refuses a pod with %s with UnexpectedAdmissionError instead of throwing', (_name, p) => {
    const logger = new RecordingLogger();
    const result = createPredicateAdmitHandler({ getNode: () => testNode(), logger }).admit({ pod: p as Pod, otherPods: [] });
    expect(result).toEqual({
      admit: false,
      reason: 'UnexpectedAdmissionError',
      message: expect.stringMatching(/^Failed to admit pod: .+/),
    });
    expect(logger.find('Failed to admit pod')[0]).toMatchObject({ level: 'error', fields: { pod: 'default/web' } });
  });

  it('ignores an active pod without a spec, and says so in the log', () => {
    const logger = new RecordingLogger();
    const broken = { metadata: { name: 'broken', namespace: 'default', uid: 'b' } } as unknown as Pod;
    expect(createPredicateAdmitHandler({ getNode: () => testNode(), logger }).admit({ pod: pod(), otherPods: [broken] })).toEqual({
      admit: true,
    });
    expect(logger.find('Ignoring an active pod')[0]?.fields).toMatchObject({ pod: 'default/broken' });
  });
});
