// Upstream scheduler nodeports plugin: util.GetHostPorts and framework.HostPortInfo.
import type { ContainerPort, Pod } from '@kubelet-ts/api';
import { isRestartableInitContainer } from '@kubelet-ts/api';

const BIND_ALL_HOST_IP = '0.0.0.0';

/** The host ports a pod holds while it runs: its containers' and its sidecars' (not plain init containers'). */
export function hostPorts(pod: Pod): ContainerPort[] {
  const containers = [...(pod.spec.initContainers ?? []).filter(isRestartableInitContainer), ...pod.spec.containers];
  return containers.flatMap((c) => (c.ports ?? []).filter((p) => (p.hostPort ?? 0) > 0));
}

/** Upstream HostPortInfo: host IP → the "protocol/port" pairs in use there; an empty IP is 0.0.0.0, an empty protocol TCP. */
export class HostPortInfo {
  readonly #used = new Map<string, Set<string>>();

  static #key(port: ContainerPort): { ip: string; pp: string } {
    const ip = port.hostIP === undefined || port.hostIP === '' ? BIND_ALL_HOST_IP : port.hostIP;
    const protocol = port.protocol === undefined || port.protocol === '' ? 'TCP' : port.protocol;
    return { ip, pp: `${protocol}/${port.hostPort ?? 0}` };
  }

  add(port: ContainerPort): void {
    if ((port.hostPort ?? 0) <= 0) return;
    const { ip, pp } = HostPortInfo.#key(port);
    let set = this.#used.get(ip);
    if (set === undefined) this.#used.set(ip, (set = new Set()));
    set.add(pp);
  }

  /** 0.0.0.0 conflicts with the pair on any IP; another IP with the pair on itself or on 0.0.0.0. */
  conflicts(port: ContainerPort): boolean {
    if ((port.hostPort ?? 0) <= 0) return false;
    const { ip, pp } = HostPortInfo.#key(port);
    if (ip === BIND_ALL_HOST_IP) return [...this.#used.values()].some((set) => set.has(pp));
    return [BIND_ALL_HOST_IP, ip].some((key) => this.#used.get(key)?.has(pp) === true);
  }
}
