// What an operator does with kubectl against a node's pods — logs, exec, attach, port-forward, cp,
// /run — each as a function that runs it and gives back what kubectl showed, so that the kubelet-server
// suite can check kubelet-ts's answers and the node-parity suite can compare them with the upstream
// kubelet's on the same machine.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUSYBOX, eventually } from './harness.js';
import type { Kubectl } from './kubectl.js';

/** A pod on `nodeName` with an HTTP server (`web`, port 8080), a stdin reader (`echoer`) and a container that restarted once (`twice`). */
export function scenarioPod(name: string, namespace: string, nodeName: string): unknown {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace },
    spec: {
      nodeName,
      terminationGracePeriodSeconds: 1,
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      volumes: [{ name: 'state', emptyDir: {} }],
      containers: [
        {
          name: 'web',
          image: BUSYBOX(),
          command: [
            'sh',
            '-c',
            'mkdir -p /www && echo "hello from web" > /www/index.html && echo one; echo two; echo three; exec httpd -f -p 8080 -h /www',
          ],
        },
        { name: 'echoer', image: BUSYBOX(), stdin: true, command: ['sh', '-c', 'while read line; do echo "got:$line"; done'] },
        {
          name: 'twice',
          image: BUSYBOX(),
          command: [
            'sh',
            '-c',
            'if [ -f /state/ran ]; then echo second run; exec sleep 3600; fi; touch /state/ran; echo first run; exit 1',
          ],
          volumeMounts: [{ name: 'state', mountPath: '/state' }],
        },
      ],
    },
  };
}

type ScenarioPodStatus = {
  status?: {
    containerStatuses?: Array<{ name: string; ready: boolean; restartCount: number; state?: { running?: { startedAt?: string } } }>;
  };
};

/** Creates the scenario pod and waits until its three containers are ready, `twice` after its restart. */
export async function startScenarioPod(kubectl: Kubectl, name: string, namespace: string, nodeName: string): Promise<void> {
  await kubectl.apply(scenarioPod(name, namespace, nodeName));
  await eventually(
    `pod ${namespace}/${name} ready on ${nodeName}`,
    async () => {
      const statuses = (await kubectl.get<ScenarioPodStatus>('pod', '-n', namespace, name))?.status?.containerStatuses ?? [];
      // `web` logged its lines at start; `logs --since=1s` must find them older than that.
      const webStarted = Date.parse(statuses.find((s) => s.name === 'web')?.state?.running?.startedAt ?? '');
      return (
        statuses.length === 3 &&
        statuses.every((s) => s.ready) &&
        statuses.find((s) => s.name === 'twice')?.restartCount === 1 &&
        Date.now() - webStarted > 2_500
      );
    },
    120_000,
    500,
  );
}

