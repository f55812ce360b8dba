// The README's usage snippet, run as a test and compared with the README block, so it cannot rot.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PodSchema } from '@kubelet-ts/api';
import { RecordingLogger } from '@kubelet-ts/common/testing';
import { readmeSnippet } from '@kubelet-ts/test-support';
import { createPredicateAdmitHandler, createSysctlAdmitHandler, validateAllowedUnsafeSysctls } from './index.js';
import { testNode } from './testing/index.js';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

const podRequesting = (name: string, cpu: string, sysctls: string[] = []) =>
  PodSchema.parse({
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: {
      containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu } } }],
      securityContext: { sysctls: sysctls.map((s) => ({ name: s, value: '1024' })) },
    },
  });

describe('README', () => {
  it('runs the usage snippet, which is the README block verbatim', () => {
    const logger = new RecordingLogger();
    const node = testNode({ allocatable: { cpu: '1', memory: '2Gi', pods: '110' } });
    const config = { allowedUnsafeSysctls: ['net.core.somaxconn'] };
    const activePods = [podRequesting('db', '500m')];
    const pod = podRequesting('web', '750m', ['net.core.somaxconn']);

    // README:begin
    const problems = validateAllowedUnsafeSysctls(config.allowedUnsafeSysctls); // at config load: [] when good
    const handlers = [
      createPredicateAdmitHandler({ getNode: () => node, logger }),
      createSysctlAdmitHandler({ allowedUnsafeSysctls: config.allowedUnsafeSysctls, kernelVersion: '6.8.0', logger }),
    ];
    const results = handlers.map((h) => h.admit({ pod, otherPods: activePods }));
    // [{ admit: false, reason: 'OutOfcpu',
    //    message: "Node didn't have enough resource: cpu, requested: 750, used: 500, capacity: 1000" },
    //  { admit: true }]
    // README:end

    expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));
    expect(problems).toEqual([]);
    expect(results).toEqual([
      { admit: false, reason: 'OutOfcpu', message: "Node didn't have enough resource: cpu, requested: 750, used: 500, capacity: 1000" },
      { admit: true },
    ]);
  });
});
