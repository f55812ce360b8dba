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
  // docs/performance.md; --optimize-for-size and --lite-mode cut more but cost 1.5–2 × the CPU). The old
  // generation may grow 20 % past the live heap before a full collection (V8 picks up to 4 × by itself): the
  // every-minute resync of 110 pods then no longer lifts the RSS to ~120 MiB (max 101.7 MiB). One V8
  // worker thread instead of Node's four (concurrent marking, background compilation): each thread's
  // stack and malloc arena cost ~1.5 MiB, steady RSS with 110 pods 102–103 → 96–97 MiB at the same CPU
  // (three runs each, session 17). Flags in the shebang hold for every way the binary is started (npm's
  // bin link, systemd, by path); tools that run it with `node` take them from this line (bench/lib/kubelet.mjs).
  banner: { js: '#!/usr/bin/env -S node --max-semi-space-size=1 --heap-growing-percent=20 --v8-pool-size=1' },
});
