/**
 * The client against a real dbus-daemon on a private socket (started here, a system bus
 * configuration of its own), with busctl (sd-bus) on the other end where a second implementation
 * proves the wire format: Hello, calls and error replies, Properties.Get, AddMatch and signals, a
 * served object, deadlines, and peers that refuse or speak garbage.
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { readmeSnippet, waitFor } from '@kubelet-ts/test-support';
import { BUS_NAME, BUS_PATH, DBusError, connectBus, matchRule } from '../../src/index.js';
import type { DBusConnection, SignalMessage } from '../../src/index.js';

const execFileAsync = promisify(execFile);

const CONFIG = (socket: string): string => `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=${socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
  </policy>
</busconfig>
`;

let dir: string;
let daemon: ChildProcess;
let address: string;
const connections: DBusConnection[] = [];
const servers: Server[] = [];

const connect = async (): Promise<DBusConnection> => {
  const c = await connectBus({ address, callTimeoutMs: 5_000 });
  connections.push(c);
  return c;
};
const busctl = (...args: string[]): Promise<{ stdout: string }> =>
  execFileAsync('busctl', ['--system', ...args], { env: { ...process.env, DBUS_SYSTEM_BUS_ADDRESS: address }, timeout: 10_000 });

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'kubelet-ts-dbus-'));
  const socket = path.join(dir, 'bus.sock');
  await fs.writeFile(path.join(dir, 'bus.conf'), CONFIG(socket));
  daemon = spawn('dbus-daemon', [`--config-file=${path.join(dir, 'bus.conf')}`, '--nofork'], { stdio: 'ignore' });
  address = `unix:path=${socket}`;
  await waitFor(
    'dbus-daemon socket',
    async () =>
      fs.stat(socket).then(
        () => true,
        () => false,
      ),
    10_000,
    50,
  );
});

afterAll(async () => {
  for (const c of connections) c.close();
  for (const s of servers) s.close();
  daemon?.kill('SIGTERM');
  await fs.rm(dir, { recursive: true, force: true });
});

describe('a real dbus-daemon', () => {
  it('says Hello, answers calls and refuses unknown names with the error name', async () => {
    const c = await connect();
    expect(c.uniqueName).toMatch(/^:1\.\d+$/);
    const reply = await c.call({
      destination: BUS_NAME,
      path: BUS_PATH,
      interface: BUS_NAME,
      member: 'GetNameOwner',
      signature: 's',
      body: [BUS_NAME],
    });
    expect(reply.body).toEqual([BUS_NAME]);
    const missing = await c
      .call({
        destination: 'org.freedesktop.login1',
        path: '/org/freedesktop/login1',
        interface: 'org.freedesktop.login1.Manager',
        member: 'Inhibit',
      })
      .catch((err: unknown) => err);
    expect(DBusError.is(missing, 'REMOTE_ERROR')).toBe(true);
    expect((missing as DBusError).errorName).toBe('org.freedesktop.DBus.Error.ServiceUnknown');
  });

  it('reads a property through org.freedesktop.DBus.Properties.Get', async () => {
    const c = await connect();
    const features = await c.getProperty(BUS_NAME, BUS_PATH, BUS_NAME, 'Interfaces');
    expect(features.signature).toBe('as');
    expect(Array.isArray(features.value)).toBe(true);
  });

  it('serves an object that busctl (sd-bus) calls, reads properties of and receives signals from', async () => {
    const service = await connect();
    expect(await service.requestName('io.kubelet_ts.Test')).toBe(1);
    service.handleMethodCalls(async (call) => {
      if (call.member === 'Echo') return { signature: 'sbut', body: call.body ?? [] };
      if (call.interface === 'org.freedesktop.DBus.Properties' && call.member === 'Get')
        return { signature: 'v', body: [{ signature: 't', value: 5_000_000n }] };
      if (call.member === 'Fail') throw new DBusError('REMOTE_ERROR', 'it failed', { errorName: 'io.kubelet_ts.Error.Failed' });
      return undefined;
    });
    const { stdout } = await busctl(
      'call',
      'io.kubelet_ts.Test',
      '/io/kubelet_ts/Test',
      'io.kubelet_ts.Test',
      'Echo',
      'sbut',
      'héllo',
      'true',
      '7',
      '18446744073709551615',
    );
    // busctl prints non-ASCII bytes in octal: the UTF-8 of "é".
    expect(stdout.trim()).toBe('sbut "h\\303\\251llo" true 7 18446744073709551615');
    const property = await busctl('get-property', 'io.kubelet_ts.Test', '/io/kubelet_ts/Test', 'io.kubelet_ts.Test', 'Delay');
    expect(property.stdout.trim()).toBe('t 5000000');
    const failed = await busctl('call', 'io.kubelet_ts.Test', '/io/kubelet_ts/Test', 'io.kubelet_ts.Test', 'Fail').catch(
      (err: { stderr: string }) => err.stderr,
    );
    expect(failed).toContain('it failed');

    // Our own client on both ends: the match rule, then the signal.
    const listener = await connect();
    await listener.addMatch(matchRule({ type: 'signal', interface: 'io.kubelet_ts.Test', member: 'Changed', path: '/io/kubelet_ts/Test' }));
    const received: SignalMessage[] = [];
    listener.onSignal({ interface: 'io.kubelet_ts.Test', member: 'Changed' }, (s) => received.push(s));
    service.emitSignal({ path: '/io/kubelet_ts/Test', interface: 'io.kubelet_ts.Test', member: 'Changed', signature: 'b', body: [true] });
    await waitFor('the signal', async () => received.length === 1, 5_000, 20);
    expect(received[0]).toMatchObject({ sender: service.uniqueName, signature: 'b', body: [true] });
    // And a signal busctl emits.
    await busctl('emit', '/io/kubelet_ts/Test', 'io.kubelet_ts.Test', 'Changed', 'b', 'false');
    await waitFor('the busctl signal', async () => received.length === 2, 5_000, 20);
    expect(received[1]?.body).toEqual([false]);
    const echoed = await listener.call({
      destination: 'io.kubelet_ts.Test',
      path: '/io/kubelet_ts/Test',
      interface: 'io.kubelet_ts.Test',
      member: 'Echo',
      signature: 'sbut',
      body: ['x', false, 4294967295, 1n],
    });
    expect(echoed.body).toEqual(['x', false, 4294967295, 1n]);
  });

  it('rejects a call that gets no reply by its deadline with TIMEOUT, and pending calls with CLOSED on close', async () => {
    const silent = await connect();
    await silent.requestName('io.kubelet_ts.Silent');
    // A handler that never answers.
    silent.handleMethodCalls(() => new Promise(() => undefined));
    const c = await connect();
    const call = { destination: 'io.kubelet_ts.Silent', path: '/x', interface: 'io.kubelet_ts.Silent', member: 'Wait' };
    await expect(c.call({ ...call, timeoutMs: 200 })).rejects.toMatchObject({ code: 'TIMEOUT' });
    const pending = c.call(call);
    c.close();
    await expect(pending).rejects.toMatchObject({ code: 'CLOSED' });
  });
});

describe('README', () => {
  it('runs the usage snippet, which is the README block verbatim', async () => {
    const received: unknown[] = [];
    // README:begin
    const bus = await connectBus({ address, callTimeoutMs: 5_000 }); // address: default DBUS_SYSTEM_BUS_ADDRESS
    const owner = await bus.call({
      destination: BUS_NAME,
      path: BUS_PATH,
      interface: BUS_NAME,
      member: 'GetNameOwner',
      signature: 's',
      body: [BUS_NAME],
    });
    const features = await bus.getProperty(BUS_NAME, BUS_PATH, BUS_NAME, 'Features'); // { signature: 'as', value: [...] }
    await bus.addMatch(matchRule({ type: 'signal', interface: 'org.freedesktop.login1.Manager', member: 'PrepareForShutdown' }));
    const stop = bus.onSignal({ member: 'PrepareForShutdown' }, (signal) => received.push(signal.body)); // [[true]]
    stop();
    bus.close();
    // README:end
    expect(readFileSync(path.join(__dirname, '../../README.md'), 'utf8')).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));
    expect(owner.body).toEqual([BUS_NAME]);
    expect(features.signature).toBe('as');
    expect(received).toEqual([]);
  });
});

describe('peers that are not a good bus', () => {
  const fakeBus = async (onLine: (socket: Socket) => void): Promise<string> => {
    const socket = path.join(dir, `fake-${servers.length}.sock`);
    const server = createServer((s) => {
      s.once('data', () => onLine(s));
      s.on('error', () => undefined);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    return `unix:path=${socket}`;
  };

  it('a refused SASL EXTERNAL is AUTH_FAILED', async () => {
    const bad = await fakeBus((s) => s.write('REJECTED EXTERNAL\r\n'));
    await expect(connectBus({ address: bad, callTimeoutMs: 2_000 })).rejects.toMatchObject({ code: 'AUTH_FAILED' });
  });

  it('garbage after authentication is a PROTOCOL error, never a crash', async () => {
    const bad = await fakeBus((s) => {
      s.write(`OK ${'0'.repeat(32)}\r\n`);
      s.write(Buffer.from('this is not a D-Bus message at all\n'));
    });
    await expect(connectBus({ address: bad, callTimeoutMs: 2_000 })).rejects.toMatchObject({ code: 'PROTOCOL' });
  });

  it('a socket that is not there is CONNECTION', async () => {
    await expect(connectBus({ address: `unix:path=${path.join(dir, 'none.sock')}` })).rejects.toMatchObject({ code: 'CONNECTION' });
  });

  it('an address without a unix socket is INVALID_ADDRESS', async () => {
    await expect(connectBus({ address: 'tcp:host=localhost,port=1' })).rejects.toMatchObject({ code: 'INVALID_ADDRESS' });
  });
});
