import { ConfigError } from './errors.js';
import { UPSTREAM_FEATURE_GATES } from './gen/upstream-feature-gates.js';
import type { FeatureGateSpec } from './gen/upstream-feature-gates.js';

/** The kubelet's feature gates after `featureGates` (file and `--feature-gates`) were applied. */
export interface FeatureGates {
  /** Whether the gate is on. Throws ConfigError `UNKNOWN_FEATURE_GATE` for a gate upstream does not know (upstream panics). */
  isEnabled(name: string): boolean;
  /** Every known gate and its value, set or default. */
  toMap(): Record<string, boolean>;
  /** The gates that were set explicitly, as given. */
  readonly explicit: Readonly<Record<string, boolean>>;
}

/** Problems and warnings from applying `featureGates`, as upstream's featuregate.SetFromMap reports them. */
export interface FeatureGateResult {
  gates: FeatureGates;
  /** `unrecognized feature gate: X`, `cannot set feature gate X to false, feature is locked to true`. */
  errors: Array<{ gate: string; reason: string }>;
  /** `Setting GA feature gate X=true. It will be removed in a future release.` */
  warnings: string[];
}

const BY_NAME: ReadonlyMap<string, FeatureGateSpec> = new Map(UPSTREAM_FEATURE_GATES.map((g) => [g.name, g]));

/** The gates the kubelet knows: upstream 1.34's, with their defaults, stages and locks. */
export const KUBELET_FEATURE_GATES: readonly FeatureGateSpec[] = UPSTREAM_FEATURE_GATES;

/**
 * Applies a `featureGates` map over the upstream defaults, with component-base's rules: an unknown gate is
 * an error (upstream stops at the first; here every one is reported), a locked gate set to the other value
 * is an error, setting a GA or deprecated gate warns, and `AllAlpha`/`AllBeta` set every alpha/beta gate
 * that is not set explicitly.
 */
export function resolveFeatureGates(setting: Readonly<Record<string, boolean>> = {}): FeatureGateResult {
  const errors: FeatureGateResult['errors'] = [];
  const warnings: string[] = [];
  const explicit: Record<string, boolean> = {};
  for (const [name, value] of Object.entries(setting)) {
    const spec = BY_NAME.get(name);
    if (spec === undefined) {
      errors.push({ gate: name, reason: `unrecognized feature gate: ${name}` });
      continue;
    }
    if (spec.lockToDefault && spec.default !== value) {
      errors.push({ gate: name, reason: `cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}` });
      continue;
    }
    explicit[name] = value;
    if (spec.stage === 'DEPRECATED')
      warnings.push(`Setting deprecated feature gate ${name}=${value}. It will be removed in a future release.`);
    else if (spec.stage === 'GA') warnings.push(`Setting GA feature gate ${name}=${value}. It will be removed in a future release.`);
  }
  const values: Record<string, boolean> = {};
  for (const spec of UPSTREAM_FEATURE_GATES) {
    const all = spec.stage === 'ALPHA' ? explicit['AllAlpha'] : spec.stage === 'BETA' ? explicit['AllBeta'] : undefined;
    values[spec.name] = explicit[spec.name] ?? (spec.name !== 'AllAlpha' && spec.name !== 'AllBeta' ? all : undefined) ?? spec.default;
  }
  const gates: FeatureGates = {
    explicit,
    isEnabled(name) {
      const value = values[name];
      if (value === undefined)
        throw new ConfigError('UNKNOWN_FEATURE_GATE', `feature ${JSON.stringify(name)} is not registered in FeatureGate`);
      return value;
    },
    toMap: () => ({ ...values }),
  };
  return { gates, errors, warnings };
}
