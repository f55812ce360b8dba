import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Container, Pod } from '@kubelet-ts/api';
import {
  CONTAINER_HASH_ANNOTATION,
  CONTAINER_PORTS_ANNOTATION,
  CONTAINER_PRE_STOP_HANDLER_ANNOTATION,
  CONTAINER_RESTART_COUNT_ANNOTATION,
  CONTAINER_TYPE_ANNOTATION,
  POD_DELETION_GRACE_PERIOD_ANNOTATION,
  POD_TERMINATION_GRACE_PERIOD_ANNOTATION,
  hashContainer,
} from '@kubelet-ts/container-runtime';
import {
  decodeContainerAnnotations,
  decodeContainerLabels,
  decodeSandboxLabels,
  newContainerAnnotations,
  newContainerLabels,
  newPodAnnotations,
  newPodLabels,
} from './labels.js';

const pod: Pod = {
  metadata: {
    name: 'web',
    namespace: 'prod',
    uid: 'u-1',
    labels: { app: 'web', 'io.kubernetes.pod.name': 'spoofed' },
    annotations: { note: 'x' },
    deletionGracePeriodSeconds: 7,
  },
  spec: {
    terminationGracePeriodSeconds: 45,
    initContainers: [{ name: 'init', image: 'busybox' }],
    containers: [
      {
        name: 'app',
        image: 'busybox',
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'FallbackToLogsOnError',
        lifecycle: { preStop: { exec: { command: ['sh', '-c', 'echo bye'] } } },
        ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
      },
    ],
  },
};
const app = pod.spec.containers[0]!;

