import { DOCKER_CONFIG_JSON_KEY, SECRET_TYPE_DOCKER_CONFIG_JSON } from '../constants.js';
import type { PullSecret } from '../secrets.js';

/**
 * A `kubernetes.io/dockerconfigjson` Secret as the API serves it (data in base64) whose
 * `.dockerconfigjson` holds `{"auths": {registry: {"auth": base64(user:pass)}}}`.
 */
export function dockerConfigJsonSecret(
  name: string,
  auths: Readonly<Record<string, { username: string; password: string }>>,
  namespace = 'default',
): PullSecret {
  const entries = Object.fromEntries(
    Object.entries(auths).map(([registry, { username, password }]) => [
      registry,
      { auth: Buffer.from(`${username}:${password}`).toString('base64') },
    ]),
  );
  const payload = JSON.stringify({ auths: entries });
  return {
    metadata: { name, namespace },
    type: SECRET_TYPE_DOCKER_CONFIG_JSON,
    data: { [DOCKER_CONFIG_JSON_KEY]: Buffer.from(payload).toString('base64') },
  };
}
