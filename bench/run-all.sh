#!/usr/bin/env bash
# `npm run bench`: the node benchmarks on the test runtime (`scripts/test-runtime.sh`), kubelet-ts and the
# upstream kubelet (same flags and config file) one after the other, on containerd 2 and then containerd
# 1.6, then the summary table (bench/results/latest.md, and docs/performance.md).
#   bench/start-latency   30 static pods one after another, each kubelet, vs the direct-CRI baseline
#   bench/density         per kubelet: idle footprint, 110 pods at once, steady footprint, stop latency;
#                         then the direct-CRI baseline
#   bench/drift           five 110-pod start/stop cycles with kubelet-ts: no slowdown, no leak (on the
#                         first runtime)
# The kubelet benchmarks take the integration tests' lock on the shared containerd while they run; to
# switch runtimes the run takes it too, tears the runtime down and brings the other one up, and at the
# end brings back the one that ran before (images and builds are cached: seconds each).
#   --runtimes 2,1  which containerd majors, in order (default: 2,1; `--runtimes 2` stays on one)
#   --all           also bench/podman (the same 110 pods with podman kube play / kube down, ~1–3 min) and
#                   the probe benchmarks of issue 4: bench/probes (the probe manager library alone,
#                   ~0.5 min) and bench/probes-kubelet (110 pods' probes through the kubelet, ~4 min)
#   --no-docs       do not rewrite the table in docs/performance.md
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1

all=0 docs=1 runtimes=2,1
while [ $# -gt 0 ]; do
  case "$1" in
    --all) all=1 ;;
    --no-docs) docs=0 ;;
    --runtimes) runtimes=${2:?--runtimes needs a list, e.g. 2,1}; shift ;;
    *) echo "usage: bash bench/run-all.sh [--runtimes 2,1] [--all] [--no-docs]" >&2; exit 2 ;;
  esac
  shift
done

# Built packages the runners import (per workspace, never the whole monorepo).
for ws in packages/common packages/config packages/cri-client packages/probe-runner; do
  [ -f "$ws/dist/index.js" ] || (cd "$ws" && npx tsup)
done
[ -f apps/kubelet/dist/main.js ] || (cd apps/kubelet && npx tsup)

started=$(date +%s)
step() { echo "== $* ($(( $(date +%s) - started )) s)" >&2; }
failed=0

runtime_dir=${KUBELET_TS_RUNTIME_DIR:-/run/kubelet-ts-runtime}
current_runtime() { sed -n 's/^export KUBELET_TS_CONTAINERD=//p' "$runtime_dir/env" 2>/dev/null || true; }
use_runtime() {
  [ "$(current_runtime)" = "$1" ] && return 0
  step "switching the test runtime to containerd $1"
  node scripts/with-runtime-lock.mjs -- bash -c \
    "bash scripts/test-runtime.sh down >/dev/null && KUBELET_TS_CONTAINERD=$1 bash scripts/test-runtime.sh up >/dev/null"
}
original=$(current_runtime)
[ -n "$original" ] || { echo "the test runtime is not up: bash scripts/test-runtime.sh up" >&2; exit 1; }
restore() { [ -z "$original" ] || use_runtime "$original" || echo "could not bring containerd $original back" >&2; }
trap restore EXIT

first=1
for major in ${runtimes//,/ }; do
  use_runtime "$major"
  step "bench/start-latency (containerd $major)"
  node bench/start-latency/run.mjs || failed=1
  step "bench/density (containerd $major)"
  node bench/density/run.mjs --steady-seconds 45 || failed=1
  if [ "$first" = 1 ]; then
    step "bench/drift (containerd $major)"
    node bench/drift/run.mjs || failed=1
    first=0
  fi
done
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
