#!/usr/bin/env bash
# Builds the upstream components of the test bed from the Go module proxy with the ordinary
# `go` client, at the versions pinned in scripts/upstream/versions.env, into a cache outside
# the repository. Each binary is rebuilt only when it is missing or was built at another version.
#
#   bash scripts/upstream/build.sh [--only a,b,...]   build what is missing (default: everything)
#   bash scripts/upstream/build.sh --bin-dir           print the directory the binaries are in
#   bash scripts/upstream/build.sh --list              print the components and their binaries
#
# Components: etcd apiserver controller-manager scheduler kubelet kubectl e2e ginkgo agnhost
#             nonewprivs podfacts containerd crictl critest; groups: control-plane (etcd, apiserver,
#             controller-manager, scheduler), conformance (e2e, ginkgo, agnhost, nonewprivs), all.
#
# Environment:
#   KUBELET_TS_UPSTREAM_BIN_DIR  binaries built elsewhere: nothing is built, the script only
#                                checks that the asked-for binaries are there (like envtest's
#                                KUBEBUILDER_ASSETS)
#   KUBELET_TS_UPSTREAM_CACHE    cache root (default /var/cache/kubelet-ts/upstream); binaries go to
#                                <cache>/<kubernetes version>/bin, logs to <cache>/<version>/logs
set -euo pipefail
shopt -s inherit_errexit

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=versions.env
source "$SCRIPT_DIR/versions.env"

CACHE=${KUBELET_TS_UPSTREAM_CACHE:-/var/cache/kubelet-ts/upstream}
ROOT=$CACHE/$KUBERNETES_VERSION
LOG_DIR=$ROOT/logs
WORK_DIR=$ROOT/src
export GOTOOLCHAIN=local GOFLAGS=${GOFLAGS:+$GOFLAGS }-mod=mod

START=$(date +%s)
log() { printf '[upstream %4ds] %s\n' "$(($(date +%s) - START))" "$*" >&2; }
die() {
  printf '[upstream %4ds] ERROR: %s\n' "$(($(date +%s) - START))" "$*" >&2
  exit 1
}

# component → the binaries it makes, and the version they are stamped with.
declare -A BINARIES=(
  [etcd]=etcd
  [apiserver]=kube-apiserver
  [controller-manager]=kube-controller-manager
  [scheduler]=kube-scheduler
  [kubelet]=kubelet
  [kubectl]=kubectl
  [e2e]=e2e.test
  [ginkgo]=ginkgo
  [agnhost]=agnhost
  [nonewprivs]=nonewprivs
  [podfacts]=podfacts
  [containerd]="containerd containerd-shim-runc-v2 ctr"
  [crictl]=crictl
  [critest]=critest
)
declare -A VERSION_OF=(
  [etcd]=$ETCD_VERSION
  [ginkgo]=$GINKGO_VERSION
  [containerd]=$CONTAINERD_VERSION
  [crictl]=$CRI_TOOLS_VERSION
  [critest]=$CRI_TOOLS_VERSION
  # Our own program: rebuilt when its source changes too.
  [podfacts]="$KUBERNETES_VERSION+$(sha256sum "$SCRIPT_DIR/podfacts/main.go" | cut -c1-12)"
)
ORDER=(etcd apiserver controller-manager scheduler kubelet kubectl ginkgo agnhost nonewprivs podfacts e2e containerd crictl critest)

version_of() { echo "${VERSION_OF[$1]:-$KUBERNETES_VERSION}"; }

expand() {
  local item
  for item in ${1//,/ }; do
    case $item in
      all) echo "${ORDER[@]}" ;;
      control-plane) echo etcd apiserver controller-manager scheduler ;;
      conformance) echo e2e ginkgo agnhost nonewprivs ;;
      *)
        [ -n "${BINARIES[$item]+x}" ] || die "unknown component '$item' (known: ${ORDER[*]}, control-plane, conformance, all)"
        echo "$item"
        ;;
    esac
  done
}

bin_dir() { echo "${KUBELET_TS_UPSTREAM_BIN_DIR:-$ROOT/bin}"; }

# A binary is current when it exists and its stamp names the pinned version.
is_current() {
  local component=$1 dir bin
  dir=$(bin_dir)
  for bin in ${BINARIES[$component]}; do
    [ -x "$dir/$bin" ] || return 1
    if [ -z "${KUBELET_TS_UPSTREAM_BIN_DIR:-}" ]; then
      [ "$(cat "$dir/.$bin.version" 2>/dev/null)" = "$(version_of "$component")" ] || return 1
    fi
  done
}

stamp() {
  local component=$1 bin
  for bin in ${BINARIES[$component]}; do
    version_of "$component" >"$ROOT/bin/.$bin.version"
  done
}

# --- the wrapper module for k8s.io/kubernetes ---------------------------------

