import { defineConfig } from 'tsup';

// The binary: one ESM entry with a shebang; libraries stay external (resolved from node_modules).
export default defineConfig({
  entry: { main: 'src/main.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  sourcemap: true,
  clean: true,
  // A small V8 young generation: with Node's default (16 MiB semi-spaces) the kubelet's RSS with 110 pods
  // was ~165 MiB, with 2 MiB ~102 MiB, with 1 MiB ~99 MiB at the same CPU (bench/density,
  // docs/performance.md; --optimize-for-size and --lite-mode cut more but cost 1.5–2 × the CPU). Flags in the
  // shebang hold for every way the binary is started (npm's bin link, systemd, by path); tools that run
  // it with `node` take them from this line (bench/lib/kubelet.mjs).
  banner: { js: '#!/usr/bin/env -S node --max-semi-space-size=1' },
});
