#!/usr/bin/env bash
# `npm run soak`: 30 minutes of churn on one kubelet-ts (bench/soak/run.mjs; its options pass through,
# e.g. `npm run soak -- --minutes 12`). Brings the runtime up if it is not (and leaves it up). Results:
# bench/results/soak/latest.{json,md}.
set -euo pipefail
cd "$(dirname "$0")/../.."
export TURBO_CACHE_DIR=${TURBO_CACHE_DIR:-/var/cache/kubelet-ts/turbo}
bash scripts/setup.sh
[ -f "${KUBELET_TS_RUNTIME_DIR:-/run/kubelet-ts-runtime}/env" ] || bash scripts/test-runtime.sh up
exec node bench/soak/run.mjs "$@"
