import type { Logger } from '@kubelet-ts/common';
import { noopLogger } from '@kubelet-ts/common';
import type { CsiNodeClient, CsiNodeClientOptions } from './csi-client.js';
import { createCsiNodeClient } from './csi-client.js';
import { VolumeError } from './errors.js';
import type { CsiDriverInfo, CsiDriverRegistry } from './types.js';

/** A CSI driver known through plugin registration. */
export interface RegisteredCsiDriver {
  name: string;
  endpoint: string;
  /** The highest CSI version it supports (`1.x`), as registered. */
  version: string;
  /** From NodeGetInfo at registration. */
  nodeId: string;
}

/**
 * The CSI plugin's side of plugin registration (upstream csi.RegistrationHandler + the csiDrivers
 * store): the CsiDriverRegistry the CSI volume plugin looks drivers up in, and structurally the
 * `PluginHandler` of @kubelet-ts/plugin-manager for `CSIPlugin` sockets (the wiring registers it
 * there), so that neither package depends on the other.
 */
export interface CsiPluginRegistry extends CsiDriverRegistry {
  /** Throws for an empty name, no usable 1.x version, or a driver already registered with an equal or higher one. */
  validatePlugin(name: string, endpoint: string, versions: string[]): void;
  /** Validates again, calls NodeGetInfo on the driver's endpoint, then keeps the driver. */
  registerPlugin(name: string, endpoint: string, versions: string[]): Promise<void>;
  /** Forgets the driver, unless it registered again on another endpoint meanwhile. */
  deregisterPlugin(name: string, endpoint: string): void;
  list(): RegisteredCsiDriver[];
}

export interface CsiPluginRegistryOptions {
  /** Builds the client used for NodeGetInfo at registration (tests inject one); createCsiNodeClient by default. */
  clientFactory?: (options: CsiNodeClientOptions) => CsiNodeClient;
  /** NodeGetInfo deadline at registration. Default 10 s. */
  nodeGetInfoTimeoutMs?: number;
  /**
   * Drivers that want pod information in NodePublishVolume's volume_context (upstream
   * CSIDriver.spec.podInfoOnMount; there are no CSIDriver objects in standalone mode).
   */
  podInfoOnMountDrivers?: readonly string[];
  logger?: Logger;
}

interface Version {
  parts: number[];
  text: string;
}

/** Upstream utilversion.ParseGeneric: `[v]N.N[.N…]` followed by anything. */
function parseGeneric(text: string): Version | undefined {
  const m = /^\s*v?([0-9]+(?:\.[0-9]+)+)(.*)$/.exec(text);
  if (m === null || m[1] === undefined) return undefined;
  const parts = m[1].split('.');
  if (parts.some((p) => p.length > 1 && p.startsWith('0'))) return undefined;
  return { parts: parts.map(Number), text };
}

const compare = (a: Version, b: Version): number => {
  for (let i = 0; i < Math.max(a.parts.length, b.parts.length); i++) {
    const d = (a.parts[i] ?? 0) - (b.parts[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
};

/** Upstream highestSupportedVersion (csi_plugin.go): the highest 1.x; versions above 1.x are ignored. */
export function highestSupportedCsiVersion(versions: string[]): string {
  if (versions.length === 0) throw new VolumeError('PLUGIN_REGISTRATION_FAILED', 'CSI driver reporting empty array for supported versions');
  let highest: Version | undefined;
  let parseError: string | undefined;
  for (const text of versions) {
    const v = parseGeneric(text);
    if (v === undefined) {
      parseError = `could not parse ${JSON.stringify(text)} as version`;
      continue;
    }
    if ((v.parts[0] ?? 0) > 1) continue;
    if (highest === undefined || compare(highest, v) < 0) highest = v;
  }
  if (highest === undefined) {
    throw new VolumeError(
      'PLUGIN_REGISTRATION_FAILED',
      `could not find a highest supported version from versions (${JSON.stringify(versions)}) reported by this driver: ${parseError ?? 'none is 1.x'}`,
    );
  }
  if (highest.parts[0] !== 1)
    throw new VolumeError('PLUGIN_REGISTRATION_FAILED', `highest supported version reported by driver is ${highest.text}, must be v1.x`);
  return highest.text;
}

/** createCsiPluginRegistry: CSI drivers registered through `<root-dir>/plugins_registry` (wire it into @kubelet-ts/plugin-manager's handlers as `CSIPlugin`). */
export function createCsiPluginRegistry(options: CsiPluginRegistryOptions = {}): CsiPluginRegistry {
  const logger = (options.logger ?? noopLogger).child({ component: 'csi-registration' });
  const clientFactory = options.clientFactory ?? createCsiNodeClient;
  const timeoutMs = options.nodeGetInfoTimeoutMs ?? 10_000;
  const podInfo = new Set(options.podInfoOnMountDrivers ?? []);
  const drivers = new Map<string, RegisteredCsiDriver>();

  const validate = (name: string, versions: string[]): string => {
    if (name === '') throw new VolumeError('PLUGIN_REGISTRATION_FAILED', 'CSI driver name is empty');
    const version = highestSupportedCsiVersion(versions);
    const existing = drivers.get(name);
    // Upstream validateVersions: only a strictly higher version replaces a registered driver.
    if (existing !== undefined && compare(parseGeneric(existing.version) as Version, parseGeneric(version) as Version) >= 0) {
      throw new VolumeError(
        'PLUGIN_REGISTRATION_FAILED',
        `RegisterPlugin for CSI driver ${JSON.stringify(name)} failed. Another driver with same name is already registered with a higher supported version: ${JSON.stringify(existing.version)}`,
      );
    }
    return version;
  };

  return {
    validatePlugin(name, _endpoint, versions) {
      validate(name, versions);
    },
    async registerPlugin(name, endpoint, versions) {
      const version = validate(name, versions);
      const client = clientFactory({ endpoint, timeoutMs });
      try {
        // Upstream: NodeGetInfo feeds the CSINode object and node annotations; standalone, it proves the driver answers.
        const info = await client.nodeGetInfo();
        drivers.set(name, { name, endpoint, version, nodeId: info.nodeId });
        logger.info('Register new plugin', { pluginName: name, endpoint, version, nodeId: info.nodeId });
      } catch (err) {
        throw new VolumeError(
          'PLUGIN_REGISTRATION_FAILED',
          `error in RegisterPlugin for CSI driver ${name}: NodeGetInfo failed: ${err instanceof Error ? err.message : String(err)}`,
          { cause: err },
        );
      } finally {
        client.close();
      }
    },
    deregisterPlugin(name, endpoint) {
      // Only the registration that went away: a newer one on another endpoint stays.
      if (drivers.get(name)?.endpoint !== endpoint) return;
      drivers.delete(name);
      logger.info('Deregister plugin', { pluginName: name, endpoint });
    },
    get(name): CsiDriverInfo | undefined {
      const driver = drivers.get(name);
      if (driver === undefined) return undefined;
      return { endpoint: driver.endpoint, ...(podInfo.has(name) ? { podInfoOnMount: true } : {}) };
    },
    list: () => [...drivers.values()].map((d) => ({ ...d })),
  };
}
