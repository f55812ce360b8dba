#!/usr/bin/env bash
# Regenerates the upstream facts kubelet-ts's unit tests compare against, with the upstream
# kubelet's own code (podfacts, built from k8s.io/kubernetes at the pinned version):
#   - packages/pod-sources/test/fixtures/static-pod-uids/vectors.json: for each manifest there,
#     the static pod UID the kubelet's file source assigns on node "node-a" with the manifests in
#     /tmp/kubelet-ts-podfacts/manifests, the text it hashes, and the container hashes;
#   - packages/pod-sources/src/internal/go-pod-layout.ts: the Go layout of core.Pod;
#   - packages/checkpoint-manager/test/fixtures/upstream-checkpoints.json: CPU and memory manager
#     checkpoint files as the kubelet's MarshalCheckpoint writes them;
#   - packages/runtime-manager/test/fixtures/upstream-container-annotations.json: the fixture
#     manifests' containers with the preStop and ports annotations kuberuntime writes for them.
#
#   bash scripts/upstream/podfacts/vectors.sh [--check]   --check: fail if either file would change
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
source "$ROOT/scripts/upstream/versions.env"
bash "$ROOT/scripts/upstream/build.sh" --only podfacts
BIN=$(bash "$ROOT/scripts/upstream/build.sh" --bin-dir)/podfacts
FIXTURES=$ROOT/packages/pod-sources/test/fixtures/static-pod-uids
LAYOUT=$ROOT/packages/pod-sources/src/internal/go-pod-layout.ts
CHECKPOINTS=$ROOT/packages/checkpoint-manager/test/fixtures/upstream-checkpoints.json
ANNOTATIONS=$ROOT/packages/runtime-manager/test/fixtures/upstream-container-annotations.json
DIR=/tmp/kubelet-ts-podfacts/manifests
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
rm -rf "$DIR" && mkdir -p "$DIR" && cp "$FIXTURES"/*.yaml "$DIR"/
"$BIN" vectors node-a "$DIR" >"$OUT/vectors.json"
"$BIN" checkpoints >"$OUT/checkpoints.json"
"$BIN" annotations "$DIR" >"$OUT/annotations.json"
"$BIN" layout | KUBERNETES_VERSION=$KUBERNETES_VERSION node "$ROOT/scripts/upstream/podfacts/layout-to-ts.mjs" >"$OUT/layout.ts"
if [ "${1:-}" = --check ]; then
  cmp -s "$OUT/vectors.json" "$FIXTURES/vectors.json" || { echo "vectors.json is out of date: run $0" >&2; exit 1; }
  cmp -s "$OUT/layout.ts" "$LAYOUT" || { echo "go-pod-layout.ts is out of date: run $0" >&2; exit 1; }
  cmp -s "$OUT/checkpoints.json" "$CHECKPOINTS" || { echo "upstream-checkpoints.json is out of date: run $0" >&2; exit 1; }
  cmp -s "$OUT/annotations.json" "$ANNOTATIONS" || { echo "upstream-container-annotations.json is out of date: run $0" >&2; exit 1; }
  echo "podfacts: vectors, layout and checkpoints match the upstream kubelet $KUBERNETES_VERSION"
else
  cp "$OUT/vectors.json" "$FIXTURES/vectors.json"
  cp "$OUT/layout.ts" "$LAYOUT"
  mkdir -p "$(dirname "$CHECKPOINTS")" && cp "$OUT/checkpoints.json" "$CHECKPOINTS"
  mkdir -p "$(dirname "$ANNOTATIONS")" && cp "$OUT/annotations.json" "$ANNOTATIONS"
  echo "podfacts: wrote $FIXTURES/vectors.json, $LAYOUT, $CHECKPOINTS and $ANNOTATIONS"
fi
