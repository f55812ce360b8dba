import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FakeClock } from '@kubelet-ts/common/testing';
import { waitFor } from '@kubelet-ts/test-support';
import { createFakeCriClient } from '../testing/fake-client.js';
import type { FakeCriClient } from '../testing/fake-client.js';
import { parseArgs } from './args.js';
import { runCommand } from './commands.js';
import type { CliContext } from './commands.js';

const START = Date.UTC(2026, 0, 1);

interface Harness {
  cri: FakeCriClient;
  clock: FakeClock;
  stdout: string[];
  stderr: string[];
  run(argv: string[], extra?: Partial<CliContext>): Promise<number>;
  logDir: string;
}

function harness(): Harness {
  const clock = new FakeClock(START);
  const cri = createFakeCriClient({ clock });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crictl-ts-'));
  return {
    cri,
    clock,
    stdout,
    stderr,
    logDir,
    run: (argv, extra = {}) =>
      runCommand(parseArgs(argv), {
        runtime: cri.runtime,
        image: cri.image,
        stdout: { write: (s) => stdout.push(s) },
        stderr: { write: (s) => stderr.push(s) },
        clock,
        callOptions: {},
        ...extra,
      }),
  };
}

async function podWithContainer(h: Harness, state: 'running' | 'created' = 'running'): Promise<{ podId: string; containerId: string }> {
  const { imageRef } = await h.cri.image.pullImage({ image: { image: 'busybox:1.36' } });
  const { podSandboxId } = await h.cri.runtime.runPodSandbox({
    config: { metadata: { name: 'web', uid: 'u1', namespace: 'prod' }, logDirectory: h.logDir },
  });
  await h.clock.advance(60_000);
  const { containerId } = await h.cri.runtime.createContainer({
    podSandboxId,
    config: { metadata: { name: 'app' }, image: { image: imageRef }, logPath: 'app.log', labels: { tier: 'front' } },
  });
  if (state === 'running') await h.cri.runtime.startContainer({ containerId });
  return { podId: podSandboxId, containerId };
}

