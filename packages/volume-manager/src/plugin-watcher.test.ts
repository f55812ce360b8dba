import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { FakeClock } from '@kubelet-ts/common/testing';
import { createCsiPluginRegistry, highestSupportedCsiVersion } from './csi-registration.js';
import { makeTempDir } from './internal/test-dirs.js';
import type { TempDir } from './internal/test-dirs.js';
import { createSystemMounter } from './mounter.js';
import { createPluginWatcher, pluginsRegistryDir } from './plugin-watcher.js';
import { createFakeCsiNodeServer, createFakeRegistrationServer, csiStatus } from './testing/index.js';
import type { FakeCsiNodeServer, FakeRegistrationServer, FakeRegistrationServerOptions } from './testing/index.js';

const DRIVER = 'bind.csi.kubelet-ts.test';
let tmp: TempDir;
let registry: string;
let csi: FakeCsiNodeServer;
const servers: FakeRegistrationServer[] = [];

beforeEach(async () => {
  tmp = await makeTempDir('vm-plugins-');
  registry = pluginsRegistryDir(join(tmp.path, 'root'));
  await mkdir(registry, { recursive: true });
  await mkdir(join(tmp.path, 'backing'));
  csi = createFakeCsiNodeServer({ socketPath: join(tmp.path, 'csi.sock'), mounter: createSystemMounter(), backingDir: join(tmp.path, 'backing'), nodeId: 'node-a' });
  await csi.start();
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
  await csi.stop();
  await tmp.cleanup();
});

async function plugin(file: string, options: Partial<FakeRegistrationServerOptions> = {}): Promise<FakeRegistrationServer> {
  const server = createFakeRegistrationServer({ socketPath: join(registry, file), name: DRIVER, endpoint: join(tmp.path, 'csi.sock'), ...options });
  await server.start();
  servers.push(server);
  return server;
}

function setup() {
  const clock = new FakeClock();
  const drivers = createCsiPluginRegistry({ nodeGetInfoTimeoutMs: 5_000 });
  const watcher = createPluginWatcher({ dir: registry, handlers: { CSIPlugin: drivers }, clock, watch: false });
  return { clock, drivers, watcher };
}

describe('createPluginWatcher with the CSI plugin registry', () => {
  it('registers a CSI driver from its registration socket (GetInfo, NodeGetInfo, NotifyRegistrationStatus) and deregisters it when the socket goes', async () => {
    const { drivers, watcher } = setup();
    const reg = await plugin('bind-reg.sock');
    await watcher.sync();
    expect(reg.statuses).toEqual([{ pluginRegistered: true, error: '' }]);
    expect(csi.calls.map((c) => c.method)).toEqual(['NodeGetInfo']);
    expect(drivers.get(DRIVER)).toEqual({ endpoint: join(tmp.path, 'csi.sock') });
    expect(drivers.list()).toEqual([{ name: DRIVER, endpoint: join(tmp.path, 'csi.sock'), version: '1.0.0', nodeId: 'node-a' }]);
    expect(watcher.getRegisteredPlugins()).toEqual([{ socketPath: join(registry, 'bind-reg.sock'), type: 'CSIPlugin', name: DRIVER, endpoint: join(tmp.path, 'csi.sock'), supportedVersions: ['1.0.0'] }]);

    // Nothing is asked again while the socket stays.
    await watcher.sync();
    expect(reg.getInfoCalls).toBe(1);

    await reg.stop();
    await watcher.sync();
    expect(drivers.get(DRIVER)).toBeUndefined();
    expect(watcher.getRegisteredPlugins()).toEqual([]);
  });

  it('uses the registration socket as the endpoint when GetInfo gives none, finds sockets in subdirectories, ignores dot names and plain files', async () => {
    const { drivers, watcher } = setup();
    await mkdir(join(registry, 'sub'));
    await writeFile(join(registry, 'not-a-socket'), '');
    const hidden = await plugin('.hidden.sock', { name: 'hidden.csi' });
    await plugin(join('sub', 'self-reg.sock'), { name: 'self.csi', endpoint: '' });
    // The fake CSI server is elsewhere, so registering 'self.csi' calls NodeGetInfo on the registration socket, which fails.
    await watcher.sync();
    expect(hidden.getInfoCalls).toBe(0);
    expect(drivers.get('self.csi')).toBeUndefined();
    const self = servers[1]!;
    expect(self.statuses).toEqual([{ pluginRegistered: false, error: expect.stringMatching(/^RegisterPlugin error -- plugin registration failed with err: .*NodeGetInfo failed: rpc error: code = UNIMPLEMENTED/) }]);
  });

  it('refuses unknown plugin types and unsupported versions with the upstream messages, and retries with back-off while the socket stays', async () => {
    const { clock, drivers, watcher } = setup();
    const device = await plugin('device.sock', { type: 'DevicePlugin', name: 'example.com/gpu' });
    const v2 = await plugin('v2.sock', { name: 'v2.csi', supportedVersions: ['2.0.0'] });
    await watcher.sync();
    expect(device.statuses).toEqual([{ pluginRegistered: false, error: `RegisterPlugin error -- no handler registered for plugin type: DevicePlugin at socket ${join(registry, 'device.sock')}` }]);
    expect(v2.statuses).toEqual([
      { pluginRegistered: false, error: 'RegisterPlugin error -- plugin validation failed with err: could not find a highest supported version from versions (["2.0.0"]) reported by this driver: none is 1.x' },
    ]);
    expect(drivers.list()).toEqual([]);

    await watcher.sync();
    expect(device.getInfoCalls).toBe(1);
    await clock.advance(500);
    await watcher.sync();
    expect(device.getInfoCalls).toBe(2);
  });

  it('does not register a driver whose NodeGetInfo fails, and registers it once it answers', async () => {
    const { clock, drivers, watcher } = setup();
    csi.handlers.NodeGetInfo = () => {
      throw csiStatus(grpc.status.UNAVAILABLE, 'not ready');
    };
    const reg = await plugin('bind-reg.sock');
    await watcher.sync();
    expect(reg.statuses).toEqual([
      { pluginRegistered: false, error: `RegisterPlugin error -- plugin registration failed with err: error in RegisterPlugin for CSI driver ${DRIVER}: NodeGetInfo failed: rpc error: code = UNAVAILABLE desc = not ready` },
    ]);
    expect(drivers.get(DRIVER)).toBeUndefined();
    expect(watcher.getRegisteredPlugins()).toEqual([]);
    csi.handlers.NodeGetInfo = () => ({ nodeId: 'node-a', maxVolumesPerNode: '0' });
    await clock.advance(500);
    await watcher.sync();
    expect(reg.statuses.at(-1)).toEqual({ pluginRegistered: true, error: '' });
    expect(drivers.get(DRIVER)?.endpoint).toBe(join(tmp.path, 'csi.sock'));
  });
});

