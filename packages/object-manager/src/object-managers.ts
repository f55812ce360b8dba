import type { ConfigMap, Secret } from '@kubelet-ts/api';
import { ConfigMapSchema, SecretSchema } from '@kubelet-ts/api';
import { createWatchBasedManager } from './internal/watch-based-manager.js';
import { podConfigMapNames, podSecretNames } from './referenced-names.js';
import type { ObjectManager, ObjectManagerOptions } from './types.js';

/** Upstream configmap.NewWatchingConfigMapManager: the ConfigMaps registered pods name, one watch each. */
export function createConfigMapManager(options: ObjectManagerOptions): ObjectManager<ConfigMap> {
  return createWatchBasedManager<ConfigMap>(
    {
      resource: 'configmaps',
      singular: 'configmap',
      schema: ConfigMapSchema,
      isImmutable: (cm) => cm.immutable === true,
      referencedNames: podConfigMapNames,
    },
    options,
  );
}

/** Upstream secret.NewWatchingSecretManager: the Secrets registered pods name (image pull secrets included), one watch each. */
export function createSecretManager(options: ObjectManagerOptions): ObjectManager<Secret> {
  return createWatchBasedManager<Secret>(
    {
      resource: 'secrets',
      singular: 'secret',
      schema: SecretSchema,
      isImmutable: (secret) => secret.immutable === true,
      referencedNames: podSecretNames,
    },
    options,
  );
}
