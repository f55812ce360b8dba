import { applyKubeletConfigurationDefaults } from '../defaults.js';
import type { KubeletConfiguration } from '../defaults.js';
import type { KubeletConfigurationInput } from '../schema.js';

/** A defaulted KubeletConfiguration (as from a config file) with `overrides` applied first, for other packages' tests. */
export function kubeletConfigurationFixture(overrides: KubeletConfigurationInput = {}): KubeletConfiguration {
  return applyKubeletConfigurationDefaults(overrides);
}
