/**
 * Repository, tag and digest of an image reference as written (upstream parsers.ParseImageName
 * splits the same way, then reports "latest" for a reference with neither tag nor digest).
 */
export interface ImageReference {
  /** Everything before the tag and digest, registry host and port included. */
  repository: string;
  /** The tag after a `:` that follows the last `/` ("" for `name:`); undefined without that `:`. */
  tag?: string;
  /** The digest after `@` ("" for `name@`); undefined without an `@`. */
  digest?: string;
}

/**
 * Splits an image reference (no normalisation of the registry host, no validation): what the pull
 * policy default and the runtime's reference check both read, so that they split alike.
 */
export function parseImageReference(image: string): ImageReference {
  const ref: ImageReference = { repository: image };
  const at = ref.repository.indexOf('@');
  if (at >= 0) {
    ref.digest = ref.repository.slice(at + 1);
    ref.repository = ref.repository.slice(0, at);
  }
  const colon = ref.repository.lastIndexOf(':');
  // A colon before the last slash is a registry port ("localhost:5000/pause"), not a tag.
  if (colon > ref.repository.lastIndexOf('/')) {
    ref.tag = ref.repository.slice(colon + 1);
    ref.repository = ref.repository.slice(0, colon);
  }
  return ref;
}

/** Whether the reference names neither a tag nor a digest (a `:` or `@` with nothing after it counts as none, as upstream). */
export function isUntaggedImage(ref: ImageReference): boolean {
  return (ref.tag ?? '') === '' && (ref.digest ?? '') === '';
}
