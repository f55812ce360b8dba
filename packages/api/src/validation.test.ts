import { applyPodDefaults } from './defaults.js';
import type { Pod } from './schemas.js';
import { PodSchema } from './schemas.js';
import { validatePod } from './validation.js';

/** A defaulted pod from a spec fragment. */
const pod = (spec: Record<string, unknown>, metadata: Record<string, unknown> = { name: 'web' }): Pod =>
  applyPodDefaults(PodSchema.parse({ metadata, spec }));
const app = (extra: Record<string, unknown> = {}) => ({ name: 'app', image: 'nginx:1.25', ...extra });
const issues = (p: Pod): string[] => validatePod(p).map((i) => `${i.path}: ${i.reason}`);

describe('validatePod', () => {
  it('accepts a realistic static pod', () => {
    const p = pod({
      hostNetwork: true,
      volumes: [{ name: 'certs', hostPath: { path: '/etc/ssl', type: 'DirectoryOrCreate' } }],
      initContainers: [{ name: 'sidecar', image: 'envoy:1', restartPolicy: 'Always', startupProbe: { exec: { command: ['true'] } } }],
      containers: [
        app({
          ports: [{ name: 'http', containerPort: 8080 }],
          env: [
            { name: 'MY.VAR-1', value: 'x' },
            { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
          ],
          resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m' } },
          volumeMounts: [{ name: 'certs', mountPath: '/etc/ssl', readOnly: true }],
          livenessProbe: { httpGet: { port: 'http', path: '/healthz' } },
          readinessProbe: { grpc: { port: 9090 } },
          lifecycle: { preStop: { sleep: { seconds: 5 } } },
        }),
      ],
    });
    expect(issues(p)).toEqual([]);
  });

  it('checks metadata name, namespace and labels', () => {
    expect(
      issues(pod({ containers: [app()] }, { name: 'Web_1', namespace: 'kube.system', labels: { 'bad key!': 'v', ok: '-x' } })),
    ).toEqual([
      expect.stringMatching(/^metadata\.name: Invalid value "Web_1": must be a DNS-1123 subdomain/),
      expect.stringMatching(/^metadata\.namespace: Invalid value "kube.system": must be a DNS-1123 label/),
      expect.stringMatching(/^metadata\.labels: Invalid value "bad key!": name part must consist/),
      expect.stringMatching(/^metadata\.labels\[ok\]: Invalid value "-x": a label value must be empty/),
    ]);
    expect(issues(pod({ containers: [app()] }, {}))).toEqual(['metadata.name: Required value: name or generateName is required']);
  });

  it('requires container names to be unique across init and regular containers, and images', () => {
    expect(issues(pod({ initContainers: [app()], containers: [app(), app({ name: 'b', image: '' })] }))).toEqual([
      'spec.containers[1].image: Required value',
      'spec.initContainers[0].name: Duplicate value "app"',
    ]);
  });

  it('checks ports: range, protocol, unique IANA names, hostNetwork host ports', () => {
    const p = pod({
      hostNetwork: true,
      containers: [
        app({
          ports: [
            { name: 'http', containerPort: 70000 },
            { name: 'http', containerPort: 81, protocol: 'ICMP' },
            { name: 'Has_Caps', containerPort: 82 },
            { containerPort: 83, hostPort: 9000 },
          ],
        }),
      ],
    });
    expect(issues(p)).toEqual([
      'spec.containers[0].ports[0].containerPort: Invalid value 70000: must be between 1 and 65535, inclusive',
      'spec.containers[0].ports[0].hostPort: Invalid value 70000: must be between 1 and 65535, inclusive',
      'spec.containers[0].ports[1].name: Duplicate value "http"',
      'spec.containers[0].ports[1].protocol: Unsupported value "ICMP": supported values: "TCP", "UDP", "SCTP"',
      'spec.containers[0].ports[2].name: Invalid value "Has_Caps": must contain only alphanumeric characters (a-z, 0-9), and hyphens (-)',
      'spec.containers[0].ports[3].hostPort: Invalid value 9000: must match `containerPort` when `hostNetwork` is true',
    ]);
  });

  it('rejects two containers claiming the same host port and protocol', () => {
    const p = pod({
      containers: [
        app({
          ports: [
            { containerPort: 80, hostPort: 8080 },
            { containerPort: 81, hostPort: 8080, protocol: 'UDP' },
          ],
        }),
        app({ name: 'b', ports: [{ containerPort: 82, hostPort: 8080 }] }),
      ],
    });
    expect(issues(p)).toEqual(['spec.containers[1].ports[0].hostPort: Duplicate value "/TCP/8080"']);
  });

  it('checks restartPolicy, dnsPolicy and grace periods', () => {
    expect(
      issues(
        pod({
          restartPolicy: 'Sometimes',
          dnsPolicy: 'Nope',
          terminationGracePeriodSeconds: -1,
          activeDeadlineSeconds: 0,
          containers: [app()],
        }),
      ),
    ).toEqual([
      'spec.restartPolicy: Unsupported value "Sometimes": supported values: "Always", "OnFailure", "Never"',
      'spec.dnsPolicy: Unsupported value "Nope": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
      'spec.terminationGracePeriodSeconds: Invalid value -1: must be greater than or equal to 0',
      'spec.activeDeadlineSeconds: Invalid value 0: must be between 1 and 2147483647, inclusive',
    ]);
  });

  it('checks that requests do not exceed limits and quantities are non-negative', () => {
    const p = pod({
      containers: [
        app({
          resources: {
            limits: { cpu: '500m', memory: '1Gi', 'example.com/gpu': '2' },
            requests: { cpu: '1', memory: '-1', 'example.com/gpu': '1' },
          },
        }),
      ],
    });
    expect(issues(p)).toEqual([
      'spec.containers[0].resources.requests[cpu]: Invalid value "1": must be less than or equal to cpu limit of "500m"',
      'spec.containers[0].resources.requests[memory]: Invalid value "-1": must be greater than or equal to 0',
      'spec.containers[0].resources.requests[example.com/gpu]: Invalid value "1": must be equal to example.com/gpu limit of "2"',
    ]);
  });

  it('checks env var names and valueFrom', () => {
    const p = pod({
      containers: [
        app({
          env: [
            { name: 'A=B', value: 'x' },
            { name: 'X', value: 'v', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
            { name: 'Y', valueFrom: {} },
          ],
        }),
      ],
    });
    expect(issues(p)).toEqual([
      'spec.containers[0].env[0].name: Invalid value "A=B": must consist only of printable ASCII characters other than \'=\'',
      'spec.containers[0].env[1].valueFrom: Invalid value "": may not be specified when `value` is not empty',
      'spec.containers[0].env[2].valueFrom: Invalid value "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
    ]);
  });

  it('checks probes: one handler, thresholds (a named port need not exist, as upstream)', () => {
    const p = pod({
      containers: [
        app({
          ports: [{ name: 'http', containerPort: 80 }],
          livenessProbe: { httpGet: { port: 'http' }, exec: { command: ['true'] }, successThreshold: 2 },
          readinessProbe: { tcpSocket: { port: 'metrics' }, periodSeconds: -1, terminationGracePeriodSeconds: 5 },
          startupProbe: { initialDelaySeconds: 1 },
        }),
      ],
    });
    expect(issues(p)).toEqual([
      'spec.containers[0].livenessProbe.httpGet: Forbidden: may not specify more than 1 handler type',
      'spec.containers[0].livenessProbe.successThreshold: Invalid value 2: must be 1',
      'spec.containers[0].readinessProbe.periodSeconds: Invalid value -1: must be greater than or equal to 0',
      'spec.containers[0].readinessProbe.terminationGracePeriodSeconds: Invalid value 5: must not be set for readinessProbes',
      'spec.containers[0].startupProbe: Required value: must specify a handler type',
    ]);
  });

  it('allows probes on sidecars but not on regular init containers', () => {
    const p = pod({
      initContainers: [
        app({ name: 'init', livenessProbe: { exec: { command: ['true'] } }, readinessProbe: { exec: { command: ['true'] } } }),
        app({
          name: 'side',
          restartPolicy: 'Always',
          livenessProbe: { exec: { command: ['true'] } },
          readinessProbe: { exec: { command: ['true'] } },
          lifecycle: { preStop: { exec: { command: ['true'] } } },
        }),
        app({ name: 'bad', restartPolicy: 'Never' }),
      ],
      containers: [app({ restartPolicy: 'Always' })],
    });
    expect(issues(p)).toEqual([
      'spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers',
      'spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always',
      'spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always',
      'spec.initContainers[2].restartPolicy: Unsupported value "Never": supported values: "Always"',
    ]);
  });

  it('checks lifecycle handlers', () => {
    const p = pod({
      terminationGracePeriodSeconds: 10,
      containers: [app({ lifecycle: { postStart: {}, preStop: { sleep: { seconds: 60 } } } })],
    });
    expect(issues(p)).toEqual([
      'spec.containers[0].lifecycle.postStart: Required value: must specify a handler type',
      'spec.containers[0].lifecycle.preStop.sleep.seconds: Invalid value 60: must be non-negative and less than terminationGracePeriodSeconds (10)',
    ]);
  });

  it('checks volumes and mounts', () => {
    const p = pod({
      volumes: [
        { name: 'data', emptyDir: {} },
        { name: 'data', emptyDir: {} },
        { name: 'two', emptyDir: {}, hostPath: { path: '/x' } },
        { name: 'hp', hostPath: { path: '/x', type: 'Weird' } },
      ],
      containers: [
        app({
          volumeMounts: [
            { name: 'data', mountPath: 'relative' },
            { name: 'missing', mountPath: '/m' },
            { name: 'data', mountPath: '/m', subPath: '../escape' },
          ],
        }),
      ],
    });
    expect(issues(p)).toEqual([
      'spec.volumes[1].name: Duplicate value "data"',
      'spec.volumes[2].hostPath: Forbidden: may not specify more than 1 volume type',
      'spec.volumes[3].hostPath.type: Unsupported value "Weird": supported values: "", "DirectoryOrCreate", "Directory", "FileOrCreate", "File", "Socket", "CharDevice", "BlockDevice"',
      'spec.containers[0].volumeMounts[0].mountPath: Invalid value "relative": must be an absolute path',
      'spec.containers[0].volumeMounts[1].name: Not found: "missing"',
      'spec.containers[0].volumeMounts[2].mountPath: Invalid value "/m": must be unique',
      'spec.containers[0].volumeMounts[2].subPath: Invalid value "../escape": must not contain \'..\'',
    ]);
  });

  it('checks tolerations the way upstream does', () => {
    const p = pod({
      containers: [app()],
      tolerations: [
        { operator: 'Exists' },
        { key: 'k', operator: 'Exists', value: 'v' },
        { key: 'k', operator: 'Equal', effect: 'NoSchedule', tolerationSeconds: 5 },
      ],
    });
    expect(issues(p)).toEqual([
      'spec.tolerations[1].operator: Invalid value "Exists": value must be empty when `operator` is \'Exists\'',
      'spec.tolerations[2].effect: Invalid value "NoSchedule": effect must be \'NoExecute\' when `tolerationSeconds` is set',
    ]);
  });
  describe('ephemeral containers (upstream validateEphemeralContainers)', () => {
    // What kubectl debug --target=app sends, defaulted: resources {} is Go's zero value and allowed.
    const debug = (extra: Record<string, unknown> = {}) => ({
      name: 'dbg',
      image: 'busybox:1.36',
      command: ['sh'],
      targetContainerName: 'app',
      resources: {},
      stdin: true,
      tty: true,
      ...extra,
    });

    it('accepts what kubectl debug sends, and defaults it like a container', () => {
      const p = pod({ containers: [app()], ephemeralContainers: [debug()] });
      expect(issues(p)).toEqual([]);
      expect(p.spec.ephemeralContainers?.[0]).toMatchObject({
        targetContainerName: 'app',
        imagePullPolicy: 'IfNotPresent',
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
      });
    });

    it('refuses ports, resources, probes, hooks and restartPolicy, as upstream allowedEphemeralContainerFields', () => {
      const p = pod({
        containers: [app()],
        ephemeralContainers: [
          debug({
            ports: [{ containerPort: 80 }],
            resources: { limits: { cpu: '1' } },
            livenessProbe: { exec: { command: ['true'] } },
            readinessProbe: { exec: { command: ['true'] } },
            startupProbe: { exec: { command: ['true'] } },
            lifecycle: { preStop: { exec: { command: ['true'] } } },
            restartPolicy: 'Always',
          }),
        ],
      });
      const f = (field: string): string => `spec.ephemeralContainers[0].${field}: Forbidden: cannot be set for an Ephemeral Container`;
      expect(issues(p)).toEqual([
        f('ports'),
        f('resources'),
        f('livenessProbe'),
        f('readinessProbe'),
        f('startupProbe'),
        f('lifecycle'),
        f('restartPolicy'),
      ]);
    });

    it('needs a unique name, a target among the regular and init containers, no subPath mounts, and an image', () => {
      const p = pod({
        volumes: [{ name: 'data', emptyDir: {} }],
        initContainers: [app({ name: 'init' })],
        containers: [app()],
        ephemeralContainers: [
          debug({ name: 'app' }),
          debug({ name: 'dbg2', targetContainerName: 'init' }),
          debug({ name: 'dbg3', targetContainerName: 'dbg2' }),
          debug({ name: 'dbg4', volumeMounts: [{ name: 'data', mountPath: '/d', subPath: 'x' }] }),
          debug({ name: 'dbg5', image: '' }),
        ],
      });
      expect(issues(p)).toEqual([
        'spec.ephemeralContainers[0].name: Duplicate value "app"',
        'spec.ephemeralContainers[2].targetContainerName: Not found: "dbg2"',
        'spec.ephemeralContainers[3].volumeMounts[0].subPath: Forbidden: cannot be set for an Ephemeral Container',
        'spec.ephemeralContainers[4].image: Required value',
      ]);
    });

    it('checks the container fields an ephemeral container may set (env, mounts, security context)', () => {
      const p = pod({
        containers: [app()],
        ephemeralContainers: [
          debug({
            env: [{ name: '' }],
            volumeMounts: [{ name: 'missing', mountPath: '/m' }],
            securityContext: { runAsUser: -1 },
          }),
        ],
      });
      expect(issues(p)).toEqual([
        expect.stringMatching(/^spec\.ephemeralContainers\[0\]\.env\[0\]\.name: Required value/),
        expect.stringMatching(/^spec\.ephemeralContainers\[0\]\.volumeMounts\[0\]\.name: Not found: "missing"/),
        'spec.ephemeralContainers[0].securityContext.runAsUser: Invalid value -1: must be greater than or equal to 0',
      ]);
    });
  });
});
