#!/usr/bin/env bash
# Command (1) of the README: install everything, start the runtime (a private containerd with a
# CNI network), and run the kubelet in standalone mode on the example static pods.
# Ctrl-C stops the kubelet (the pods keep running, as with the upstream kubelet);
# `bash scripts/test-runtime.sh down` removes them and the runtime.
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1
# turbo's cache outside the checkout, like Go's: a clean clone on a machine that built the same
# sources before reuses their outputs (turbo hashes every input; tests are never cached).
export TURBO_CACHE_DIR=${TURBO_CACHE_DIR:-/var/cache/kubelet-ts/turbo}

bash scripts/setup.sh
bash scripts/test-runtime.sh up
# shellcheck disable=SC1091
source "${KUBELET_TS_RUNTIME_DIR:-/run/kubelet-ts-runtime}/env"

root_dir=/var/lib/kubelet-ts-demo
mkdir -p "$root_dir"
cat <<INFO

kubelet-ts is starting in standalone mode on examples/static-pods.
  pods and their live status:   curl -s http://127.0.0.1:10255/pods
  health:                       curl -s http://127.0.0.1:10248/healthz?verbose
  containers (crictl-like):     npx crictl-ts --runtime-endpoint $KUBELET_TS_CRI_ENDPOINT ps -a
  the web example's page:       curl -s http://<podIP of web-…>:8080/   (podIP is in /pods)
Stop with Ctrl-C; clean up with: bash scripts/test-runtime.sh down

INFO
exec apps/kubelet/dist/main.js \
  --config=examples/kubelet-config.yaml \
  --pod-manifest-path="$PWD/examples/static-pods" \
  --container-runtime-endpoint="$KUBELET_TS_CRI_ENDPOINT" \
  --root-dir="$root_dir" \
  --hostname-override="$(hostname | tr '[:upper:]' '[:lower:]')" \
  -v=2 "$@"
