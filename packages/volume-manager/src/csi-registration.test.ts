import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { createCsiPluginRegistry, highestSupportedCsiVersion } from './csi-registration.js';
import { makeTempDir } from './internal/test-dirs.js';
import type { TempDir } from './internal/test-dirs.js';
import { createSystemMounter } from './mounter.js';
import { createFakeCsiNodeServer, csiStatus } from './testing/index.js';
import type { FakeCsiNodeServer } from './testing/index.js';

// The registry as @kubelet-ts/plugin-manager's watcher drives it for a CSIPlugin socket (validate,
// then register, later deregister); the watcher itself is tested in that package.
const DRIVER = 'bind.csi.kubelet-ts.test';
let tmp: TempDir;
let csi: FakeCsiNodeServer;
let csiSocket: string;

beforeEach(async () => {
  tmp = await makeTempDir('vm-csi-reg-');
  await mkdir(join(tmp.path, 'backing'));
  csiSocket = join(tmp.path, 'csi.sock');
  csi = createFakeCsiNodeServer({
    socketPath: csiSocket,
    mounter: createSystemMounter(),
    backingDir: join(tmp.path, 'backing'),
    nodeId: 'node-a',
  });
  await csi.start();
});
afterEach(async () => {
  await csi.stop();
  await tmp.cleanup();
});

describe('createCsiPluginRegistry as the CSIPlugin handler', () => {
  it('registers a driver once NodeGetInfo answers, serves it to the CSI volume plugin, and forgets it on deregistration', async () => {
    const drivers = createCsiPluginRegistry({ nodeGetInfoTimeoutMs: 5_000 });
    drivers.validatePlugin(DRIVER, csiSocket, ['1.0.0']);
    await drivers.registerPlugin(DRIVER, csiSocket, ['1.0.0']);
    expect(csi.calls.map((c) => c.method)).toEqual(['NodeGetInfo']);
    expect(drivers.get(DRIVER)).toEqual({ endpoint: csiSocket });
    expect(drivers.list()).toEqual([{ name: DRIVER, endpoint: csiSocket, version: '1.0.0', nodeId: 'node-a' }]);
    drivers.deregisterPlugin(DRIVER, csiSocket);
    expect(drivers.get(DRIVER)).toBeUndefined();
    expect(drivers.list()).toEqual([]);
  });

  it('refuses unsupported versions with the upstream message', () => {
    const drivers = createCsiPluginRegistry();
    expect(() => drivers.validatePlugin('v2.csi', csiSocket, ['2.0.0'])).toThrow(
      'could not find a highest supported version from versions (["2.0.0"]) reported by this driver: none is 1.x',
    );
  });

  it('does not register a driver whose NodeGetInfo fails, and registers it once it answers', async () => {
    const drivers = createCsiPluginRegistry({ nodeGetInfoTimeoutMs: 5_000 });
    csi.handlers.NodeGetInfo = () => {
      throw csiStatus(grpc.status.UNAVAILABLE, 'not ready');
    };
    await expect(drivers.registerPlugin(DRIVER, csiSocket, ['1.0.0'])).rejects.toThrow(
      `error in RegisterPlugin for CSI driver ${DRIVER}: NodeGetInfo failed: rpc error: code = UNAVAILABLE desc = not ready`,
    );
    expect(drivers.get(DRIVER)).toBeUndefined();
    csi.handlers.NodeGetInfo = () => ({ nodeId: 'node-a', maxVolumesPerNode: '0' });
    await drivers.registerPlugin(DRIVER, csiSocket, ['1.0.0']);
    expect(drivers.get(DRIVER)?.endpoint).toBe(csiSocket);
  });
});

describe('createCsiPluginRegistry', () => {
  it('picks the highest 1.x version as upstream', () => {
    expect(highestSupportedCsiVersion(['0.3.0', '1.0.0', '1.2.0', '2.0.0'])).toBe('1.2.0');
    expect(highestSupportedCsiVersion(['v1.5.0'])).toBe('v1.5.0');
    expect(() => highestSupportedCsiVersion([])).toThrow('CSI driver reporting empty array for supported versions');
    expect(() => highestSupportedCsiVersion(['0.3.0'])).toThrow('highest supported version reported by driver is 0.3.0, must be v1.x');
    expect(() => highestSupportedCsiVersion(['banana'])).toThrow(
      'could not find a highest supported version from versions (["banana"]) reported by this driver: could not parse "banana" as version',
    );
  });

  it('keeps a registered driver against an equal or lower version, passes podInfoOnMount, deregisters only the endpoint that went', async () => {
    const drivers = createCsiPluginRegistry({ podInfoOnMountDrivers: [DRIVER] });
    await drivers.registerPlugin(DRIVER, csiSocket, ['1.1.0']);
    expect(drivers.get(DRIVER)).toEqual({ endpoint: csiSocket, podInfoOnMount: true });
    expect(() => drivers.validatePlugin(DRIVER, '/other.sock', ['1.1.0'])).toThrow(
      'already registered with a higher supported version: "1.1.0"',
    );
    expect(() => drivers.validatePlugin('', '/x.sock', ['1.0.0'])).toThrow('CSI driver name is empty');
    drivers.deregisterPlugin(DRIVER, '/other.sock');
    expect(drivers.get(DRIVER)).toBeDefined();
    drivers.deregisterPlugin(DRIVER, csiSocket);
    expect(drivers.get(DRIVER)).toBeUndefined();
  });
});