describe('labels and annotations', () => {
  it('sandbox labels carry the pod labels plus the upstream identity labels, which win', () => {
    const labels = newPodLabels(pod);
    expect(labels).toEqual({
      app: 'web',
      'io.kubernetes.pod.name': 'web',
      'io.kubernetes.pod.namespace': 'prod',
      'io.kubernetes.pod.uid': 'u-1',
    });
    expect(newPodAnnotations(pod)).toEqual({ note: 'x' });
    expect(decodeSandboxLabels(labels)).toEqual({ podName: 'web', podNamespace: 'prod', podUID: 'u-1', labels: { app: 'web' } });
  });

  it('container labels round-trip', () => {
    const labels = newContainerLabels(app, pod);
    expect(labels).toEqual({
      'io.kubernetes.pod.name': 'web',
      'io.kubernetes.pod.namespace': 'prod',
      'io.kubernetes.pod.uid': 'u-1',
      'io.kubernetes.container.name': 'app',
    });
    expect(decodeContainerLabels(labels)).toEqual({ podName: 'web', podNamespace: 'prod', podUID: 'u-1', containerName: 'app' });
  });

  it('container annotations use the upstream names and round-trip', () => {
    const annotations = newContainerAnnotations(app, pod, 3);
    expect(annotations[CONTAINER_HASH_ANNOTATION]).toBe(hashContainer(app));
    expect(annotations[CONTAINER_RESTART_COUNT_ANNOTATION]).toBe('3');
    expect(annotations[POD_DELETION_GRACE_PERIOD_ANNOTATION]).toBe('7');
    expect(annotations[POD_TERMINATION_GRACE_PERIOD_ANNOTATION]).toBe('45');
    expect(JSON.parse(annotations[CONTAINER_PRE_STOP_HANDLER_ANNOTATION] ?? '')).toEqual({ exec: { command: ['sh', '-c', 'echo bye'] } });
    expect(JSON.parse(annotations[CONTAINER_PORTS_ANNOTATION] ?? '')).toEqual([{ name: 'http', containerPort: 8080, protocol: 'TCP' }]);
    expect(annotations[CONTAINER_TYPE_ANNOTATION]).toBe('container');
    expect(newContainerAnnotations(pod.spec.initContainers![0]!, pod, 0)[CONTAINER_TYPE_ANNOTATION]).toBe('init');

    expect(decodeContainerAnnotations(annotations)).toEqual({
      hash: hashContainer(app),
      restartCount: 3,
      podDeletionGracePeriodSeconds: 7,
      podTerminationGracePeriodSeconds: 45,
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'FallbackToLogsOnError',
      preStopHandler: { exec: { command: ['sh', '-c', 'echo bye'] } },
      containerPorts: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
      containerType: 'container',
    });
  });

  it('omits absent grace periods, handlers and ports; malformed values decode as missing', () => {
    const bare: Pod = { metadata: { name: 'p', namespace: 'n', uid: 'u' }, spec: { containers: [{ name: 'c', image: 'i' }] } };
    const annotations = newContainerAnnotations(bare.spec.containers[0]!, bare, 0);
    expect(Object.keys(annotations).sort()).toEqual([
      'io.kubernetes.container.hash',
      'io.kubernetes.container.restartCount',
      'io.kubernetes.container.terminationMessagePath',
      'io.kubernetes.container.terminationMessagePolicy',
      'io.kubernetes.container.type',
    ]);
    const decoded = decodeContainerAnnotations({
      [CONTAINER_RESTART_COUNT_ANNOTATION]: 'x',
      [CONTAINER_PRE_STOP_HANDLER_ANNOTATION]: '{bad',
    });
    expect(decoded.restartCount).toBe(0);
    expect(decoded.preStopHandler).toBeUndefined();
    expect(decoded.podTerminationGracePeriodSeconds).toBeUndefined();
    expect(decodeContainerLabels(undefined)).toEqual({ podName: '', podNamespace: '', podUID: '', containerName: '' });
  });

  it('decodes a preStop handler or ports of the wrong types as none, as upstream json.Unmarshal refuses them (found by fuzzing)', () => {
    for (const handler of ['{"exec":null}', '{"exec":{"command":"rm -rf /"}}', '{"httpGet":null}', '{"sleep":{"seconds":"5"}}', '[]']) {
      expect(decodeContainerAnnotations({ [CONTAINER_PRE_STOP_HANDLER_ANNOTATION]: handler }).preStopHandler).toBeUndefined();
    }
    for (const ports of ['[null]', '[5]', '[{"containerPort":"x"}]']) {
      expect(decodeContainerAnnotations({ [CONTAINER_PORTS_ANNOTATION]: ports }).containerPorts).toBeUndefined();
    }
    const good = decodeContainerAnnotations({
      [CONTAINER_PRE_STOP_HANDLER_ANNOTATION]: '{"exec":{"command":["cleanup"]}}',
      [CONTAINER_PORTS_ANNOTATION]: '[{"name":"http","containerPort":8080,"protocol":"TCP"}]',
    });
    expect(good.preStopHandler).toEqual({ exec: { command: ['cleanup'] } });
    expect(good.containerPorts).toEqual([{ name: 'http', containerPort: 8080, protocol: 'TCP' }]);
  });
});

// Written by upstream's json.Marshal for the containers of the upstream fact fixtures
// (scripts/upstream/podfacts annotations; regenerate with scripts/upstream/podfacts/vectors.sh).
describe('preStop and ports annotations, byte for byte as the upstream kubelet writes them', () => {
  const vectors = JSON.parse(readFileSync(join(__dirname, '..', 'test', 'fixtures', 'upstream-container-annotations.json'), 'utf8')) as {
    file: string;
    container: Container;
    preStop: string;
    ports: string;
  }[];
  it.each(vectors.map((v) => [`${v.file} ${v.container.name}`, v] as const))('%s', (_name, vector) => {
    const withContainer: Pod = { ...pod, spec: { ...pod.spec, containers: [vector.container] } };
    const annotations = newContainerAnnotations(vector.container, withContainer, 0);
    expect(annotations[CONTAINER_PRE_STOP_HANDLER_ANNOTATION] ?? '').toBe(vector.preStop);
    expect(annotations[CONTAINER_PORTS_ANNOTATION] ?? '').toBe(vector.ports);
  });
});