describe('createPluginWatcher.run', () => {
  it('creates the directory, registers what it finds, and returns once the signal aborts', async () => {
    const clock = new FakeClock();
    const drivers = createCsiPluginRegistry();
    const dir = join(tmp.path, 'root2', 'plugins_registry');
    const watcher = createPluginWatcher({ dir, handlers: { CSIPlugin: drivers }, clock, watch: false });
    const controller = new AbortController();
    const running = watcher.run(controller.signal);
    await watcher.sync();
    expect((await stat(dir)).isDirectory()).toBe(true);
    const reg = createFakeRegistrationServer({ socketPath: join(dir, 'late-reg.sock'), name: DRIVER, endpoint: join(tmp.path, 'csi.sock') });
    await reg.start();
    servers.push(reg);
    await watcher.sync();
    expect(drivers.get(DRIVER)).toBeDefined();
    controller.abort();
    await expect(running).resolves.toBeUndefined();
  });
});

describe('createCsiPluginRegistry', () => {
  it('picks the highest 1.x version as upstream', () => {
    expect(highestSupportedCsiVersion(['0.3.0', '1.0.0', '1.2.0', '2.0.0'])).toBe('1.2.0');
    expect(highestSupportedCsiVersion(['v1.5.0'])).toBe('v1.5.0');
    expect(() => highestSupportedCsiVersion([])).toThrow('CSI driver reporting empty array for supported versions');
    expect(() => highestSupportedCsiVersion(['0.3.0'])).toThrow('highest supported version reported by driver is 0.3.0, must be v1.x');
    expect(() => highestSupportedCsiVersion(['banana'])).toThrow('could not find a highest supported version from versions (["banana"]) reported by this driver: could not parse "banana" as version');
  });

  it('keeps a registered driver against an equal or lower version, passes podInfoOnMount, deregisters only the endpoint that went', async () => {
    const drivers = createCsiPluginRegistry({ podInfoOnMountDrivers: [DRIVER] });
    await drivers.registerPlugin(DRIVER, join(tmp.path, 'csi.sock'), ['1.1.0']);
    expect(drivers.get(DRIVER)).toEqual({ endpoint: join(tmp.path, 'csi.sock'), podInfoOnMount: true });
    expect(() => drivers.validatePlugin(DRIVER, '/other.sock', ['1.1.0'])).toThrow('already registered with a higher supported version: "1.1.0"');
    expect(() => drivers.validatePlugin('', '/x.sock', ['1.0.0'])).toThrow('CSI driver name is empty');
    drivers.deregisterPlugin(DRIVER, '/other.sock');
    expect(drivers.get(DRIVER)).toBeDefined();
    drivers.deregisterPlugin(DRIVER, join(tmp.path, 'csi.sock'));
    expect(drivers.get(DRIVER)).toBeUndefined();
  });
});
