import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Container, NodeResources, Pod } from '@kubelet-ts/api';
import type { Logger } from '@kubelet-ts/common';
import { errorMessage, noopLogger } from '@kubelet-ts/common';
import type { ContainerMount, RunContainerOptions, RuntimeHelper } from '@kubelet-ts/container-runtime';
import { PodLifecycleError } from './errors.js';
import { getPodDNS, parseResolvConf, podDnsType } from './internal/dns.js';
import type { DnsConfig } from './internal/dns.js';
import { makeEnvironmentVariables } from './internal/env.js';
import type { ConfigMapSecretSource } from './internal/env.js';
import type { ServiceLister } from './internal/service-env.js';
import { ensureHostsFile, managedHostsFileContent, nodeHostsFileContent } from './internal/hosts-file.js';
import { makePodDataDirs, podDir } from './internal/pod-dirs.js';
import type { VolumeProvider } from './types.js';

export type { ConfigMapSecretSource } from './internal/env.js';
export type { ServiceLister } from './internal/service-env.js';

export interface RuntimeHelperDeps {
  /** The kubelet's --root-dir (pods live in `<rootDir>/pods/<uid>`). */
  rootDir: string;
  nodeName: string;
  /** The node's IPs, primary first (status.hostIP(s), host-network pod IPs). */
  getNodeIPs: () => string[];
  /** Node allocatable, read at each container start: the value of resourceFieldRef limits a container does not set. None (0) by default. */
  getNodeAllocatable?: () => NodeResources;
  /** configMapKeyRef / secretKeyRef / envFrom; standalone has none. */
  configMapsAndSecrets?: ConfigMapSecretSource;
  /**
   * The services for the service environment variables (API mode: the services informer). Until it
   * has synced, non-static pods' containers fail with CreateContainerConfigError and are retried.
   * Standalone has none: no service variables.
   */
  services?: ServiceLister;
  /** Container mounts (the volume manager). Without one only the managed /etc/hosts is mounted. */
  volumes?: VolumeProvider;
  /** --resolv-conf; "" means none (pods then resolve through the local machine). Default /etc/resolv.conf. */
  resolvConf?: string;
  /** --cluster-dns. */
  clusterDNS?: string[];
  /** --cluster-domain. */
  clusterDomain?: string;
  /** The cgroup parent of a pod's sandbox (from the cgroup manager); undefined by default. */
  getPodCgroupParent?: (pod: Pod) => string | undefined;
  /** The node's hosts file, the base of host-network pods' /etc/hosts (default /etc/hosts). */
  nodeHostsFile?: string;
  logger?: Logger;
}

const NO_RESOURCES: NodeResources = { cpuMilli: 0, memoryBytes: 0 };

/** Upstream truncatePodHostnameIfNeeded: at most 63 characters, no trailing "-" or ".". */
function truncateHostname(name: string): string {
  if (name.length <= 63) return name;
  return name.slice(0, 63).replace(/[-.]+$/, '');
}

/** Upstream GeneratePodHostNameAndDomain: spec.hostname or the pod name; the domain from the subdomain. */
export function podHostnameAndDomain(pod: Pod, clusterDomain: string): { hostname: string; domain: string } {
  const hostname = truncateHostname(pod.spec.hostname !== undefined && pod.spec.hostname !== '' ? pod.spec.hostname : pod.metadata.name);
  const subdomain = pod.spec.subdomain ?? '';
  const domain = subdomain !== '' && clusterDomain !== '' ? `${subdomain}.${pod.metadata.namespace}.svc.${clusterDomain}` : '';
  return { hostname, domain };
}

/**
 * Upstream kubelet_pods.go as the runtime manager's RuntimeHelper: container env, mounts (the
 * volume provider's plus the kubelet-managed /etc/hosts), hostname, pod DNS, pod dirs.
 */
export function createRuntimeHelper(deps: RuntimeHelperDeps): RuntimeHelper {
  const logger = deps.logger ?? noopLogger;
  const clusterDNS = deps.clusterDNS ?? [];
  const clusterDomain = deps.clusterDomain ?? '';
  const resolvConf = deps.resolvConf ?? '/etc/resolv.conf';

  const hostDns = async (): Promise<DnsConfig | undefined> => {
    if (resolvConf === '') return undefined;
    try {
      return parseResolvConf(await readFile(resolvConf, 'utf8'));
    } catch (err) {
      // Upstream fails sandbox creation when the configured file cannot be read.
      throw new PodLifecycleError('POD_DIR_ERROR', `failed to read resolv.conf ${JSON.stringify(resolvConf)}: ${errorMessage(err)}`);
    }
  };

  return {
    getPodDir: (uid) => podDir(deps.rootDir, uid),

    getPodCgroupParent: (pod) => deps.getPodCgroupParent?.(pod),

    async getPodDNS(pod) {
      const { fellBack } = podDnsType(pod, clusterDNS);
      if (fellBack) {
        logger.warn(
          `kubelet does not have ClusterDNS IP configured and cannot create Pod using "${pod.spec.dnsPolicy ?? 'ClusterFirst'}" policy. Falling back to "Default" policy.`,
          { pod: `${pod.metadata.namespace}/${pod.metadata.name}` },
        );
      }
      return getPodDNS({ pod, host: await hostDns(), clusterDNS, clusterDomain, nodeIPs: deps.getNodeIPs() });
    },

    async generateRunContainerOptions(pod: Pod, container: Container, podIPs: string[]): Promise<RunContainerOptions> {
      const nodeIPs = deps.getNodeIPs();
      const { hostname, domain } = podHostnameAndDomain(pod, clusterDomain);
      const env = await makeEnvironmentVariables({
        pod,
        container,
        podIPs,
        nodeName: deps.nodeName,
        nodeIPs,
        allocatable: deps.getNodeAllocatable?.() ?? NO_RESOURCES,
        source: deps.configMapsAndSecrets,
        services: deps.services,
      });
      const mounts: ContainerMount[] = deps.volumes !== undefined ? await deps.volumes.getMountsForContainer(pod, container) : [];

      // The kubelet manages /etc/hosts of pods that have an IP and of host-network pods (the node's file plus
      // hostAliases), unless the container mounts its own (upstream shouldMountHostsFile).
      const ownsEtcHosts = mounts.some((m) => m.containerPath === '/etc/hosts');
      const hostNetwork = pod.spec.hostNetwork === true;
      if ((hostNetwork || podIPs.length > 0) && !ownsEtcHosts) {
        await makePodDataDirs(deps.rootDir, pod.metadata.uid);
        const hostsPath = join(podDir(deps.rootDir, pod.metadata.uid), 'etc-hosts');
        const aliases = pod.spec.hostAliases ?? [];
        try {
          const content = hostNetwork
            ? nodeHostsFileContent(await readFile(deps.nodeHostsFile ?? '/etc/hosts', 'utf8'), aliases)
            : managedHostsFileContent(podIPs, hostname, domain, aliases);
          await ensureHostsFile(hostsPath, content);
        } catch (err) {
          throw new PodLifecycleError('POD_DIR_ERROR', `failed to write ${hostsPath}: ${errorMessage(err)}`);
        }
        mounts.push({ containerPath: '/etc/hosts', hostPath: hostsPath, readOnly: false, selinuxRelabel: true });
      }
      return { env, mounts, hostname };
    },
  };
}
