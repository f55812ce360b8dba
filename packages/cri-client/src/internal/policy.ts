/** Stop/remove calls that accept `ignoreNotFound` (client and fakes share this list). */
export const IGNORABLE_NOT_FOUND: ReadonlySet<string> = new Set([
  'stopPodSandbox',
  'removePodSandbox',
  'stopContainer',
  'removeContainer',
  'removeImage',
]);
