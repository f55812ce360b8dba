// Image pull credentials as upstream's image manager gathers them: the pod's imagePullSecrets (API
// mode), the node's docker config files, then the exec credential provider plugins of
// --image-credential-provider-config; runtime-manager's puller tries them in that order.
import type { ObjectSource, Pod } from '@kubelet-ts/api';
import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import type { PullSecret } from '@kubelet-ts/credential-provider';
import { createCredentialProvider, loadCredentialProviderPlugins } from '@kubelet-ts/credential-provider';
import type { PullCredentialsFn } from '@kubelet-ts/runtime-manager';

export interface PullCredentialsOptions {
  rootDir: string;
  /** --image-credential-provider-config and --image-credential-provider-bin-dir: plugins only with both. */
  providerConfig?: string | undefined;
  providerBinDir?: string | undefined;
  /** Where the pods' imagePullSecrets are read (API mode); none standalone. */
  secrets?: Pick<ObjectSource, 'getSecret'> | undefined;
  clock: Clock;
  logger: Logger;
}

/** Builds the lookup; a bad plugin configuration fails start-up, as upstream's kubelet does not start. */
export async function createPullCredentials(o: PullCredentialsOptions): Promise<PullCredentialsFn> {
  const plugins =
    o.providerConfig !== undefined && o.providerConfig !== ''
      ? await loadCredentialProviderPlugins({
          configPath: o.providerConfig,
          binDir: o.providerBinDir ?? '',
          clock: o.clock,
          logger: o.logger,
        })
      : [];
  const provider = createCredentialProvider({ rootDirectory: o.rootDir, plugins, clock: o.clock, logger: o.logger });
  return async (image: string, pod: Pod) => provider.credentialsFor(image, await pullSecretsOf(pod, o));
}

/** The pod's imagePullSecrets that exist; a missing or unreadable one is logged and left out (upstream). */
async function pullSecretsOf(pod: Pod, o: PullCredentialsOptions): Promise<PullSecret[]> {
  const refs = pod.spec.imagePullSecrets ?? [];
  if (o.secrets === undefined || refs.length === 0) return [];
  const namespace = pod.metadata.namespace;
  const found: PullSecret[] = [];
  for (const ref of refs) {
    const name = ref.name ?? '';
    if (name === '') continue;
    try {
      const secret = await o.secrets.getSecret(namespace, name);
      if (secret === undefined) throw new Error(`secret "${name}" not found`);
      found.push({ name, namespace, type: secret.type, data: secret.data });
    } catch (err) {
      o.logger.warn('Unable to retrieve pull secret, the image pull may not succeed.', {
        pod: `${namespace}/${pod.metadata.name}`,
        secret: `${namespace}/${name}`,
        err: errorMessage(err),
      });
    }
  }
  return found;
}