/** Resolves with the first match of `pattern` in the child's stdout; rejects when it exits first or after `timeoutMs`. */
export function outputOf(child: ChildProcess, pattern: RegExp, timeoutMs = 30_000): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`no ${String(pattern)} after ${timeoutMs} ms: ${out} ${err}`)), timeoutMs);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const match = pattern.exec(out);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match);
      }
    });
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ${String(pattern)}: ${out} ${err}`));
    });
  });
}

export interface LogsObservation {
  all: string;
  tail1: string;
  /** `--timestamps`, each line's time replaced by `<time>` once checked as RFC 3339 with nanoseconds. */
  timestamps: string;
  limitBytes: string;
  sinceFuture: string;
  previous: string;
  current: string;
  /** `get --raw` of the node proxy's containerLogs for a container the pod does not have: kubectl's error. */
  missingContainer: string;
}

export async function observeLogs(kubectl: Kubectl, nodeName: string, namespace: string, pod: string): Promise<LogsObservation> {
  const logs = (...args: string[]): Promise<string> => kubectl('logs', '-n', namespace, pod, ...args);
  const stamped = await logs('-c', 'web', '--timestamps');
  return {
    all: await logs('-c', 'web'),
    tail1: await logs('-c', 'web', '--tail=1'),
    timestamps: stamped.replace(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z /gm, '<time> '),
    limitBytes: await logs('-c', 'web', '--limit-bytes=6'),
    // Nothing was logged in the last second (the container wrote its lines at start).
    sinceFuture: await logs('-c', 'web', '--since=1s'),
    previous: await logs('-c', 'twice', '--previous'),
    current: await logs('-c', 'twice'),
    missingContainer: (
      await kubectl.run(['get', '--raw', `/api/v1/nodes/${nodeName}/proxy/containerLogs/${namespace}/${pod}/nope`])
    ).stderr.trim(),
  };
}

export interface ExecObservation {
  failing: { code: number; stdout: string; stderr: string };
  stdin: { code: number; stdout: string };
  missingContainer: string;
}

export async function observeExec(kubectl: Kubectl, nodeName: string, namespace: string, pod: string): Promise<ExecObservation> {
  const failing = await kubectl.run(['exec', '-n', namespace, pod, '-c', 'web', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3']);
  const stdin = await kubectl.run(['exec', '-i', '-n', namespace, pod, '-c', 'web', '--', 'tr', 'a-z', 'A-Z'], 'hello stdin\n');
  // Through the node proxy, past the API server's own check of the container name: the kubelet's answer.
  const missing = await kubectl.run([
    'get',
    '--raw',
    `/api/v1/nodes/${nodeName}/proxy/exec/${namespace}/${pod}/nope?command=true&output=1`,
  ]);
  return {
    failing,
    stdin: { code: stdin.code, stdout: stdin.stdout },
    missingContainer: missing.stderr.trim(),
  };
}

/** `kubectl exec -it … sh` on a terminal (script(1) gives kubectl one): what the shell printed for `tty` and arithmetic. */
export async function observeTty(kubectl: Kubectl, namespace: string, pod: string): Promise<string> {
  const command = ['kubectl', ...kubectl.baseArgs, 'exec', '-it', '-n', namespace, pod, '-c', 'web', '--', 'sh'].join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
  try {
    await outputOf(child, /\/ # /);
    const answer = outputOf(child, /tty=(\S+) n=(\d+)/);
    child.stdin.write('echo tty=$(tty) n=$((6*7))\r');
    const [, tty = '', n = ''] = await answer;
    child.stdin.write('exit\r');
    return `tty=${tty.replace(/\d+$/, 'N')} n=${n}`;
  } finally {
    child.kill();
  }
}

/** `kubectl attach -i` to `echoer`: the line that came back for `ping`. */
export async function observeAttach(kubectl: Kubectl, namespace: string, pod: string): Promise<string> {
  const child = kubectl.spawn(['attach', '-i', '-n', namespace, pod, '-c', 'echoer']);
  // kubectl copies stdin only once attached: repeat the line until it comes back.
  const again = setInterval(() => child.stdin?.write('ping\n'), 1000);
  try {
    child.stdin?.write('ping\n');
    const [line = ''] = await outputOf(child, /got:\S+/);
    return line;
  } finally {
    clearInterval(again);
    child.kill();
  }
}

/** `kubectl port-forward pod :8080`, then HTTP through the local port: the body. */
export async function observePortForward(kubectl: Kubectl, namespace: string, pod: string): Promise<string> {
  const child = kubectl.spawn(['port-forward', '-n', namespace, `pod/${pod}`, ':8080']);
  try {
    const [, local] = await outputOf(child, /Forwarding from 127\.0\.0\.1:(\d+) -> 8080/);
    return await eventually(
      'an answer through the forwarded port',
      async () => {
        const res = await fetch(`http://127.0.0.1:${local}/index.html`).catch(() => undefined);
        return res?.ok === true ? res.text() : undefined;
      },
      30_000,
      500,
    );
  } finally {
    child.kill();
  }
}

/** `kubectl cp` of a file into `web` and of the served file out: what came back each way. */
export async function observeCp(kubectl: Kubectl, namespace: string, pod: string): Promise<{ into: boolean; out: string }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'kts-cp-'));
  try {
    const content = `copied ${randomBytes(8).toString('hex')}\n`;
    await fs.writeFile(path.join(dir, 'in.txt'), content);
    await kubectl('cp', path.join(dir, 'in.txt'), `${namespace}/${pod}:/tmp/in.txt`, '-c', 'web');
    const into = (await kubectl('exec', '-n', namespace, pod, '-c', 'web', '--', 'cat', '/tmp/in.txt')) === content;
    await kubectl('cp', `${namespace}/${pod}:/www/index.html`, path.join(dir, 'out.html'), '-c', 'web');
    return { into, out: await fs.readFile(path.join(dir, 'out.html'), 'utf8') };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** The node proxy's `/run` (POST), and a streaming endpoint asked without an upgrade. */
export async function observeRun(
  kubectl: Kubectl,
  nodeName: string,
  namespace: string,
  pod: string,
): Promise<{ output: string; failing: string; notUpgraded: string }> {
  const base = `/api/v1/nodes/${nodeName}/proxy`;
  const empty = path.join(os.tmpdir(), `kts-empty-${randomBytes(3).toString('hex')}`);
  await fs.writeFile(empty, '');
  try {
    const output = await kubectl('create', '--raw', `${base}/run/${namespace}/${pod}/web?cmd=echo%20from%20run`, '-f', empty);
    const failing = await kubectl.run(['create', '--raw', `${base}/run/${namespace}/${pod}/web?cmd=false`, '-f', empty]);
    const plain = await kubectl.run(['get', '--raw', `${base}/exec/${namespace}/${pod}/web?command=ls&output=1`]);
    return { output, failing: failing.stderr.trim(), notUpgraded: plain.stderr.trim() };
  } finally {
    await fs.rm(empty, { force: true });
  }
}

type DebugStatus = {
  status?: { ephemeralContainerStatuses?: Array<{ name: string; ready: boolean; started?: boolean; state?: { running?: unknown } }> };
};

/**
 * `kubectl debug --target=web` (non-interactive): the ephemeral container's status once it runs, and the
 * process names its `ps` saw — web's `httpd` among them when it shares web's PID namespace.
 */
export async function observeDebug(
  kubectl: Kubectl,
  namespace: string,
  pod: string,
): Promise<{ ready: boolean; started: boolean | undefined; processes: string[] }> {
  await kubectl(
    'debug',
    '-n',
    namespace,
    pod,
    `--image=${BUSYBOX()}`,
    '--target=web',
    '-c',
    'dbg',
    '--',
    'sh',
    '-c',
    'ps -o comm; exec sleep 3600',
  );
  const status = await eventually(
    'dbg running in ephemeralContainerStatuses',
    async () => {
      const p = await kubectl.get<DebugStatus>('pod', '-n', namespace, pod);
      const dbg = p?.status?.ephemeralContainerStatuses?.find((s) => s.name === 'dbg');
      return dbg?.state?.running !== undefined ? dbg : undefined;
    },
    90_000,
    500,
  );
  const logs = await eventually(
    'the debugger ps output',
    async () => {
      const out = await kubectl('logs', '-n', namespace, pod, '-c', 'dbg').catch(() => '');
      return out.includes('COMMAND') ? out : undefined;
    },
    60_000,
    500,
  );
  const processes = [
    ...new Set(
      logs
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '' && l !== 'COMMAND'),
    ),
  ].sort();
  return { ready: status.ready, started: status.started, processes };
}