# k8s.io/kubernetes cannot be `go install`ed: its go.mod requires every staging module at v0.0.0
# and replaces it with ./staging/src/… . The wrapper requires it at the pinned version and
# replaces each staging module (read from that version's own go.mod) with its published release.
k8s_module() {
  local dir=$WORK_DIR/kubernetes gomod staging minor patch m etcd_pin
  if [ -f "$dir/.ready" ] && [ "$(cat "$dir/.ready")" = "$KUBERNETES_VERSION" ]; then
    echo "$dir"
    return
  fi
  log "preparing the wrapper module for k8s.io/kubernetes@$KUBERNETES_VERSION"
  rm -rf "$dir" && mkdir -p "$dir"
  cp "$SCRIPT_DIR/kubernetes/tools.go" "$dir/"
  (
    cd "$dir"
    go mod init kubelet-ts.local/upstream/kubernetes >/dev/null 2>&1
    gomod=$(go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
    [ -f "$gomod" ] || die "could not download k8s.io/kubernetes@$KUBERNETES_VERSION"
    minor=${KUBERNETES_VERSION#v1.}
    minor=${minor%%.*}
    patch=${KUBERNETES_VERSION##*.}
    staging=$(sed -n 's#^[[:space:]]*\(k8s\.io/[A-Za-z0-9._-]*\) => \./staging/src/.*#\1#p' "$gomod" | sort -u)
    [ -n "$staging" ] || die "no staging replacements found in $gomod"
    for m in $staging; do
      go mod edit -replace="$m=$m@v0.$minor.$patch"
    done
    etcd_pin=$(sed -n 's#^[[:space:]]*go\.etcd\.io/etcd/server/v3 \(v[^ ]*\).*#\1#p' "$gomod")
    [ "$etcd_pin" = "$ETCD_VERSION" ] ||
      die "versions.env pins etcd $ETCD_VERSION but k8s.io/kubernetes@$KUBERNETES_VERSION requires $etcd_pin"
    go mod edit -require="k8s.io/kubernetes@$KUBERNETES_VERSION"
    log "  $(wc -w <<<"$staging") staging modules replaced; go mod tidy"
    go mod tidy >"$LOG_DIR/kubernetes-tidy.log" 2>&1 || die "go mod tidy failed: see $LOG_DIR/kubernetes-tidy.log"
    echo "$KUBERNETES_VERSION" >.ready
  ) >&2
  echo "$dir"
}

# The version variables every Kubernetes binary reports (hack/lib/version.sh); the build date is
# the release's commit time, so rebuilding gives the same binary.
k8s_ldflags() {
  local info minor when flags="" pkg
  info=$(go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION" | sed -n 's/^[[:space:]]*"Info": "\(.*\)",$/\1/p')
  when=$(sed -n 's/.*"Time":"\([^"]*\)".*/\1/p' "$info")
  minor=${KUBERNETES_VERSION#v1.}
  minor=${minor%%.*}
  for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
    flags+=" -X '$pkg.gitVersion=$KUBERNETES_VERSION' -X '$pkg.gitMajor=1' -X '$pkg.gitMinor=$minor'"
    flags+=" -X '$pkg.gitTreeState=clean' -X '$pkg.buildDate=${when%%.*}Z'"
  done
  echo "-s -w$flags"
}

# Runs one build step with its output in a log of its own; prints a line a minute meanwhile.
run_logged() {
  local name=$1 logfile=$LOG_DIR/$1.log t0 pid rc=0
  shift
  t0=$(date +%s)
  log "building $name (log: $logfile)"
  "$@" >"$logfile" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    for _ in $(seq 60); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 1
    done
    kill -0 "$pid" 2>/dev/null && log "  … $name, $(($(date +%s) - t0))s"
  done
  wait "$pid" || rc=$?
  if ((rc != 0)); then
    tail -n 30 "$logfile" >&2
    die "building $name failed (exit $rc): see $logfile"
  fi
  log "built $name in $(($(date +%s) - t0))s"
}

build_k8s() {
  local component=$1 dir ldflags out=$ROOT/bin
  dir=$(k8s_module)
  ldflags=$(k8s_ldflags)
  cd "$dir"
  case $component in
    # Static like upstream's release builds (hack/lib/golang.sh), except the kubelet (cgo).
    apiserver | controller-manager | scheduler | kubectl)
      run_logged "$component" env CGO_ENABLED=0 go build -trimpath -tags selinux,notest \
        -ldflags "$ldflags" -o "$out/${BINARIES[$component]}" "k8s.io/kubernetes/cmd/${BINARIES[$component]}"
      ;;
    kubelet)
      run_logged kubelet go build -trimpath -tags selinux,notest -ldflags "$ldflags" -o "$out/kubelet" \
        k8s.io/kubernetes/cmd/kubelet
      ;;
    etcd)
      run_logged etcd env CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$out/etcd" go.etcd.io/etcd/server/v3
      ;;
    ginkgo)
      run_logged ginkgo env CGO_ENABLED=0 go build -trimpath -o "$out/ginkgo" github.com/onsi/ginkgo/v2/ginkgo
      ;;
    agnhost)
      # Static, so that it runs on any image base (kubernetes/kubernetes#110176).
      run_logged agnhost env CGO_ENABLED=0 go build -trimpath -o "$out/agnhost" k8s.io/kubernetes/test/images/agnhost
      ;;
    nonewprivs)
      # The e2e image's one binary (test/images/nonewprivs): prints its effective uid.
      run_logged nonewprivs env CGO_ENABLED=0 go build -trimpath -o "$out/nonewprivs" k8s.io/kubernetes/test/images/nonewprivs
      ;;
    podfacts)
      # Our own fact printer (scripts/upstream/podfacts), a package of the wrapper module so that
      # it runs exactly the kubelet's code: static pod UIDs, container hashes, the Pod's Go layout.
      rm -rf podfacts && mkdir podfacts && cp "$SCRIPT_DIR/podfacts/main.go" podfacts/
      run_logged podfacts env CGO_ENABLED=0 go build -trimpath -o "$out/podfacts" ./podfacts
      ;;
    e2e)
      # A test binary of a dependency: -mod=mod (GOFLAGS) lets go add the sums of its test-only
      # imports; vet is off because newer analyzers reject code that upstream's Go accepted.
      run_logged e2e go test -c -vet=off -trimpath -tags selinux,notest -ldflags "$ldflags" \
        -o "$out/e2e.test" k8s.io/kubernetes/test/e2e
      ;;
  esac
  cd - >/dev/null
}

