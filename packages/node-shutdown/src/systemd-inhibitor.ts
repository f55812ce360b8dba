import { spawn as spawnChild } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import type { DBusConnection, DBusValue } from '@kubelet-ts/dbus';
import { DBusError, connectBus, matchRule, replyBody } from '@kubelet-ts/dbus';
import { INHIBIT_MODE, INHIBIT_WHAT, INHIBIT_WHO, INHIBIT_WHY, KUBELET_LOGIND_CONF, LOGIND_CONF_DIR } from './constants.js';
import { NodeShutdownError } from './errors.js';
import type { InhibitLock, ShutdownInhibitor, ShutdownMonitor } from './manager.js';

export const LOGIND_SERVICE = 'org.freedesktop.login1';
export const LOGIND_OBJECT = '/org/freedesktop/login1';
export const LOGIND_INTERFACE = 'org.freedesktop.login1.Manager';
const SYSTEMD_SERVICE = 'org.freedesktop.systemd1';
const SYSTEMD_OBJECT = '/org/freedesktop/systemd1';
const SYSTEMD_INTERFACE = 'org.freedesktop.systemd1.Manager';

/** How the helper that holds the inhibitor is started (tests pass a fake). */
export type SpawnFn = (command: string, args: readonly string[], options: { env: NodeJS.ProcessEnv }) => ChildProcess;

export interface SystemdInhibitorOptions {
  /** A D-Bus address. Default: DBUS_SYSTEM_BUS_ADDRESS, else the system bus. */
  address?: string;
  /** A connection to use instead of connecting (tests). */
  bus?: DBusConnection;
  /** Where the InhibitDelayMaxSec drop-in goes. Default: upstream's /etc/systemd/logind.conf.d. */
  logindConfDir?: string;
  /** The helper that takes and holds the inhibitor. Default: `systemd-inhibit` from PATH. */
  inhibitCommand?: string;
  spawn?: SpawnFn;
  /** The helper's environment (its DBUS_SYSTEM_BUS_ADDRESS). Default: this process's, with `address` when given. */
  env?: NodeJS.ProcessEnv;
  /** Deadline of each D-Bus call and of taking the inhibitor. */
  timeoutMs?: number;
  clock?: Clock;
  logger?: Logger;
}

const inhibitorsSchema = z.array(z.tuple([z.string(), z.string(), z.string(), z.string(), z.number(), z.number()]));
const prepareForShutdownSchema = z.tuple([z.boolean()]);

/**
 * logind over D-Bus as upstream's systemd.DBusCon does, with one difference forced by node: a
 * socket here cannot receive unix fds (no recvmsg with SCM_RIGHTS; the bus drops a reply carrying
 * one to a client that did not negotiate fd passing), so the inhibitor's fd cannot be ours. It is
 * held by `systemd-inhibit --what=shutdown --who=kubelet --why=… --mode=delay cat`, which logind
 * lists with the same what/who/why/mode; closing its stdin releases it, and so does the kubelet's
 * death (the pipe closes), as the fd's close does upstream.
 */
