// The recorder against the real kube-apiserver of scripts/control-plane.sh, as the node identity
// system:node:<node> (Node authorizer + NodeRestriction): POSTs, count PATCHes, a recreate after
// a 404, aggregation, and what `kubectl get events` shows of it.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { EventSchema } from '@kubelet-ts/api';
import type { Event } from '@kubelet-ts/api';
import { EventType, containerReference, nodeReference, podReference } from '@kubelet-ts/common';
import type { ReferencedPod } from '@kubelet-ts/common';
import { RecordingLogger } from '@kubelet-ts/common/testing';
import type { KubeClient } from '@kubelet-ts/kube-client';
import { controlPlaneEnv } from '@kubelet-ts/test-support';
import { AGGREGATED_MESSAGE_PREFIX, COMPONENT_KUBELET, createEventBroadcaster } from '../../src/index.js';
import type { EventBroadcaster } from '../../src/index.js';
import { eventSink, kubeClient } from './kube.js';

const env = controlPlaneEnv();
const namespace = `kts-events-${randomBytes(4).toString('hex')}`;

let admin: KubeClient;
let node: KubeClient;
let pod: ReferencedPod;
const calls: string[] = [];
const logger = new RecordingLogger();
let broadcaster: EventBroadcaster;
const nodeEventNames: string[] = [];

function kubectl(...args: string[]): string {
  return execFileSync(join(env.upstreamBinDir, 'kubectl'), ['--kubeconfig', env.kubeconfig, ...args], { encoding: 'utf8' });
}

async function eventsAbout(ns: string, name: string): Promise<Event[]> {
  const list = (await admin.list(`/api/v1/namespaces/${ns}/events`, { query: { fieldSelector: `involvedObject.name=${name}` } })) as {
    items: unknown[];
  };
  return list.items.map((item) => EventSchema.parse(item));
}

beforeAll(async () => {
  admin = await kubeClient(env.kubeconfig);
  node = await kubeClient(env.nodeKubeconfig);
  await admin.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  // Bound to the node by name: no scheduler and no kubelet needed for it to be the object of events.
  pod = (await admin.create(`/api/v1/namespaces/${namespace}/pods`, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web' },
    spec: { nodeName: env.nodeName, containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
  })) as ReferencedPod;
  broadcaster = createEventBroadcaster({ logger });
  broadcaster.startRecordingToSink(eventSink(node, calls));
});

afterAll(async () => {
  await broadcaster?.shutdown();
  await admin?.delete(`/api/v1/namespaces/${namespace}`).catch(() => undefined);
  for (const name of nodeEventNames) await admin?.delete(`/api/v1/namespaces/default/events/${name}`).catch(() => undefined);
  admin?.closeAllConnections();
  node?.closeAllConnections();
});

