import type { GoValue } from '@kubelet-ts/common';
import { fnv1a32, spewForHash } from '@kubelet-ts/common';

/**
 * Upstream checksum.New: FNV-1a 32 over go-spew's dump of the checkpoint struct (with its own
 * Checksum field zero), as the upstream kubelet writes into and checks in its checkpoint files.
 */
export function goChecksum(checkpoint: GoValue): number {
  return fnv1a32(spewForHash(checkpoint));
}