export async function connectSystemdInhibitor(o: SystemdInhibitorOptions = {}): Promise<ShutdownInhibitor> {
  const clock = o.clock ?? systemClock;
  const logger = o.logger ?? noopLogger;
  const timeoutMs = o.timeoutMs ?? 10_000;
  const bus =
    o.bus ?? (await connectBus({ ...(o.address !== undefined ? { address: o.address } : {}), callTimeoutMs: timeoutMs, clock, logger }));
  const spawn: SpawnFn =
    o.spawn ?? ((command, args, options) => spawnChild(command, [...args], { env: options.env, stdio: ['pipe', 'ignore', 'pipe'] }));
  const env = o.env ?? { ...process.env, ...(o.address !== undefined ? { DBUS_SYSTEM_BUS_ADDRESS: o.address } : {}) };
  const confDir = o.logindConfDir ?? LOGIND_CONF_DIR;

  const listInhibitorPids = async (): Promise<number[]> => {
    const reply = await bus.call({
      destination: LOGIND_SERVICE,
      path: LOGIND_OBJECT,
      interface: LOGIND_INTERFACE,
      member: 'ListInhibitors',
    });
    const parsed = inhibitorsSchema.safeParse(replyBody(reply, 'a(ssssuu)', 'ListInhibitors')[0]);
    if (!parsed.success) throw new DBusError('UNEXPECTED_REPLY', 'ListInhibitors: not a(ssssuu)');
    return parsed.data
      .filter(([what, who, , mode]) => what === INHIBIT_WHAT && who === INHIBIT_WHO && mode === INHIBIT_MODE)
      .map((i) => i[5]);
  };

  return {
    async currentInhibitDelayMs() {
      let variant;
      try {
        variant = await bus.getProperty(LOGIND_SERVICE, LOGIND_OBJECT, LOGIND_INTERFACE, 'InhibitDelayMaxUSec');
      } catch (err) {
        throw DBusError.from(err, undefined, `failed reading InhibitDelayMaxUSec property from logind: ${errorMessage(err)}`);
      }
      if (variant.signature !== 't' || typeof variant.value !== 'bigint')
        throw new DBusError('UNEXPECTED_REPLY', 'InhibitDelayMaxUSec from logind is not a uint64 as expected');
      return Number(variant.value / 1000n);
    },

    async inhibitShutdown() {
      const command = o.inhibitCommand ?? 'systemd-inhibit';
      const args = [`--what=${INHIBIT_WHAT}`, `--who=${INHIBIT_WHO}`, `--why=${INHIBIT_WHY}`, `--mode=${INHIBIT_MODE}`, 'cat'];
      const child = spawn(command, args, { env });
      let stderr = '';
      child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
      const exited = new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.once('error', () => resolve());
      });
      let spawnError: Error | undefined;
      child.once('error', (err) => (spawnError = err));
      const gone = (): boolean => spawnError !== undefined || child.exitCode !== null || child.signalCode !== null;
      // Held once logind lists an inhibitor of the helper's pid (it forks `cat` after Inhibit returned).
      const deadline = clock.now() + timeoutMs;
      for (;;) {
        if (gone()) {
          throw new NodeShutdownError(
            'INHIBIT_FAILED',
            `failed creating systemd inhibitor: ${spawnError !== undefined ? spawnError.message : `${command} exited (${child.exitCode ?? child.signalCode}): ${stderr.trim()}`}`,
          );
        }
        const pids = await listInhibitorPids().catch((err: unknown): number[] => {
          logger.debug('ListInhibitors failed', { err: errorMessage(err) });
          return [];
        });
        if (child.pid !== undefined && pids.includes(child.pid)) break;
        if (clock.now() > deadline) {
          child.kill('SIGKILL');
          throw new NodeShutdownError('INHIBIT_FAILED', `failed creating systemd inhibitor: ${command} holds none after ${timeoutMs}ms`);
        }
        await clock.sleep(50);
      }
      let released = false;
      const lock: InhibitLock = {
        async release() {
          if (released) return;
          released = true;
          // cat sees EOF and exits, then systemd-inhibit, whose fd closes: logind proceeds.
          child.stdin?.end();
          const timer = clock.setTimeout(() => child.kill('SIGKILL'), timeoutMs);
          await exited;
          clock.clearTimeout(timer);
        },
      };
      return lock;
    },

    async overrideInhibitDelay(ms) {
      try {
        await fs.mkdir(confDir, { recursive: true, mode: 0o755 });
      } catch (err) {
        throw new NodeShutdownError('START_FAILED', `failed creating ${confDir} directory: ${errorMessage(err)}`, { cause: err });
      }
      // logind.conf's InhibitDelayMaxSec is in seconds, the D-Bus property InhibitDelayMaxUSec in µs.
      const body = `# Kubelet logind override\n[Login]\nInhibitDelayMaxSec=${Math.round(ms / 1000)}\n`;
      const file = path.join(confDir, KUBELET_LOGIND_CONF);
      try {
        await fs.writeFile(file, body, { mode: 0o644 });
      } catch (err) {
        throw new NodeShutdownError('START_FAILED', `failed writing logind shutdown inhibit override file ${file}: ${errorMessage(err)}`, {
          cause: err,
        });
      }
    },

    async reloadLogindConf() {
      try {
        await bus.call({
          destination: SYSTEMD_SERVICE,
          path: SYSTEMD_OBJECT,
          interface: SYSTEMD_INTERFACE,
          member: 'KillUnit',
          signature: 'ssi',
          body: ['systemd-logind.service', 'all', 1],
        });
      } catch (err) {
        throw DBusError.from(err, undefined, `unable to reload logind conf: ${errorMessage(err)}`);
      }
    },

    async monitorShutdown(onEvent) {
      await bus.addMatch(matchRule({ type: 'signal', interface: LOGIND_INTERFACE, member: 'PrepareForShutdown', path: LOGIND_OBJECT }));
      bus.onSignal({ interface: LOGIND_INTERFACE, member: 'PrepareForShutdown', path: LOGIND_OBJECT }, (s) => {
        const parsed = prepareForShutdownSchema.safeParse(s.body as DBusValue[]);
        if (!parsed.success) {
          logger.error('Failed obtaining shutdown event, PrepareForShutdown event was not bool type as expected', {
            signature: s.signature ?? '',
          });
          return;
        }
        onEvent(parsed.data[0]);
      });
      const ended = new Promise<void>((resolve) => {
        if (bus.closed) resolve();
        bus.onClose(() => resolve());
      });
      const monitor: ShutdownMonitor = { ended };
      return monitor;
    },

    close() {
      bus.close();
    },
  };
}
