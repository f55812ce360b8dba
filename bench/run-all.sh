#!/usr/bin/env bash
# `npm run bench`: the node benchmarks against the runtime of `scripts/test-runtime.sh up`, kubelet-ts and
# the upstream kubelet (same flags and config file) one after the other in each, then the summary table
# (bench/results/latest.md, and docs/performance.md).
#   bench/start-latency   30 static pods one after another, each kubelet, vs the direct-CRI baseline
#   bench/density         per kubelet: idle footprint, 110 pods at once, steady footprint over 1 min,
#                         stop latency; then the direct-CRI baseline
#   bench/drift           five 110-pod start/stop cycles with kubelet-ts: no slowdown, no leak
# The kubelet benchmarks take the integration tests' lock on the shared containerd while they run.
#   --all     also bench/podman (the same 110 pods with podman kube play / kube down, ~1–3 min) and the
#             probe benchmarks of issue 4: bench/probes (the probe manager library alone, ~0.5 min) and
#             bench/probes-kubelet (110 pods' probes through the kubelet, ~4 min)
#   --no-docs do not rewrite the table in docs/performance.md
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1

all=0 docs=1
for arg in "$@"; do
  case "$arg" in
    --all) all=1 ;;
    --no-docs) docs=0 ;;
    *) echo "usage: bash bench/run-all.sh [--all] [--no-docs]" >&2; exit 2 ;;
  esac
done

# Built packages the runners import (per workspace, never the whole monorepo).
for ws in packages/common packages/config packages/cri-client packages/probe-runner; do
  [ -f "$ws/dist/index.js" ] || (cd "$ws" && npx tsup)
done
[ -f apps/kubelet/dist/main.js ] || (cd apps/kubelet && npx tsup)

started=$(date +%s)
step() { echo "== $* ($(( $(date +%s) - started )) s)" >&2; }
failed=0

step bench/start-latency
node bench/start-latency/run.mjs || failed=1
step bench/density
node bench/density/run.mjs --steady-seconds 60 || failed=1
step bench/drift
node bench/drift/run.mjs || failed=1
if [ "$all" = 1 ]; then
  step bench/podman
  node bench/podman/run.mjs --stop-timeout 240 || failed=1
  step bench/probes
  node bench/probes/run.mjs || failed=1
  step bench/probes-kubelet
  node bench/probes-kubelet/run.mjs || failed=1
fi

step summary
if [ "$docs" = 1 ]; then node bench/summary.mjs --update-docs; else node bench/summary.mjs; fi
echo "== done in $(( $(date +%s) - started )) s" >&2
exit "$failed"
