#!/usr/bin/env bash
# `npm run faults`: issue 22's full fault set on the real runtime and control plane — the kubelet
# SIGKILLed at random moments of a 110-pod start ten times, restarted 20 times under 110 pods, containerd
# SIGKILLed 6 times under 110 pods, the pod log and root dirs full (apps/kubelet/test/integration/faults.test.ts
# with KUBELET_TS_FAULTS=full), a CSI driver that dies mid-call and one that never answers (csi-faults.test.ts), and the API server and etcd stopped for 5 minutes in API mode (the outage
# test of api-mode.test.ts). CI runs the same tests with small counts. Figures: stdout and
# scripts/reliability/results/faults-latest.jsonl. Brings the runtime and the control plane up if they are
# not (and leaves them up). Replay a run's random kill moments with KUBELET_TS_FAULTS_SEED=<seed it printed>.
set -euo pipefail
cd "$(dirname "$0")/../.."
export TURBO_CACHE_DIR=${TURBO_CACHE_DIR:-/var/cache/kubelet-ts/turbo}
bash scripts/setup.sh
runtime_dir=${KUBELET_TS_RUNTIME_DIR:-/run/kubelet-ts-runtime}
[ -f "$runtime_dir/env" ] || bash scripts/test-runtime.sh up
bash scripts/upstream/build.sh --only control-plane,kubectl
bash scripts/control-plane.sh status >/dev/null 2>&1 || bash scripts/control-plane.sh up
report=scripts/reliability/results/faults-latest.jsonl
mkdir -p "$(dirname "$report")"
rm -f "$report"
started=$(date +%s)
status=0
cd apps/kubelet
KUBELET_TS_FAULTS=full KUBELET_TS_FAULTS_REPORT="$PWD/../../$report" npx jest -c jest.integration.cjs --runInBand \
  test/integration/faults.test.ts test/integration/csi-faults.test.ts || status=1
KUBELET_TS_FAULTS=full npx jest -c jest.integration.cjs --runInBand test/integration/api-mode.test.ts -t 'outage' || status=1
cd ../..
echo "faults: finished in $(( $(date +%s) - started )) s (exit $status); figures in $report"
exit "$status"
