import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderConfigurationDoc } from './config-docs.js';
import { KUBELET_FLAGS } from './flag-table.js';
import { CONFIG_FIELD_SETTINGS } from './settings-registry.js';

const DOC = join(__dirname, '../../../docs/configuration.md');

describe('docs/configuration.md', () => {
  it('is what scripts/config-docs.mjs generates from the registry (run it after changing a setting)', () => {
    expect(readFileSync(DOC, 'utf8')).toBe(renderConfigurationDoc());
  });

  it('lists every field and every flag with its status', () => {
    const doc = renderConfigurationDoc();
    for (const spec of CONFIG_FIELD_SETTINGS) expect(doc).toContain(`| \`${spec.name}\` |`);
    for (const flag of KUBELET_FLAGS) expect(doc).toContain(`\`--${flag.name}\``);
    expect(doc).toMatch(/\| `streamingConnectionIdleTimeout` \| `4h0m0s` \| refused unless default \| /);
    expect(doc).toMatch(/\| `memoryManagerPolicy` \| `None` \| implemented \| /);
    expect(doc).toMatch(/\| `cpuManagerPolicy` \| `none` \| implemented \| /);
    expect(doc).toMatch(/\| `maxPods` \| `110` \| implemented \| /);
  });
});
