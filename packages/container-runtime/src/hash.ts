import type { Container, Pod } from '@kubelet-ts/api';
import { fnv1a32, goByteSlice, goJsonStringMap, spewForHash } from '@kubelet-ts/common';

/**
 * The container hash the upstream kubelet (1.31 and later) writes to the
 * `io.kubernetes.container.hash` label, as lowercase hex: FNV-1a 32 over go-spew's dump of the
 * JSON bytes of `{"image": …, "name": …}` (HashContainer, pickFieldsToHash and
 * hashutil.DeepHashObject). Only the name and image count, so, as upstream, a container is
 * restarted for a new image but not for other spec changes; and a container one kubelet created
 * is recognised by the other.
 */
export function hashContainer(container: Container): string {
  const json = goJsonStringMap({ name: container.name, image: container.image });
  return fnv1a32(spewForHash(goByteSlice(Buffer.from(json, 'utf8')))).toString(16);
}

/**
 * The per-container CrashLoopBackOff key (upstream GetStableKey):
 * `<podName>_<namespace>_<podUID>_<containerName>_<specHash>`. A new image starts a fresh back-off.
 */
export function backoffKey(pod: Pod, container: Container): string {
  return `${pod.metadata.name}_${pod.metadata.namespace}_${pod.metadata.uid}_${container.name}_${hashContainer(container)}`;
}
