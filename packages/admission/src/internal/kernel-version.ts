// Upstream apimachinery util/version ParseGeneric and AtLeast, as the safe sysctl list uses them.

/** The leading dotted numbers of a kernel release ("6.8.0-45-generic" → [6, 8, 0]); undefined below major.minor. */
export function parseKernelVersion(release: string): number[] | undefined {
  const match = /^\s*v?([0-9]+(?:\.[0-9]+)*)/.exec(release);
  const components = match?.[1]?.split('.').map(Number);
  return components !== undefined && components.length >= 2 ? components : undefined;
}

/** Component by component, a missing one counting as 0. */
export function kernelAtLeast(version: readonly number[], min: readonly number[]): boolean {
  for (let i = 0; i < Math.max(version.length, min.length); i++) {
    const a = version[i] ?? 0;
    const b = min[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}