build_containerd() {
  # No replace directives in containerd's go.mod, so `go install module@version` works; the btrfs
  # snapshotter needs cgo and simply drops out.
  run_logged containerd env CGO_ENABLED=0 GOBIN="$ROOT/bin" go install -trimpath \
    "github.com/containerd/containerd/v2/cmd/containerd@$CONTAINERD_VERSION" \
    "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2@$CONTAINERD_VERSION" \
    "github.com/containerd/containerd/v2/cmd/ctr@$CONTAINERD_VERSION"
}

build_crictl() {
  run_logged crictl env CGO_ENABLED=0 GOBIN="$ROOT/bin" go install -trimpath \
    "sigs.k8s.io/cri-tools/cmd/crictl@$CRI_TOOLS_VERSION"
}

build_critest() {
  # critest is a test binary: `go test -c` needs a module that requires cri-tools.
  local dir=$WORK_DIR/cri-tools
  if [ "$(cat "$dir/.ready" 2>/dev/null)" != "$CRI_TOOLS_VERSION" ]; then
    rm -rf "$dir" && mkdir -p "$dir"
    cp "$SCRIPT_DIR/cri-tools/tools.go" "$dir/"
    (
      cd "$dir"
      go mod init kubelet-ts.local/upstream/cri-tools >/dev/null 2>&1
      go mod edit -require="sigs.k8s.io/cri-tools@$CRI_TOOLS_VERSION"
      go mod tidy >"$LOG_DIR/cri-tools-tidy.log" 2>&1 || die "go mod tidy failed: see $LOG_DIR/cri-tools-tidy.log"
      echo "$CRI_TOOLS_VERSION" >.ready
    )
  fi
  cd "$dir"
  run_logged critest env CGO_ENABLED=0 go test -c -vet=off -trimpath -o "$ROOT/bin/critest" \
    sigs.k8s.io/cri-tools/cmd/critest
  cd - >/dev/null
}

build() {
  local component=$1
  case $component in
    containerd) build_containerd ;;
    crictl) build_crictl ;;
    critest) build_critest ;;
    *) build_k8s "$component" ;;
  esac
  stamp "$component"
}

main() {
  local only=all action=build components c missing=()
  while (($#)); do
    case $1 in
      --only) only=${2:?--only needs a list}; shift 2 ;;
      --only=*) only=${1#--only=}; shift ;;
      --bin-dir) action=bin-dir; shift ;;
      --list) action=list; shift ;;
      -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
      *) die "unknown argument '$1' (see --help)" ;;
    esac
  done
  case $action in
    bin-dir) bin_dir; return ;;
    list)
      for c in "${ORDER[@]}"; do printf '%-20s %-12s %s\n' "$c" "$(version_of "$c")" "${BINARIES[$c]}"; done
      return
      ;;
  esac
  read -r -a components <<<"$(expand "$only" | tr '\n' ' ')"

  if [ -n "${KUBELET_TS_UPSTREAM_BIN_DIR:-}" ]; then
    for c in "${components[@]}"; do is_current "$c" || missing+=("$c (${BINARIES[$c]})"); done
    ((${#missing[@]} == 0)) || die "KUBELET_TS_UPSTREAM_BIN_DIR=$KUBELET_TS_UPSTREAM_BIN_DIR lacks: ${missing[*]}"
    log "using the binaries in $KUBELET_TS_UPSTREAM_BIN_DIR"
    return
  fi

  command -v go >/dev/null || die "go is not on the PATH (Go 1.26 is needed to build the upstream components)"
  mkdir -p "$ROOT/bin" "$LOG_DIR" "$WORK_DIR"
  for c in "${components[@]}"; do
    if is_current "$c"; then
      log "$c $(version_of "$c"): cached"
    else
      build "$c"
    fi
  done
  log "done: $(bin_dir) ($(du -sh "$ROOT/bin" | cut -f1))"
}

main "$@"
