import type { Pod } from '@kubelet-ts/api';
import type { ConfigMapObject, ConfigMapSecretSource, SecretObject, ServiceAccountTokenRequest, TokenSource } from '../types.js';

/** An in-memory ConfigMapSecretSource: set objects with `setConfigMap`/`setSecret`, drop them with `delete`. */
export class FakeObjectSource implements ConfigMapSecretSource {
  readonly configMaps = new Map<string, ConfigMapObject>();
  readonly secrets = new Map<string, SecretObject>();
  readonly calls: Array<{ kind: 'ConfigMap' | 'Secret'; namespace: string; name: string }> = [];

  setConfigMap(namespace: string, name: string, data: Record<string, string>, binaryData: Record<string, Buffer> = {}): void {
    this.configMaps.set(`${namespace}/${name}`, { namespace, name, data, binaryData });
  }

  setSecret(namespace: string, name: string, data: Record<string, string | Buffer>, type = 'Opaque'): void {
    const decoded: Record<string, Buffer> = {};
    for (const [k, v] of Object.entries(data)) decoded[k] = typeof v === 'string' ? Buffer.from(v) : v;
    this.secrets.set(`${namespace}/${name}`, { namespace, name, type, data: decoded });
  }

  delete(kind: 'ConfigMap' | 'Secret', namespace: string, name: string): void {
    (kind === 'ConfigMap' ? this.configMaps : this.secrets).delete(`${namespace}/${name}`);
  }

  async getConfigMap(namespace: string, name: string): Promise<ConfigMapObject | undefined> {
    this.calls.push({ kind: 'ConfigMap', namespace, name });
    return this.configMaps.get(`${namespace}/${name}`);
  }

  async getSecret(namespace: string, name: string): Promise<SecretObject | undefined> {
    this.calls.push({ kind: 'Secret', namespace, name });
    return this.secrets.get(`${namespace}/${name}`);
  }
}

/** A TokenSource returning `token-<n>` (or what `next` says), recording requests. */
export class FakeTokenSource implements TokenSource {
  readonly calls: Array<{ podUID: string; request: ServiceAccountTokenRequest }> = [];
  next: string | undefined;
  #count = 0;

  async getServiceAccountToken(pod: Pod, request: ServiceAccountTokenRequest): Promise<string> {
    this.calls.push({ podUID: pod.metadata.uid, request });
    return this.next ?? `token-${++this.#count}`;
  }
}
