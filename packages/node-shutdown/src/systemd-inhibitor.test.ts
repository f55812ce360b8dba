import { EventEmitter } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RecordingLogger } from '@kubelet-ts/common/testing';
import { FakeDBusConnection } from '@kubelet-ts/dbus/testing';
import { connectSystemdInhibitor } from './index.js';

/** A systemd-inhibit that logind lists once "started", and that exits when its stdin ends. */
function fakeHelper(bus: FakeDBusConnection, spawned: Array<{ command: string; args: readonly string[] }>) {
  return (command: string, args: readonly string[]): ChildProcess => {
    spawned.push({ command, args });
    const child = new EventEmitter() as EventEmitter & {
      pid: number;
      exitCode: number | null;
      signalCode: null;
      stdin: { end(): void };
      kill(): void;
    };
    child.pid = 4242;
    child.exitCode = null;
    child.signalCode = null;
    child.stdin = {
      end: () => {
        child.exitCode = 0;
        bus.answer('org.freedesktop.login1.Manager.ListInhibitors', { signature: 'a(ssssuu)', body: [[]] });
        child.emit('exit', 0);
      },
    };
    child.kill = () => undefined;
    bus.answer('org.freedesktop.login1.Manager.ListInhibitors', {
      signature: 'a(ssssuu)',
      body: [[['shutdown', 'kubelet', 'Kubelet needs time to handle node shutdown', 'delay', 0, 4242]]],
    });
    return child as unknown as ChildProcess;
  };
}

describe('connectSystemdInhibitor', () => {
  it("reads InhibitDelayMaxUSec, and refuses a value that is not a uint64 as upstream's error says", async () => {
    const bus = new FakeDBusConnection();
    const inhibitor = await connectSystemdInhibitor({ bus });
    bus.setProperty('org.freedesktop.login1.Manager', 'InhibitDelayMaxUSec', { signature: 't', value: 5_000_000n });
    expect(await inhibitor.currentInhibitDelayMs()).toBe(5_000);
    bus.setProperty('org.freedesktop.login1.Manager', 'InhibitDelayMaxUSec', { signature: 's', value: 'five' });
    await expect(inhibitor.currentInhibitDelayMs()).rejects.toMatchObject({
      code: 'UNEXPECTED_REPLY',
      message: 'InhibitDelayMaxUSec from logind is not a uint64 as expected',
    });
  });

  it('takes the inhibitor through systemd-inhibit, held once logind lists it, released by closing its stdin', async () => {
    const bus = new FakeDBusConnection();
    const spawned: Array<{ command: string; args: readonly string[] }> = [];
    const inhibitor = await connectSystemdInhibitor({ bus, spawn: fakeHelper(bus, spawned) });
    const lock = await inhibitor.inhibitShutdown();
    expect(spawned).toEqual([
      {
        command: 'systemd-inhibit',
        args: ['--what=shutdown', '--who=kubelet', '--why=Kubelet needs time to handle node shutdown', '--mode=delay', 'cat'],
      },
    ]);
    await lock.release();
    const list = await bus.call({
      destination: 'org.freedesktop.login1',
      path: '/org/freedesktop/login1',
      interface: 'org.freedesktop.login1.Manager',
      member: 'ListInhibitors',
    });
    expect(list.body).toEqual([[]]);
  });

  it('writes the logind.conf.d drop-in as upstream and reloads logind with SIGHUP through systemd', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'logind-conf-'));
    const bus = new FakeDBusConnection();
    bus.answer('org.freedesktop.systemd1.Manager.KillUnit', {});
    const inhibitor = await connectSystemdInhibitor({ bus, logindConfDir: path.join(dir, 'logind.conf.d') });
    await inhibitor.overrideInhibitDelay(20_000);
    expect(await fs.readFile(path.join(dir, 'logind.conf.d', '99-kubelet.conf'), 'utf8')).toBe(
      '# Kubelet logind override\n[Login]\nInhibitDelayMaxSec=20\n',
    );
    await inhibitor.reloadLogindConf();
    expect(bus.calls.at(-1)).toMatchObject({
      destination: 'org.freedesktop.systemd1',
      path: '/org/freedesktop/systemd1',
      member: 'KillUnit',
      signature: 'ssi',
      body: ['systemd-logind.service', 'all', 1],
    });
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('passes PrepareForShutdown(b) on, logs a malformed one and ends the watch with the connection', async () => {
    const bus = new FakeDBusConnection();
    const logger = new RecordingLogger();
    const inhibitor = await connectSystemdInhibitor({ bus, logger });
    const events: boolean[] = [];
    const monitor = await inhibitor.monitorShutdown((e) => events.push(e));
    expect(bus.matches).toEqual([
      "type='signal',interface='org.freedesktop.login1.Manager',member='PrepareForShutdown',path='/org/freedesktop/login1'",
    ]);
    const signal = { path: '/org/freedesktop/login1', interface: 'org.freedesktop.login1.Manager', member: 'PrepareForShutdown' };
    bus.deliverSignal({ ...signal, signature: 'b', body: [true] });
    bus.deliverSignal({ ...signal, signature: 's', body: ['yes'] });
    bus.deliverSignal({ ...signal, signature: 'b', body: [false] });
    expect(events).toEqual([true, false]);
    expect(logger.records.map((r) => r.msg)).toContain(
      'Failed obtaining shutdown event, PrepareForShutdown event was not bool type as expected',
    );
    inhibitor.close();
    await monitor.ended;
  });
});
