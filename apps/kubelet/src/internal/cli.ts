import { formatConfigIssue, kubeletFlagUsage, loadKubeletConfiguration } from '@kubelet-ts/config';
import type { FeatureGates, KubeletConfiguration, KubeletFlags } from '@kubelet-ts/config';

/** The kubelet version we report: the upstream minor we follow, with our own suffix. */
export const KUBELET_VERSION = 'v1.34.0-kubelet-ts.0.1.0';

export interface KubeletOptions {
  config: KubeletConfiguration;
  flags: KubeletFlags;
  /** The merged feature gates (upstream 1.34's, then featureGates). */
  featureGates: FeatureGates;
  /** Deprecated flags, and unknown or duplicate fields dropped by lenient decoding (as upstream). */
  warnings: string[];
}

export interface CliIO {
  out: (text: string) => void;
  err: (text: string) => void;
  exit: (code: number) => never;
}

const processIO: CliIO = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  exit: (code) => process.exit(code),
};

/**
 * Flags and the KubeletConfiguration file, validated and decoded as upstream does (unknown and
 * duplicate fields are warnings). `--help` and `--version` print and exit 0; invalid input prints the
 * warnings and every problem (file or flag, field, reason) and exits 1, as upstream.
 */
export async function loadOptionsOrExit(argv: readonly string[], io: CliIO = processIO): Promise<KubeletOptions> {
  const result = await loadKubeletConfiguration({ argv });
  if (!result.ok) {
    for (const warning of result.warnings) io.err(`W kubelet: ${warning}\n`);
    for (const issue of result.errors) io.err(`E kubelet: invalid configuration: ${formatConfigIssue(issue)}\n`);
    io.err(`kubelet-ts: ${result.errors.length} configuration error(s); see --help\n`);
    return io.exit(1);
  }
  if (result.flags.help) {
    io.out(
      `kubelet-ts: the kubelet is the primary node agent; it runs the pods meant for its node.\n\nUsage:\n  kubelet-ts [flags]\n\nFlags:\n${kubeletFlagUsage()}\n`,
    );
    return io.exit(0);
  }
  if (result.flags.version !== false) {
    io.out(`Kubernetes ${KUBELET_VERSION}\n`);
    return io.exit(0);
  }
  return { config: result.config, flags: result.flags, featureGates: result.featureGates, warnings: result.warnings };
}
