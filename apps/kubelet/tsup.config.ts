import { defineConfig } from 'tsup';

// The binary: one ESM entry with a shebang; libraries stay external (resolved from node_modules).
export default defineConfig({
  entry: { main: 'src/main.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  sourcemap: true,
  clean: true,
  banner: { js: '#!/usr/bin/env node' },
});
