#!/usr/bin/env bash
# Runs the CRI validation suite (critest, built by scripts/upstream/build.sh) against the private
# containerd of scripts/test-runtime.sh, offline: containerd resolves registry.k8s.io through the
# loopback registry (a certs.d mirror entry), which holds the test bed's busybox as the suite's
# default container image (e2e-test-images/busybox:1.29-2). Other images the suite pulls
# (nginx, httpd, nonewprivs and the k8s-staging-cri-tools test images) are not available offline;
# their specs fail on the pull and are counted as such.
#
#   bash scripts/critest.sh [critest flags...]     e.g. --ginkgo.focus=Networking
#
# Holds the runtime lock while it runs; the JUnit report goes to $KUBELET_TS_RUNTIME_DIR/critest/.
set -euo pipefail
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DIR=${KUBELET_TS_RUNTIME_DIR:-/run/kubelet-ts-runtime}
[ -f "$DIR/env" ] || { echo "critest: no runtime at $DIR: start it with: bash scripts/test-runtime.sh up" >&2; exit 1; }
# shellcheck disable=SC1091
source "$DIR/env"
bash "$SCRIPT_DIR/upstream/build.sh" --only critest
BIN=$(bash "$SCRIPT_DIR/upstream/build.sh" --bin-dir)

mkdir -p "$DIR/certs.d/registry.k8s.io"
cat >"$DIR/certs.d/registry.k8s.io/hosts.toml" <<TOML
# Written by scripts/critest.sh: registry.k8s.io comes from the loopback registry (offline).
server = "https://registry.k8s.io"
[host."http://$KUBELET_TS_REGISTRY"]
  capabilities = ["pull", "resolve"]
TOML
skopeo --insecure-policy copy --quiet --dest-tls-verify=false "oci-archive:$KUBELET_TS_IMAGES_DIR/registry/busybox.tar" \
  "docker://$KUBELET_TS_REGISTRY/e2e-test-images/busybox:1.29-2"

report=$DIR/critest
rm -rf "$report" && mkdir -p "$report"
rc=0
node "$SCRIPT_DIR/with-runtime-lock.mjs" -- "$BIN/critest" --runtime-endpoint "$KUBELET_TS_CRI_ENDPOINT" \
  --report-dir "$report" --ginkgo.no-color "$@" >"$report/critest.log" 2>&1 || rc=$?
rm -f "$DIR/certs.d/registry.k8s.io/hosts.toml"
grep -E '^Ran [0-9]+ of|Passed \|' "$report/critest.log" || tail -n 20 "$report/critest.log"
echo "critest: containerd $KUBELET_TS_CONTAINERD_VERSION, log $report/critest.log, JUnit in $report (exit $rc)"
exit "$rc"
