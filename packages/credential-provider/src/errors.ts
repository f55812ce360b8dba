import { defineError } from '@kubelet-ts/common';

export type CredentialProviderErrorCode =
  /** A pull secret whose docker config payload does not decode (bad base64, bad JSON, an `auth` without `:`). */
  | 'INVALID_SECRET'
  /** A docker config.json or .dockercfg file that does not decode. */
  | 'INVALID_DOCKER_CONFIG'
  /** The CredentialProviderConfig file does not decode or does not validate; see `issues`. */
  | 'INVALID_CONFIG'
  /** The plugin bin dir or a plugin's executable is missing. */
  | 'PLUGIN_NOT_FOUND'
  /** A plugin could not be run, exited with an error or ran past its timeout. */
  | 'PLUGIN_FAILED'
  /** A plugin's stdout is not a CredentialProviderResponse of the configured apiVersion. */
  | 'INVALID_PLUGIN_RESPONSE';

/** One problem of a CredentialProviderConfig file: the file, the field path and why (upstream field.Error wording). */
export interface CredentialProviderConfigIssue {
  /** The config file path (or the name given to the parser). */
  source: string;
  /** `providers[0].matchImages`, or `` for the document itself. */
  path: string;
  /** `Required value: at least 1 item in matchImages is required`, `Invalid value: "a/b": provider name cannot contain '/'`. */
  reason: string;
}

/** `source: path: reason`, or `source: reason` for the document itself. */
export function formatConfigIssue(issue: CredentialProviderConfigIssue): string {
  return issue.path === '' ? `${issue.source}: ${issue.reason}` : `${issue.source}: ${issue.path}: ${issue.reason}`;
}

/** The one error class of @kubelet-ts/credential-provider; INVALID_CONFIG errors carry every issue found. */
export class CredentialProviderError extends defineError<CredentialProviderErrorCode>('CredentialProviderError', {
  defaultCode: 'PLUGIN_FAILED',
}) {
  readonly issues: readonly CredentialProviderConfigIssue[];

  constructor(
    code: CredentialProviderErrorCode,
    message: string,
    options: { cause?: unknown; issues?: readonly CredentialProviderConfigIssue[] } = {},
  ) {
    super(code, message, options);
    this.issues = options.issues ?? [];
  }
}
