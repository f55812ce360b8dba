/** Repository, tag and digest of an image reference, the way upstream parsers.ParseImageName splits it. */
export interface ImageReference {
  repository: string;
  /** The tag; "latest" when neither a tag nor a digest is given (as upstream). */
  tag: string;
  digest: string;
}

/** Splits an image reference (no normalisation of the registry host). */
export function parseImageReference(image: string): ImageReference {
  let rest = image;
  let digest = '';
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  let tag = '';
  const colon = rest.lastIndexOf(':');
  // A colon before the last slash is a registry port ("localhost:5000/pause"), not a tag.
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  if (tag === '' && digest === '') tag = 'latest';
  return { repository: rest, tag, digest };
}
