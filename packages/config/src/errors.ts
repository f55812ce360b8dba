import { defineError } from '@kubelet-ts/common';

/** One problem found in the kubelet's configuration. */
export interface ConfigIssue {
  /** Where the value came from: a file path, `flag --name`, or `defaults`. */
  source: string;
  /** The field path inside the KubeletConfiguration (`evictionHard.memory.available`), or `` for the document itself. */
  path: string;
  /** Why it was rejected: `unknown field`, `invalid duration "1x"`, `must be between 0 and 65535`. */
  reason: string;
}

/** `source: path: reason`, or `source: reason` when the issue is about the whole document or flag. */
export function formatConfigIssue(issue: ConfigIssue): string {
  return issue.path === '' ? `${issue.source}: ${issue.reason}` : `${issue.source}: ${issue.path}: ${issue.reason}`;
}

export type ConfigErrorCode =
  /** One or more ConfigIssues; see `issues`. */
  | 'INVALID_CONFIGURATION'
  /** A value that is not a Go duration was given to parseDuration/durationMs. */
  | 'INVALID_DURATION'
  /** A malformed `signal<value,...` eviction map. */
  | 'INVALID_EVICTION_MAP'
  /** FeatureGates.isEnabled was asked about a gate upstream does not know. */
  | 'UNKNOWN_FEATURE_GATE';

/** The one error class of @kubelet-ts/config; INVALID_CONFIGURATION errors carry every issue found. */
export class ConfigError extends defineError<ConfigErrorCode>('ConfigError', { defaultCode: 'INVALID_CONFIGURATION' }) {
  readonly issues: readonly ConfigIssue[];

  constructor(code: ConfigErrorCode, message: string, options: { cause?: unknown; issues?: readonly ConfigIssue[] } = {}) {
    super(code, message, options);
    this.issues = options.issues ?? [];
  }

  /** One error carrying every issue, its message listing them one per line. */
  static fromIssues(issues: readonly ConfigIssue[]): ConfigError {
    const lines = issues.map(formatConfigIssue);
    return new ConfigError('INVALID_CONFIGURATION', `invalid kubelet configuration:\n  ${lines.join('\n  ')}`, { issues });
  }
}