describe('events against the real API server, as system:node:<node>', () => {
  it('POSTs a pod event, PATCHes its repeat to count 2, and kubectl shows one event with count 2', async () => {
    const recorder = broadcaster.newRecorder({ component: COMPONENT_KUBELET, host: env.nodeName });
    const ref = containerReference(pod, 'nginx');
    recorder.event(ref, EventType.Normal, 'Pulled', 'Container image "nginx:1.27" already present on machine');
    recorder.event(ref, EventType.Normal, 'Created', 'Created container: nginx');
    recorder.event(ref, EventType.Normal, 'Pulled', 'Container image "nginx:1.27" already present on machine');
    await broadcaster.flush();

    const [pulled, created] = await eventsAbout(namespace, 'web').then((events) =>
      ['Pulled', 'Created'].map((r) => events.find((e) => e.reason === r)),
    );
    expect(calls).toEqual([`POST ${namespace}`, `POST ${namespace}`, `PATCH ${namespace}/${pulled?.metadata.name}`]);
    expect(pulled).toMatchObject({
      count: 2,
      type: 'Normal',
      involvedObject: {
        kind: 'Pod',
        namespace,
        name: 'web',
        uid: podReference(pod).uid,
        apiVersion: 'v1',
        fieldPath: 'spec.containers{nginx}',
      },
      source: { component: 'kubelet', host: env.nodeName },
      reportingComponent: 'kubelet',
      reportingInstance: env.nodeName,
    });
    expect(pulled?.metadata.name).toMatch(/^web\.[0-9a-f]+$/);
    expect(created?.count).toBe(1);

    const shown = kubectl(
      'get',
      'events',
      '-n',
      namespace,
      '-o',
      'custom-columns=REASON:.reason,COUNT:.count,OBJECT:.involvedObject.name,FROM:.source.component',
      '--no-headers',
    );
    expect(
      shown
        .trim()
        .split('\n')
        .map((l) => l.trim().split(/\s+/))
        .sort(),
    ).toEqual([
      ['Created', '1', 'web', 'kubelet'],
      ['Pulled', '2', 'web', 'kubelet'],
    ]);
  });

  it('POSTs again under the first name when the first event was deleted (PATCH 404)', async () => {
    const recorder = broadcaster.newRecorder({ component: COMPONENT_KUBELET, host: env.nodeName });
    const ref = containerReference(pod, 'nginx');
    const [created] = (await eventsAbout(namespace, 'web')).filter((e) => e.reason === 'Created');
    await admin.delete(`/api/v1/namespaces/${namespace}/events/${created?.metadata.name}`);
    calls.length = 0;
    recorder.event(ref, EventType.Normal, 'Created', 'Created container: nginx');
    await broadcaster.flush();

    expect(calls).toEqual([`PATCH ${namespace}/${created?.metadata.name}`, `POST ${namespace}`]);
    const again = (await eventsAbout(namespace, 'web')).filter((e) => e.reason === 'Created');
    expect(again.map((e) => [e.metadata.name, e.count])).toEqual([[created?.metadata.name, 2]]);
  });

  it('records a Node event in default, with the v1.34 Node reference', async () => {
    const recorder = broadcaster.newRecorder({ component: COMPONENT_KUBELET, host: env.nodeName });
    calls.length = 0;
    recorder.event(nodeReference(env.nodeName), EventType.Normal, 'Starting', 'Starting kubelet.');
    await broadcaster.flush();

    const events = (await eventsAbout('default', env.nodeName)).filter((e) => e.reason === 'Starting' && e.source?.host === env.nodeName);
    nodeEventNames.push(...events.map((e) => e.metadata.name));
    expect(calls).toEqual(['POST default']);
    expect(events.at(-1)?.involvedObject).toEqual({ kind: 'Node', name: env.nodeName, uid: env.nodeName });
    const shown = kubectl(
      'get',
      'events',
      '-n',
      'default',
      '--field-selector',
      `involvedObject.name=${env.nodeName},reason=Starting`,
      '-o',
      'name',
    );
    expect(shown).toContain(`event/${events.at(-1)?.metadata.name}`);
  });

  it('aggregates the 10th distinct message of similar events, and the server accepts the aggregate', async () => {
    const recorder = broadcaster.newRecorder({ component: COMPONENT_KUBELET, host: env.nodeName });
    for (let i = 1; i <= 11; i++)
      recorder.event(podReference(pod), EventType.Warning, 'FailedMount', `MountVolume.SetUp failed for volume "v${i}"`);
    await broadcaster.flush();

    const mounts = (await eventsAbout(namespace, 'web')).filter((e) => e.reason === 'FailedMount');
    expect(mounts).toHaveLength(10);
    const aggregate = mounts.find((e) => e.message?.startsWith(AGGREGATED_MESSAGE_PREFIX));
    expect(aggregate).toMatchObject({
      count: 2,
      message: `${AGGREGATED_MESSAGE_PREFIX}MountVolume.SetUp failed for volume "v11"`,
      type: 'Warning',
    });
  });

  it('drops an event the server refuses (a namespace that does not exist: 404), without retrying', async () => {
    const recorder = broadcaster.newRecorder({ component: COMPONENT_KUBELET, host: env.nodeName });
    calls.length = 0;
    const gone = { metadata: { name: 'ghost', namespace: `${namespace}-missing`, uid: 'uid-ghost' } };
    recorder.event(podReference(gone), EventType.Normal, 'Killing', 'Stopping container app');
    await broadcaster.flush();

    expect(calls).toEqual([`POST ${namespace}-missing`]);
    expect(logger.find('Server rejected event (will not retry!)').map((r) => r.fields['statusCode'])).toEqual([404]);
  });
});
