import type { Issues } from './issues.js';

const SECCOMP_TYPES = ['RuntimeDefault', 'Unconfined', 'Localhost'] as const;

export function validateSeccomp(profile: { type: string; localhostProfile?: string | undefined }, path: string, issues: Issues): void {
  issues.enumValue(`${path}.type`, profile.type, SECCOMP_TYPES);
  if (profile.type === 'Localhost' && (profile.localhostProfile ?? '') === '') {
    issues.required(`${path}.localhostProfile`, 'must be set when seccomp type is Localhost');
  }
  if (profile.type !== 'Localhost' && profile.localhostProfile !== undefined) {
    issues.invalid(`${path}.localhostProfile`, profile.localhostProfile, 'can only be set when seccomp type is Localhost');
  }
}
