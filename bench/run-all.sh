#!/usr/bin/env bash
# Runs every benchmark under bench/ with its defaults, one after another, from the repository root.
#   bench/probes          the probe manager library alone (needs @kubelet-ts/probe-runner built)
#   bench/probes-kubelet  the real kubelet on the runtime of `scripts/test-runtime.sh up`
#                         (takes the integration tests' lock on the shared containerd)
# Each runner prints its results; probes-kubelet also writes bench/probes-kubelet/results/<date>.json.
set -euo pipefail
cd "$(dirname "$0")/.."

[ -f packages/probe-runner/dist/index.js ] || npm run build -w @kubelet-ts/probe-runner

echo "== bench/probes" >&2
node bench/probes/run.mjs

echo "== bench/probes-kubelet" >&2
node bench/probes-kubelet/run.mjs
