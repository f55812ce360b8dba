#!/usr/bin/env bash
# Command (2) of the README: install everything, then run every check and every test of the
# repository — unit tests, the integration tests against the real containerd started by
# scripts/test-runtime.sh (once on containerd 1.6, once on containerd 2), and the test bed's smoke
# test of the upstream kubelet on the real control plane of scripts/control-plane.sh (both built
# from the Go module proxy by scripts/upstream/build.sh). Ends with one line
# "tests: N passed, N failed, N skipped".
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1
# turbo's cache outside the checkout, like Go's: a clean clone on a machine that built the same
# sources before reuses their outputs (turbo hashes every input; tests are never cached).
export TURBO_CACHE_DIR=${TURBO_CACHE_DIR:-/var/cache/kubelet-ts/turbo}
export CI="${CI:-}"
start=$(date +%s)

bash scripts/setup.sh

summary=$(mktemp)
export KUBELET_TS_TEST_SUMMARY="$summary"
status=0

step() { echo; echo "=== $* ($(( $(date +%s) - start ))s)"; }

step "generated code is up to date"
npx turbo run check:generated --output-logs=errors-only --continue || status=1
step "typecheck"
npx turbo run typecheck --output-logs=errors-only --continue || status=1
step "formatting (prettier --check)"
npx prettier --check . --log-level=warn || status=1
step "lint"
npx eslint . || status=1
step "layer rules (dependency-cruiser)"
npm run --silent check:layers || status=1
step "published shape (publint, attw)"
npx turbo run check:publish --output-logs=errors-only --continue || status=1
step "docs/conformance.md is generated from conformance/results (scripts/conformance/report.mjs)"
node scripts/conformance/report.mjs --check || status=1
step "API reports (api-extractor)"
npx turbo run check:api --output-logs=errors-only --continue || status=1

step "unit tests"
npx turbo run test:unit --concurrency=2 --continue || status=1

step "upstream components (scripts/upstream/build.sh: control plane, kubelet, kubectl, containerd 2, crictl, e2e.test)"
bash scripts/upstream/build.sh --only control-plane,kubelet,kubectl,containerd,crictl,conformance || status=1
step "upstream facts: the unit tests' static pod UID / container hash vectors and the Pod's Go layout are the upstream kubelet's (scripts/upstream/podfacts/vectors.sh --check)"
bash scripts/upstream/podfacts/vectors.sh --check || status=1

# The real control plane is up for every integration suite: the API-mode packages test against it.
step "control plane (scripts/control-plane.sh)"
bash scripts/control-plane.sh up || status=1
# shellcheck disable=SC1091
source "${KUBELET_TS_CONTROL_PLANE_DIR:-/run/kubelet-ts-control-plane}/env"

# The integration suites run against each runtime: Debian's containerd 1.6, then containerd 2.
# These packages' integration tests never reach the CRI (API server, cgroupfs, files, HTTP only).
RUNTIME_INDEPENDENT_PACKAGES=(certificate-manager cgroup-manager events kube-client node-status pod-sources)
# Of those, these talk to the API server alone and take no runtime lock (their jest configs have no
# global setup): they run once, beside the containerd 1.6 pass (whose suites never call the API server),
# instead of adding their minute to the containerd 2 pass.
API_ONLY_PACKAGES=(certificate-manager events kube-client node-status pod-sources)
api_only_log=$(mktemp)
api_only_pid=
for containerd in 1 2; do
  step "runtime test environment (containerd $containerd)"
  bash scripts/test-runtime.sh down >/dev/null 2>&1 || true
  KUBELET_TS_CONTAINERD=$containerd bash scripts/test-runtime.sh up
  # shellcheck disable=SC1091
  source "${KUBELET_TS_RUNTIME_DIR:-/run/kubelet-ts-runtime}/env"

  if [ "$containerd" = 1 ]; then
    step "integration tests of the API-only packages (${API_ONLY_PACKAGES[*]}), in the background, output at the end of the containerd 1.6 pass"
    npx turbo run test:integration --concurrency=1 --continue \
      $(printf -- '--filter=@kubelet-ts/%s ' "${API_ONLY_PACKAGES[@]}") >"$api_only_log" 2>&1 &
    api_only_pid=$!
    # The suites whose outcome cannot depend on the runtime run once, in the containerd 2 pass: the
    # packages that never reach the CRI, and the kubelet's cluster-member suites (jest.integration.cjs).
    step "integration tests against containerd $KUBELET_TS_CONTAINERD_VERSION ($KUBELET_TS_CRI_ENDPOINT): the runtime-dependent suites"
    KUBELET_TS_IT_RUNTIME_ONLY=1 npx turbo run test:integration --concurrency=1 --continue \
      $(printf -- '--filter=!@kubelet-ts/%s ' "${RUNTIME_INDEPENDENT_PACKAGES[@]}") || status=1
    step "integration tests of the API-only packages (started with the containerd 1.6 pass)"
    wait "$api_only_pid" || status=1
    cat "$api_only_log"
    rm -f "$api_only_log"
  else
    step "integration tests against containerd $KUBELET_TS_CONTAINERD_VERSION ($KUBELET_TS_CRI_ENDPOINT): every suite but the API-only packages'"
    npx turbo run test:integration --concurrency=1 --continue \
      $(printf -- '--filter=!@kubelet-ts/%s ' "${API_ONLY_PACKAGES[@]}") || status=1
  fi

  if [ "$containerd" = 2 ]; then
    step "upstream kubelet $KUBELET_TS_K8S_VERSION joins the control plane and runs a pod (containerd $KUBELET_TS_CONTAINERD_VERSION)"
    node scripts/smoke/upstream-kubelet.mjs || status=1
    step "node conformance: the CI subset of the upstream e2e [NodeConformance] specs against kubelet-ts (docs/conformance.md)"
    # Three ginkgo processes on the 2 cores: the specs mostly wait for pods (about a third less time than 2).
    node scripts/conformance/run.mjs --subset ci --no-setup --procs 3 || status=1
    step "drop-in: kubelet-ts takes a running node over from the upstream kubelet and hands it back, 0 containers restarted (scripts/adoption/takeover.mjs)"
    node scripts/adoption/takeover.mjs || status=1
  fi
done

if [ "${KUBELET_TS_KEEP_RUNTIME:-}" != "1" ]; then
  step "tearing the test environments down"
  bash scripts/control-plane.sh down || status=1
  bash scripts/test-runtime.sh down || status=1
fi

passed=0 failed=0 skipped=0
while IFS=$'\t' read -r _dir p f s; do
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
done < "$summary"
rm -f "$summary"
[ "$failed" -eq 0 ] || status=1
echo
echo "finished in $(( $(date +%s) - start ))s"
echo "tests: ${passed} passed, ${failed} failed, ${skipped} skipped"
exit "$status"
