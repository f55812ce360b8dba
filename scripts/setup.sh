#!/usr/bin/env bash
# Installs everything kubelet-ts needs on a fresh Debian 12 machine (as root): the runtime
# test environment's Debian packages and the npm workspace. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1
# turbo's cache outside the checkout, like Go's: a clean clone on a machine that built the same
# sources before reuses their outputs (turbo hashes every input; tests are never cached).
export TURBO_CACHE_DIR=${TURBO_CACHE_DIR:-/var/cache/kubelet-ts/turbo}

if ! command -v node >/dev/null 2>&1; then
  echo "setup: Node.js 20.19+ is required (not found on PATH)" >&2
  exit 1
fi

# Debian packages for the real runtime (containerd, runc, CNI plugins, registry, image tools).
bash scripts/test-runtime.sh install

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
echo "setup: building packages"
npx turbo run build --output-logs=errors-only