describe('crictl-ts commands on the fakes', () => {
  it('pods: a crictl-style table', async () => {
    const h = harness();
    const { podId } = await podWithContainer(h);
    await h.clock.advance(42_000);
    expect(await h.run(['pods'])).toBe(0);
    const [header, row] = h.stdout.join('').trimEnd().split('\n');
    expect(header?.split(/\s{3,}/)).toEqual(['POD ID', 'CREATED', 'STATE', 'NAME', 'NAMESPACE', 'ATTEMPT', 'RUNTIME']);
    expect(row?.split(/\s{3,}/)).toEqual([podId.slice(0, 13), 'About a minute ago', 'Ready', 'web', 'prod', '0', '(default)']);
  });

  it('ps: running containers only unless -a, with the image tag and pod name', async () => {
    const h = harness();
    const { podId, containerId } = await podWithContainer(h, 'created');
    await h.run(['ps']);
    expect(h.stdout.join('').trimEnd().split('\n')).toHaveLength(1);
    h.stdout.length = 0;
    await h.run(['ps', '-a', '--label', 'tier=front']);
    const row = h.stdout
      .join('')
      .trimEnd()
      .split('\n')[1]
      ?.split(/\s{3,}/);
    expect(row).toEqual([
      containerId.slice(0, 13),
      'docker.io/library/busybox:1.36',
      'Less than a second ago',
      'Created',
      'app',
      '0',
      podId.slice(0, 13),
      'web',
    ]);
    h.stdout.length = 0;
    await h.run(['ps', '-a', '-q']);
    expect(h.stdout.join('')).toBe(`${containerId}\n`);
  });

  it('images: repo, tag, short ID and size', async () => {
    const h = harness();
    h.cri.image.addImage({ ref: '127.0.0.1:5000/kubelet-ts/busybox:test', id: `sha256:${'ab'.repeat(32)}`, size: 2_028_309 });
    await h.run(['images']);
    expect(h.stdout.join('')).toBe(
      'IMAGE                               TAG    IMAGE ID        SIZE\n127.0.0.1:5000/kubelet-ts/busybox   test   ababababababa   2.03MB\n',
    );
  });

  it('exec: prints stdout and stderr and returns the command exit code', async () => {
    const h = harness();
    const { containerId } = await podWithContainer(h);
    h.cri.runtime.setExecHandler((_id, cmd) => ({ exitCode: 4, stdout: `ran ${cmd.join(' ')}\n`, stderr: 'warning\n' }));
    expect(await h.run(['exec', '--timeout', '3', containerId, '--', 'cat', '/etc/hostname'])).toBe(4);
    expect(h.stdout.join('')).toBe('ran cat /etc/hostname\n');
    expect(h.stderr.join('')).toBe('warning\n');
    expect(h.cri.runtime.callsOf('execSync')[0]?.request).toEqual({ containerId, cmd: ['cat', '/etc/hostname'], timeout: 3 });
  });

  it('pull: sends --creds as username/password; rmi deletes every tag', async () => {
    const h = harness();
    h.cri.image.addRemoteImage({ ref: 'reg.local/app:v1', auth: { username: 'u', password: 'p:w' } });
    await h.run(['pull', '--creds', 'u:p:w', 'reg.local/app:v1']);
    expect(h.stdout.join('')).toMatch(/^Image is up to date for sha256:[0-9a-f]{64}\n$/);
    h.stdout.length = 0;
    expect(await h.run(['rmi', 'reg.local/app:v1'])).toBe(0);
    expect(h.stdout.join('')).toBe('Deleted: reg.local/app:v1\n');
    expect(h.cri.image.hasImage('reg.local/app:v1')).toBe(false);
    expect(await h.run(['rmi', 'reg.local/app:v1'])).toBe(1);
  });

  it('inspect: JSON with the status and the parsed verbose info', async () => {
    const h = harness();
    const { containerId } = await podWithContainer(h);
    await h.run(['inspect', containerId]);
    const printed = JSON.parse(h.stdout.join('')) as { status: { id: string; state: string }; info: { info: { sandboxID: string } } };
    expect(printed.status).toMatchObject({ id: containerId, state: 'CONTAINER_RUNNING' });
    expect(typeof printed.info.info.sandboxID).toBe('string');
  });

  it('logs: prints the CRI log content, stderr lines to stderr, --tail and --timestamps', async () => {
    const h = harness();
    const { containerId } = await podWithContainer(h);
    fs.writeFileSync(
      path.join(h.logDir, 'app.log'),
      [
        '2026-01-01T00:00:01.000000001Z stdout F one',
        '2026-01-01T00:00:02Z stdout P par',
        '2026-01-01T00:00:02Z stdout F tial',
        '2026-01-01T00:00:03Z stderr F oops',
        '',
      ].join('\n'),
    );
    await h.run(['logs', containerId]);
    expect(h.stdout.join('')).toBe('one\npartial\n');
    expect(h.stderr.join('')).toBe('oops\n');
    h.stdout.length = 0;
    h.stderr.length = 0;
    await h.run(['logs', '--tail', '1', '--timestamps', containerId]);
    expect(h.stdout.join('')).toBe('');
    expect(h.stderr.join('')).toBe('2026-01-01T00:00:03Z oops\n');
  });

  it('logs -f: follows new lines until the container exits', async () => {
    const h = harness();
    const { containerId } = await podWithContainer(h);
    const file = path.join(h.logDir, 'app.log');
    fs.writeFileSync(file, '2026-01-01T00:00:01Z stdout F first\n');
    let exitCode: number | undefined;
    const following = h.run(['logs', '-f', containerId], { followIntervalMs: 100 }).then((code) => (exitCode = code));
    // The follower reads the file with real I/O: wait for its output (bounded by real time) rather
    // than a fixed sleep, which a loaded machine outlasts.
    const output = (expected: string) => waitFor(`output ${JSON.stringify(expected)}`, () => h.stdout.join('') === expected, 10_000, 5);
    await h.clock.advance(0);
    await output('first\n');
    fs.appendFileSync(file, '2026-01-01T00:00:02Z stdout F second\n');
    await waitFor('the follower asleep', () => h.clock.pendingTimers > 0, 10_000, 5);
    await h.clock.advance(100);
    await output('first\nsecond\n');
    expect(exitCode).toBeUndefined();
    fs.appendFileSync(file, '2026-01-01T00:00:03Z stdout F last words\n');
    h.cri.runtime.exitContainer(containerId, 0);
    await h.clock.advance(100);
    await following;
    expect(exitCode).toBe(0);
    expect(h.stdout.join('')).toBe('first\nsecond\nlast words\n');
  });

  it('version, info and stats', async () => {
    const h = harness();
    await podWithContainer(h);
    await h.run(['version']);
    expect(h.stdout.join('')).toContain('RuntimeApiVersion:  v1');
    h.stdout.length = 0;
    await h.run(['info']);
    expect(JSON.parse(h.stdout.join(''))).toMatchObject({
      status: {
        conditions: [
          { type: 'RuntimeReady', status: true },
          { type: 'NetworkReady', status: true },
        ],
      },
    });
    h.stdout.length = 0;
    const [id] = h.cri.runtime.containerIds;
    h.cri.runtime.setContainerStats(id ?? '', {
      memory: {
        timestamp: '1',
        workingSetBytes: { value: '5000000' },
        availableBytes: null,
        usageBytes: null,
        rssBytes: null,
        pageFaults: null,
        majorPageFaults: null,
        psi: null,
      },
    });
    await h.run(['stats']);
    expect(
      h.stdout
        .join('')
        .trimEnd()
        .split('\n')[1]
        ?.split(/\s{3,}/),
    ).toEqual([(id ?? '').slice(0, 13), 'app', '0.00', '5MB', '0B', '0']);
  });
});