type AdmittedPod = { status?: { phase?: string; reason?: string; message?: string } };

/**
 * Pods the node must refuse at admission (upstream's predicates and sysctl allowlist): too much CPU, an
 * unsafe sysctl, a node selector the node does not match. What each ended with: phase, reason, message.
 */
export async function observeAdmission(
  kubectl: Kubectl,
  namespace: string,
  nodeName: string,
  /** The node's maxPods: when given, that many pods are started and the next one must be refused (OutOfpods). */
  maxPods?: number,
): Promise<Record<string, { phase?: string; reason?: string; message?: string }>> {
  const pod = (name: string, spec: Record<string, unknown>, container: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace },
    spec: {
      nodeName,
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      containers: [{ name: 'c', image: BUSYBOX(), command: ['sleep', '3600'], ...container }],
      ...spec,
    },
  });
  const pods = [
    pod('too-big', {}, { resources: { requests: { cpu: '1000' } } }),
    pod('unsafe-sysctl', { securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '65536' }] } }),
    pod('wrong-node', { nodeSelector: { 'kubelet-ts.test/no-such-label': 'x' } }),
  ];
  await kubectl.apply({ apiVersion: 'v1', kind: 'List', items: pods });
  const seen: Record<string, { phase?: string; reason?: string; message?: string }> = {};
  for (const { metadata } of pods) {
    const status = await eventually(
      `pod ${metadata.name} refused`,
      async () => {
        const s = (await kubectl.get<AdmittedPod>('pod', '-n', namespace, metadata.name))?.status;
        return s?.phase === 'Failed' ? s : undefined;
      },
      60_000,
      500,
    );
    seen[metadata.name] = { phase: status.phase, reason: status.reason, message: status.message };
  }
  await kubectl('delete', 'pod', '-n', namespace, ...pods.map((p) => p.metadata.name), '--wait=true', '--timeout=60s');
  if (maxPods !== undefined) seen['one-too-many'] = await observeOutOfPods(kubectl, namespace, nodeName, maxPods, pod);
  return seen;
}

/** Fills the node's pod slots with sleepers (none may be running before), then one more: its refusal. */
async function observeOutOfPods(
  kubectl: Kubectl,
  namespace: string,
  nodeName: string,
  maxPods: number,
  pod: (name: string, spec: Record<string, unknown>) => { metadata: { name: string } },
): Promise<{ phase?: string; reason?: string; message?: string }> {
  const fill = Array.from({ length: maxPods }, (_, i) => pod(`fill-${i}`, {}));
  await kubectl.apply({ apiVersion: 'v1', kind: 'List', items: fill });
  await eventually(
    `${maxPods} pods running on ${nodeName}`,
    async () => {
      const list = await kubectl.json<{ items: Array<{ status?: { phase?: string } }> }>('get', 'pods', '-n', namespace);
      return list.items.filter((p) => p.status?.phase === 'Running').length === maxPods;
    },
    90_000,
    500,
  );
  await kubectl.apply(pod('one-too-many', {}));
  const status = await eventually(
    'pod one-too-many refused',
    async () => {
      const s = (await kubectl.get<AdmittedPod>('pod', '-n', namespace, 'one-too-many'))?.status;
      return s?.phase === 'Failed' ? s : undefined;
    },
    60_000,
    500,
  );
  const names = [...fill.map((p) => p.metadata.name), 'one-too-many'];
  await kubectl('delete', 'pod', '-n', namespace, ...names, '--wait=true', '--timeout=90s');
  return { phase: status.phase, reason: status.reason, message: status.message };
}
