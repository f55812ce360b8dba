// One tsup configuration for every package: ESM + CJS + .d.ts, Node 20.
import { defineConfig } from 'tsup';

/**
 * @param {{ entry?: Record<string, string>; external?: string[]; shims?: boolean }} [options]
 */
export function packageConfig(options = {}) {
  return defineConfig({
    entry: options.entry ?? { index: 'src/index.ts', testing: 'src/testing/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
    platform: 'node',
    splitting: false,
    treeshake: true,
    shims: options.shims ?? false,
    external: options.external ?? [],
  });
}
