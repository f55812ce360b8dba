// The README's API-mode snippet, run against the fakes and compared with the README block.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeClock, RecordingEventRecorder } from '@kubelet-ts/common/testing';
import { readmeSnippet } from '@kubelet-ts/test-support';
import {
  createNodeLeaseController,
  createNodeRegistration,
  createNodeStatus,
  createNodeStatusUpdater,
  diskPressureCondition,
  initialNode,
  machineInfo,
  memoryPressureCondition,
  nodeAddress,
  pidPressureCondition,
  readyCondition,
} from './index.js';
import { FakeLeaseApi, FakeNodeApi } from './testing/index.js';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

describe('README (API mode)', () => {
  it('runs the API-mode snippet, which is the README block verbatim', async () => {
    const clock = new FakeClock();
    const recorder = new RecordingEventRecorder();
    const nodeApi = new FakeNodeApi();
    const leaseApi = new FakeLeaseApi();
    const nodeInformer = nodeApi.lister();
    const eviction = { isUnderMemoryPressure: () => false, isUnderDiskPressure: () => false, isUnderPIDPressure: () => false };
    const runtime = { errors: (): string[] => [] };
    const closeAllConnections = jest.fn();
    const signal = new AbortController();

    // README-API:begin
    const nodeName = 'node-1';
    const nodeStatus = createNodeStatus({
      nodeName,
      setters: [
        nodeAddress({ nodeIPs: () => ['192.168.1.10'], hostname: () => nodeName }),
        machineInfo({
          capacity: () => ({ cpu: '4', memory: '8Gi', 'ephemeral-storage': '100Gi' }),
          allocatable: () => undefined,
          maxPods: 110,
        }),
        memoryPressureCondition(() => eviction.isUnderMemoryPressure(), { clock, recorder }),
        diskPressureCondition(() => eviction.isUnderDiskPressure(), { clock, recorder }),
        pidPressureCondition(() => eviction.isUnderPIDPressure(), { clock, recorder }),
        readyCondition({ clock, recorder, runtimeErrors: () => runtime.errors() }),
      ],
    });
    const registration = createNodeRegistration({
      nodeName,
      nodeApi,
      clock,
      initialNode: async () => {
        const node = initialNode({ nodeName, nodeLabels: { 'example.com/pool': 'a' }, registerWithTaints: [] });
        await nodeStatus.setNodeStatus(node);
        return node;
      },
    });
    const updater = createNodeStatusUpdater({
      nodeName,
      nodeApi,
      nodeLister: nodeInformer, // kube-client's node informer (fieldSelector metadata.name=<node>)
      nodeStatus,
      registration,
      onRepeatedHeartbeatFailure: closeAllConnections,
      clock,
    });
    const lease = createNodeLeaseController({ nodeName, leaseApi, nodeApi, onRepeatedHeartbeatFailure: closeAllConnections, clock });
    void updater.run(signal.signal); // registers, then reports every 10 s (patches on change or every 5 min)
    void lease.run(signal.signal); // kube-node-lease/node-1, renewed every 10 s
    // README-API:end

    await clock.advance(30_000);
    signal.abort();
    expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8'), { begin: '// README-API:begin', end: '// README-API:end' }));
    const node = nodeApi.nodes.get('node-1');
    expect(node?.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(leaseApi.lease('kube-node-lease', 'node-1')?.metadata.ownerReferences?.[0]?.uid).toBe(node?.metadata.uid);
    expect(recorder.find('NodeHasSufficientMemory', 'node-1')).toHaveLength(1);
    expect(closeAllConnections).not.toHaveBeenCalled();
  });
});
