/**
 * Normalizes a CRI endpoint to a gRPC target: `unix:///path` stays, a bare absolute path becomes
 * `unix:///path`, and `unix:path`/`unix://path` forms are accepted as crictl does. Anything else
 * (`host:port`, `dns:…`) is passed through for TCP runtimes.
 */
export function toGrpcTarget(endpoint: string): string {
  const trimmed = endpoint.trim();
  if (trimmed === '') throw new TypeError('the CRI endpoint is empty');
  if (trimmed.startsWith('/')) return `unix://${trimmed}`;
  if (trimmed.startsWith('unix:///')) return trimmed;
  if (trimmed.startsWith('unix://')) return `unix:///${trimmed.slice('unix://'.length)}`;
  if (trimmed.startsWith('unix:')) return `unix:///${trimmed.slice('unix:'.length).replace(/^\/+/, '')}`;
  return trimmed;
}

/** The socket path of a unix target, or undefined for other targets. */
export function socketPath(target: string): string | undefined {
  return target.startsWith('unix://') ? target.slice('unix://'.length) : undefined;
}
