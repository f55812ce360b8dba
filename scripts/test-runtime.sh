#!/usr/bin/env bash
# The runtime test environment of kubelet-ts: a private containerd (CRI) with a
# CNI bridge network, offline-built test images, two loopback registries and a
# test cgroup root. Integration tests find it through $KUBELET_TS_RUNTIME_DIR/env.
#
#   bash scripts/test-runtime.sh up                  install, build, start (idempotent)
#   bash scripts/test-runtime.sh install             only install the Debian packages it needs
#   bash scripts/test-runtime.sh down [--purge]      tear everything down (--purge also drops the image cache)
#   bash scripts/test-runtime.sh env                 print the env file
#   bash scripts/test-runtime.sh status              print what is running; exit 1 if something is not
#   bash scripts/test-runtime.sh restart-containerd  SIGKILL containerd and start it again (shims survive)
#   bash scripts/test-runtime.sh stop-containerd     stop containerd, remove its socket
#   bash scripts/test-runtime.sh start-containerd    start containerd with the same config
#   bash scripts/test-runtime.sh conformance-images  build the upstream e2e specs' images, push them
#                                                    to the registry, write the e2e repo list
#
# KUBELET_TS_CONTAINERD selects the runtime: 1 (default) is Debian's containerd 1.6; 2 is
# containerd 2 built from the Go module proxy by scripts/upstream/build.sh (version pinned in
# scripts/upstream/versions.env), with the same private layout. Switching needs a `down` first.
#
# Runs as root on Debian 12. Never touches a system containerd (/var/lib/containerd,
# /run/containerd, /etc/containerd) nor cgroups outside $KUBELET_TS_CGROUP_ROOT; the
# only files outside $KUBELET_TS_RUNTIME_DIR are containerd 1.6's own shim sockets
# (/run/containerd/s, hard-coded) and libcni's cache (/var/lib/cni). See docs/testing.md.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RUNTIME_SRC=$SCRIPT_DIR/runtime

DIR=${KUBELET_TS_RUNTIME_DIR:-/run/kubelet-ts-runtime}
DIR=${DIR%/}
SOCK=$DIR/containerd.sock
CONTAINERD_CONFIG=$DIR/containerd.toml
CONTAINERD_PID_FILE=$DIR/containerd.pid
LOG_DIR=$DIR/logs
BIN_DIR=$DIR/bin          # compiled helpers (kept by `down`)
IMAGES_DIR=$DIR/images    # OCI archives (kept by `down`)
CNI_CONF_DIR=$DIR/cni/net.d
CNI_IPAM_DIR=$DIR/cni/ipam
# Host-wide names: override all of these (and the directory) to run a second
# instance side by side, e.g. to try changes to this script (docs/testing.md).
CNI_NETWORK=${KUBELET_TS_CNI_NETWORK:-kubelet-ts-test}
CNI_BRIDGE=${KUBELET_TS_CNI_BRIDGE:-kts0}
CNI_SUBNET=${KUBELET_TS_CNI_SUBNET:-10.77.0.0/16}
CGROUP_ROOT=${KUBELET_TS_CGROUP_ROOT:-/kubelet-ts-test}
REGISTRY_PORT=${KUBELET_TS_REGISTRY_PORT:-5000}
# containerd's Prometheus endpoint (its gRPC server's grpc_server_handled_total): the benchmarks count
# any kubelet's CRI calls there, the upstream kubelet's included.
METRICS_ADDRESS=${KUBELET_TS_CONTAINERD_METRICS_ADDRESS:-127.0.0.1:1338}
AUTH_REGISTRY_PORT=${KUBELET_TS_AUTH_REGISTRY_PORT:-5001}
POD_LOGS_DIR=$DIR/pod-logs
REGISTRY_DIR=$DIR/registry
REGISTRY_USER=kubelet-ts
LOCK_FILE=$DIR.lock

PAUSE_IMAGE=localhost/kubelet-ts/pause:test
BUSYBOX_IMAGE=localhost/kubelet-ts/busybox:test
HTTP_IMAGE=localhost/kubelet-ts/http-echo:test
IMAGE_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

APT_PACKAGES=(containerd runc containernetworking-plugins docker-registry skopeo busybox-static
  gcc libc6-dev libcrypt-dev iproute2 iptables util-linux prometheus
  faketime # token-rotation.test.ts: the kubelet's wall clock moved forward
  curl netcat-openbsd) # the last two go into the conformance images (scripts/runtime/conformance-images.sh)
# Links to /bin/busybox in the busybox and http-echo images (like `busybox --install -s /bin`).
BUSYBOX_APPLETS=(sh sleep cat echo ls nc httpd touch rm mkdir test true false date env id ps kill
  wget tail head seq dd grep mount df hostname printf
  awk basename chmod cp cut dirname find ip ln mv nslookup ping pwd readlink sed sort stat tee
  brctl tar timeout top tr umount uname wc which whoami xargs yes)

START=${EPOCHREALTIME/,/.}

# Which containerd: the one asked for, else the one `up` recorded, else Debian's 1.6.
CONTAINERD_MAJOR_FILE=$DIR/containerd.major
CONTAINERD_MAJOR=${KUBELET_TS_CONTAINERD:-$(cat "$CONTAINERD_MAJOR_FILE" 2>/dev/null || echo 1)}
CONTAINERD_BIN=containerd
CTR_BIN=ctr
SHIM_BIN=

# --- output -----------------------------------------------------------------

elapsed() { awk -v s="$START" -v n="${EPOCHREALTIME/,/.}" 'BEGIN { printf "%6.1fs", n - s }'; }
log() { printf '[test-runtime %s] %s\n' "$(elapsed)" "$*" >&2; }
die() {
  printf '[test-runtime %s] ERROR: %s\n' "$(elapsed)" "$*" >&2
  exit 1
}

# Runs a command with its output hidden; on failure shows the output and fails.
quiet() {
  local out rc=0
  out=$(mktemp)
  "$@" >"$out" 2>&1 || rc=$?
  if ((rc != 0)); then
    printf '[test-runtime %s] command failed (exit %d): %s\n' "$(elapsed)" "$rc" "$*" >&2
    tail -n 40 "$out" >&2
  fi
  rm -f "$out"
  return "$rc"
}

show_log_tail() {
  local file=$1
  if [[ -f $file ]]; then
    printf -- '--- last lines of %s ---\n' "$file" >&2
    tail -n 30 "$file" >&2
    printf -- '---\n' >&2
  fi
}

# --- guards -----------------------------------------------------------------

check_dir() {
  # `down` deletes under $DIR: refuse anything that could be a system directory.
  case $DIR in
    /* ) ;;
    *) die "KUBELET_TS_RUNTIME_DIR must be an absolute path (got '$DIR')" ;;
  esac
  local depth=${DIR//[^\/]/}
  if ((${#depth} < 2)) || [[ $DIR == *..* || $DIR == /run/containerd* || $DIR == /var/lib/containerd* ]]; then
    die "refusing KUBELET_TS_RUNTIME_DIR=$DIR: use a dedicated directory such as /run/kubelet-ts-runtime"
  fi
}

check_names() {
  # `down` removes $CGROUP_ROOT in every hierarchy: it must be a dedicated subtree.
  [[ $CGROUP_ROOT =~ ^(/[A-Za-z0-9._-]+)+$ && $CGROUP_ROOT != /process_api* && $CGROUP_ROOT != *..* ]] ||
    die "refusing KUBELET_TS_CGROUP_ROOT=$CGROUP_ROOT: use a dedicated path such as /kubelet-ts-test"
  [[ $CNI_BRIDGE =~ ^[A-Za-z0-9_-]{1,15}$ ]] || die "invalid KUBELET_TS_CNI_BRIDGE=$CNI_BRIDGE"
  [[ $CNI_NETWORK =~ ^[A-Za-z0-9._-]+$ ]] || die "invalid KUBELET_TS_CNI_NETWORK=$CNI_NETWORK"
  [[ $REGISTRY_PORT =~ ^[0-9]+$ && $AUTH_REGISTRY_PORT =~ ^[0-9]+$ && $REGISTRY_PORT != "$AUTH_REGISTRY_PORT" ]] ||
    die "invalid registry ports $REGISTRY_PORT/$AUTH_REGISTRY_PORT"
}

require_root() { ((EUID == 0)) || die "run as root (containerd, CNI and cgroups need it)"; }

take_lock() {
  mkdir -p "$(dirname "$LOCK_FILE")"
  exec 9>"$LOCK_FILE"
  if ! flock -n 9; then
    log "waiting for another test-runtime.sh to finish (lock $LOCK_FILE)"
    flock -w 600 9 || die "could not take $LOCK_FILE within 600 s"
  fi
}

# --- processes ----------------------------------------------------------------

# The command line of PID $1 with spaces between arguments (empty for zombies).
cmdline_of() {
  local args=()
  { mapfile -d '' args <"/proc/$1/cmdline"; } 2>/dev/null || return 1
  ((${#args[@]} > 0)) || return 1
  printf '%s ' "${args[@]}"
}

# True when $1 is a live process whose command line contains $2.
pid_matches() {
  local pid=$1 needle=$2 cmdline
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  cmdline=$(cmdline_of "$pid") || return 1
  [[ $cmdline == *"$needle"* ]]
}

read_pid() { [[ -f $1 ]] && tr -dc '0-9' <"$1" || true; }

# PIDs of live processes whose command line contains every argument.
find_pids() {
  local proc pid cmdline needle ok args
  for proc in /proc/[0-9]*; do
    pid=${proc#/proc/}
    args=()
    { mapfile -d '' args <"$proc/cmdline"; } 2>/dev/null || continue
    ((${#args[@]} > 0)) || continue
    cmdline="${args[*]} "
    ok=1
    for needle in "$@"; do [[ $cmdline == *"$needle"* ]] || ok=0; done
    ((ok)) && [[ $pid != "$$" && $pid != "$BASHPID" ]] && echo "$pid"
  done
  return 0
}

# Sends $2 to PID $1 and waits up to $3 seconds for it to exit.
stop_pid() {
  local pid=$1 signal=$2 timeout=$3 i
  kill "-$signal" "$pid" 2>/dev/null || return 0
  for ((i = 0; i < timeout * 10; i++)); do
    [[ -d /proc/$pid ]] || return 0
    # A zombie we do not own counts as gone.
    [[ $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) == Z ]] && return 0
    sleep 0.1
  done
  return 1
}

# --- packages -----------------------------------------------------------------

ensure_packages() {
  local missing=() pkg
  for pkg in "${APT_PACKAGES[@]}"; do
    [[ $(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null) == installed ]] || missing+=("$pkg")
  done
  ((${#missing[@]} == 0)) && return 0
  log "installing with apt: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # docker-registry and containerd ship init scripts; a registry started by the
  # package on :5000 would take our port, prometheus its :9090 (promtool is what the metrics tests
  # use). Keep apt from starting services.
  local policy=/usr/sbin/policy-rc.d added_policy=0
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 0755 "$policy" && added_policy=1
  fi
  local rc=0
  quiet apt-get update -qq && quiet apt-get install -y -qq --no-install-recommends "${missing[@]}" || rc=$?
  ((added_policy)) && rm -f "$policy"
  ((rc == 0)) || die "apt-get could not install: ${missing[*]}"
}

require_tools() {
  local tool
  for tool in node containerd ctr runc docker-registry skopeo gcc tar flock ip iptables promtool; do
    command -v "$tool" >/dev/null || die "$tool not found in PATH"
  done
  [[ -x /usr/lib/cni/bridge && -x /usr/lib/cni/host-local && -x /usr/lib/cni/portmap ]] ||
    die "CNI plugins missing in /usr/lib/cni (package containernetworking-plugins)"
  [[ -x /bin/busybox ]] || die "/bin/busybox missing (package busybox-static)"
}

# --- helpers and images -------------------------------------------------------

# Compiles scripts/runtime/<name>.c into $BIN_DIR/<name> unless it is up to date.
compile_helper() {
  local name=$1 mode=$2 src=$RUNTIME_SRC/$1.c out=$BIN_DIR/$1 key
  local flags=(-Os -Wall -Wextra -Wl,--build-id=none)
  [[ $mode == static ]] && flags+=(-static -s)
  [[ -n ${GCC_VERSION:-} ]] || GCC_VERSION=$(gcc --version | head -n 1)
  key=$({ sha256sum <"$src"; echo "$GCC_VERSION ${flags[*]}"; } | sha256sum | cut -c1-64)
  [[ -x $out && $(cat "$out.inputs" 2>/dev/null) == "$key" ]] && return 0
  local extra=()
  [[ $name == bcrypt-hash ]] && extra=(-lcrypt)
  quiet gcc "${flags[@]}" -o "$out.tmp" "$src" "${extra[@]}" || die "could not compile $src"
  mv -f "$out.tmp" "$out"
  echo "$key" >"$out.inputs"
  log "compiled $name"
}

# A JSON string literal for $1 (enough for the plain text written into images).
json_string() {
  local text=${1//\\/\\\\}
  text=${text//\"/\\\"}
  text=${text//$'\n'/\\n}
  text=${text//$'\t'/\\t}
  printf '"%s"' "$text"
}

# The root filesystem shared by the busybox and http-echo images, as spec entries.
busybox_rootfs_entries() {
  local applet available
  available=" $(/bin/busybox --list | tr '\n' ' ') "
  printf '{"type":"dir","path":"bin","mode":"0755"},\n'
  printf '{"type":"file","path":"bin/busybox","source":"/bin/busybox","mode":"0755"},\n'
  for applet in "${BUSYBOX_APPLETS[@]}"; do
    [[ $available == *" $applet "* ]] || die "busybox-static has no '$applet' applet"
    printf '{"type":"symlink","path":"bin/%s","target":"/bin/busybox"},\n' "$applet"
  done
  printf '{"type":"symlink","path":"usr/bin/env","target":"/bin/busybox"},\n'
  printf '{"type":"file","path":"etc/passwd","mode":"0644","content":%s},\n' \
    "$(json_string $'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n')"
  printf '{"type":"file","path":"etc/group","mode":"0644","content":%s},\n' \
    "$(json_string $'root:x:0:\nnogroup:x:65534:\n')"
  printf '{"type":"dir","path":"root","mode":"0700"},\n'
  printf '{"type":"dir","path":"tmp","mode":"1777"},\n'
  printf '{"type":"dir","path":"var","mode":"0755"}'
}

write_spec() {
  local name=$1 ref=$2 config=$3 entries=$4 spec=$IMAGES_DIR/specs/${1//\//_}.json
  mkdir -p "$IMAGES_DIR/specs"
  printf '{"ref":"%s","out":"%s","config":%s,"rootfs":[\n%s\n]}\n' \
    "$ref" "$IMAGES_DIR/$name.tar" "$config" "$entries" >"$spec.tmp"
  mv -f "$spec.tmp" "$spec"
  echo "$spec"
}

build_images() {
  mkdir -p "$BIN_DIR" "$IMAGES_DIR"
  compile_helper pause static
  compile_helper http-echo static
  compile_helper bcrypt-hash dynamic

  local env="\"Env\":[\"PATH=$IMAGE_PATH\"]" busybox http_echo specs=()
  busybox=$(busybox_rootfs_entries)
  http_echo="$busybox,
{\"type\":\"file\",\"path\":\"http-echo\",\"source\":\"$BIN_DIR/http-echo\",\"mode\":\"0755\"}"
  specs+=("$(write_spec pause "$PAUSE_IMAGE" "{$env,\"Entrypoint\":[\"/pause\"]}" \
    "{\"type\":\"file\",\"path\":\"pause\",\"source\":\"$BIN_DIR/pause\",\"mode\":\"0755\"}")")
  specs+=("$(write_spec busybox "$BUSYBOX_IMAGE" "{$env,\"Cmd\":[\"sh\"]}" "$busybox")")
  specs+=("$(write_spec http-echo "$HTTP_IMAGE" "{$env,\"Cmd\":[\"/http-echo\"],\"ExposedPorts\":{\"8080/tcp\":{}}}" "$http_echo")")
  # The registry copies differ from the imported images by a label, so they get
  # their own image IDs: a test that pulls one and then removes it (RemoveImage
  # drops every tag of an image ID) cannot untag the imported images.
  local label="\"Labels\":{\"io.kubelet-ts.test-image.source\":\"registry\"}"
  specs+=("$(write_spec registry/busybox "127.0.0.1:$REGISTRY_PORT/kubelet-ts/busybox:test" \
    "{$env,$label,\"Cmd\":[\"sh\"]}" "$busybox")")
  specs+=("$(write_spec registry/http-echo "127.0.0.1:$REGISTRY_PORT/kubelet-ts/http-echo:test" \
    "{$env,$label,\"Cmd\":[\"/http-echo\"],\"ExposedPorts\":{\"8080/tcp\":{}}}" "$http_echo")")
  label="\"Labels\":{\"io.kubelet-ts.test-image.source\":\"auth-registry\"}"
  specs+=("$(write_spec auth-registry/busybox "127.0.0.1:$AUTH_REGISTRY_PORT/kubelet-ts/busybox:private" \
    "{$env,$label,\"Cmd\":[\"sh\"]}" "$busybox")")

  local output line
  output=$(TMPDIR=$DIR/tmp node "$RUNTIME_SRC/build-image.mjs" "${specs[@]}") || die "could not build the test images"
  while read -r line; do
    [[ $line == *" built" ]] && log "built image ${line% built}"
  done <<<"$output"
  return 0
}

# --- cgroups ------------------------------------------------------------------

# Mount points of the cgroup v1 hierarchies (one per line: <mountpoint> <options>).
cgroup_v1_mounts() { awk '{ for (i = 7; $i != "-"; i++); if ($(i + 1) == "cgroup") print $5, $(i + 3) }' /proc/self/mountinfo; }
cgroup_v2_mounts() { awk '{ for (i = 7; $i != "-"; i++); if ($(i + 1) == "cgroup2") print $5 }' /proc/self/mountinfo; }

create_cgroup_root() {
  local mount options path file
  while read -r mount options; do
    path=$mount$CGROUP_ROOT
    mkdir -p "$path"
    if [[ ,$options, == *,cpuset,* ]]; then
      # New cpuset cgroups start empty and cannot take tasks until these are set.
      for file in cpuset.cpus cpuset.mems; do
        [[ -n $(cat "$path/$file") ]] || cat "$mount/$file" >"$path/$file"
      done
    fi
  done < <(cgroup_v1_mounts)
}

# Kills every process in the test cgroup trees, then removes the cgroups.
remove_cgroup_root() {
  local roots=() mount _ root attempt pid
  while read -r mount _; do [[ -d $mount$CGROUP_ROOT ]] && roots+=("$mount$CGROUP_ROOT"); done < <(cgroup_v1_mounts)
  while read -r mount; do [[ -d $mount$CGROUP_ROOT ]] && roots+=("$mount$CGROUP_ROOT"); done < <(cgroup_v2_mounts)
  ((${#roots[@]} == 0)) && return 0
  for root in "${roots[@]}"; do
    # A frozen task cannot die: thaw first.
    if [[ $root == */freezer/* ]]; then
      find "$root" -name freezer.state -exec sh -c 'echo THAWED > "$1"' _ {} \; 2>/dev/null || true
    fi
  done
  for ((attempt = 0; attempt < 50; attempt++)); do
    local left=0
    for root in "${roots[@]}"; do
      [[ -d $root ]] || continue
      while read -r pid; do
        [[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null && left=1
      done < <(find "$root" -name cgroup.procs -exec cat {} + 2>/dev/null)
      find "$root" -depth -type d -exec rmdir {} + 2>/dev/null || left=1
    done
    ((left == 0)) && return 0
    sleep 0.1
  done
  for root in "${roots[@]}"; do [[ -d $root ]] && log "warning: could not remove cgroup $root"; done
  return 0
}

# --- CNI ------------------------------------------------------------------------

# Writes $2 to $1 through a temporary file and a rename, only when it changed.
write_atomic() {
  local file=$1 content=$2 tmp
  [[ -f $file && $(cat "$file") == "$content" ]] && return 1
  tmp="$(dirname "$file")/.$(basename "$file").tmp"
  printf '%s\n' "$content" >"$tmp"
  mv -f "$tmp" "$file"
}

write_cni_config() {
  local conflict
  # Routes inside the subnet or covering it (other than the default route).
  conflict=$({ ip -4 route show root "$CNI_SUBNET"; ip -4 route show match "$CNI_SUBNET"; } 2>/dev/null |
    grep -v -e '^default ' -e " dev $CNI_BRIDGE " | head -n 1 || true)
  [[ -z $conflict ]] || die "the host already routes part of $CNI_SUBNET ($conflict): set KUBELET_TS_CNI_SUBNET"
  mkdir -p "$CNI_CONF_DIR" "$CNI_IPAM_DIR"
  # containerd loads the first file of the conf dir in lexical order and
  # picks up changes within ~2 s, so an atomic rename is all a change needs.
  write_atomic "$CNI_CONF_DIR/10-kubelet-ts.conflist" "$(
    cat <<EOF
{
  "cniVersion": "1.0.0",
  "name": "$CNI_NETWORK",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$CNI_BRIDGE",
      "isGateway": true,
      "ipMasq": true,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{ "subnet": "$CNI_SUBNET" }]],
        "routes": [{ "dst": "0.0.0.0/0" }],
        "dataDir": "$CNI_IPAM_DIR"
      }
    },
    { "type": "portmap", "capabilities": { "portMappings": true } },
    { "type": "loopback" }
  ]
}
EOF
  )" || true
}

# Deletes the NAT rules and chains the bridge/portmap plugins left for our
# network (normally removed by the CNI DEL of StopPodSandbox).
cleanup_iptables() {
  command -v iptables >/dev/null || return 0
  local line chains=() chain
  while IFS= read -r line; do
    [[ $line == -A* && $line == *"\\\"$CNI_NETWORK\\\""* ]] || continue
    local args
    eval "args=($line)" 2>/dev/null || continue
    args[0]=-D
    iptables -t nat "${args[@]}" 2>/dev/null || true
    local i
    for ((i = 0; i < ${#args[@]} - 1; i++)); do
      if [[ ${args[i]} == -j && ${args[i + 1]} == CNI-* && ${args[i + 1]} != CNI-HOSTPORT-* ]]; then
        chains+=("${args[i + 1]}")
      fi
    done
  done < <(iptables -t nat -S 2>/dev/null)
  for chain in "${chains[@]+"${chains[@]}"}"; do
    iptables -t nat -F "$chain" 2>/dev/null || true
    iptables -t nat -X "$chain" 2>/dev/null || true
  done
}

# --- containerd -------------------------------------------------------------------

write_containerd_config() {
  mkdir -p "$DIR/root" "$DIR/state" "$DIR/certs.d" "$DIR/opt" "$LOG_DIR" "$POD_LOGS_DIR"
  if [[ $CONTAINERD_MAJOR == 2 ]]; then
    write_atomic "$CONTAINERD_CONFIG" "$(containerd2_config)"
    return
  fi
  write_atomic "$CONTAINERD_CONFIG" "$(
    cat <<EOF
# Generated by scripts/test-runtime.sh: a private containerd for kubelet-ts tests.
version = 2
root = "$DIR/root"
state = "$DIR/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs", "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]

[grpc]
  address = "$SOCK"

[metrics]
  address = "$METRICS_ADDRESS"

[plugins."io.containerd.internal.v1.opt"]
  path = "$DIR/opt"

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  # Root lacks CAP_SYS_RESOURCE here: a negative oom_score_adj fails every RunPodSandbox.
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        # runc's state, by default under /run/containerd/runc, stays in our dir.
        Root = "$DIR/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$CNI_CONF_DIR"
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "$DIR/certs.d"
EOF
  )"
}

# The same private containerd in containerd 2's config version 3 (the CRI plugin is split into
# images, runtime and the gRPC server; the shim is the one built with containerd).
containerd2_config() {
  cat <<EOF
# Generated by scripts/test-runtime.sh: a private containerd 2 for kubelet-ts tests.
version = 3
root = "$DIR/root"
state = "$DIR/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.erofs", "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]

[grpc]
  address = "$SOCK"

[metrics]
  address = "$METRICS_ADDRESS"

[plugins.'io.containerd.internal.v1.opt']
  path = "$DIR/opt"

[plugins.'io.containerd.cri.v1.images']
  snapshotter = "overlayfs"
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = "$PAUSE_IMAGE"
  [plugins.'io.containerd.cri.v1.images'.registry]
    config_path = "$DIR/certs.d"

[plugins.'io.containerd.cri.v1.runtime']
  # Root lacks CAP_SYS_RESOURCE here: a negative oom_score_adj fails every RunPodSandbox.
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  [plugins.'io.containerd.cri.v1.runtime'.containerd]
    default_runtime_name = "runc"
    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      runtime_path = "$SHIM_BIN"
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
        SystemdCgroup = false
        # runc's state, by default under /run/containerd/runc, stays in our dir.
        Root = "$DIR/runc"
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = ["/usr/lib/cni"]
    conf_dir = "$CNI_CONF_DIR"

[plugins.'io.containerd.grpc.v1.cri']
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
EOF
}

# containerd's PID from the PID file, if that process is our containerd.
containerd_pid() {
  local pid
  pid=$(read_pid "$CONTAINERD_PID_FILE")
  if [[ -n $pid ]] && pid_matches "$pid" "$CONTAINERD_CONFIG"; then
    echo "$pid"
    return 0
  fi
  # PID file lost (or never written): find it by its config.
  pid=$(find_pids containerd --config "$CONTAINERD_CONFIG" | head -n 1)
  [[ -n $pid ]] && echo "$pid"
  return 0
}

ctr_() { "$CTR_BIN" -a "$SOCK" "$@"; }

# Points CONTAINERD_BIN, CTR_BIN and SHIM_BIN at the selected containerd; with $1 = build, builds
# containerd 2 first when it is missing.
select_containerd() {
  case $CONTAINERD_MAJOR in
    1) ;;
    2)
      [[ ${1:-} == build ]] && { bash "$SCRIPT_DIR/upstream/build.sh" --only containerd || die "could not build containerd 2"; }
      local bin
      bin=$(bash "$SCRIPT_DIR/upstream/build.sh" --bin-dir)
      CONTAINERD_BIN=$bin/containerd CTR_BIN=$bin/ctr SHIM_BIN=$bin/containerd-shim-runc-v2
      if [[ ! -x $CONTAINERD_BIN || ! -x $CTR_BIN || ! -x $SHIM_BIN ]]; then
        [[ ${1:-} == build ]] && die "containerd 2 is not built in $bin: run bash scripts/upstream/build.sh --only containerd"
        # Tearing down or looking: Debian's ctr speaks to containerd 2 as well.
        log "warning: containerd 2 is not built in $bin; using the containerd and ctr on the PATH"
        CONTAINERD_BIN=containerd CTR_BIN=ctr SHIM_BIN=
      fi
      ;;
    *) die "KUBELET_TS_CONTAINERD must be 1 (Debian's containerd 1.6) or 2 (containerd 2), not '$CONTAINERD_MAJOR'" ;;
  esac
}

# `up` refuses to switch containerd under a running environment (their state is not shared).
check_containerd_switch() {
  local recorded
  recorded=$(cat "$CONTAINERD_MAJOR_FILE" 2>/dev/null || true)
  if [[ -n $recorded && $recorded != "$CONTAINERD_MAJOR" && -n $(containerd_pid) ]]; then
    die "containerd $recorded runs here; run 'bash scripts/test-runtime.sh down' before switching to KUBELET_TS_CONTAINERD=$CONTAINERD_MAJOR"
  fi
}

containerd_version() { "$CONTAINERD_BIN" --version 2>/dev/null | awk '{ print $3 }'; }

# Waits for containerd (PID $1) to answer and its CRI to report ready.
wait_containerd() {
  local pid=$1 deadline=$((SECONDS + 60)) cri
  until ctr_ version >/dev/null 2>&1; do
    if [[ ! -d /proc/$pid ]]; then
      pid=$(containerd_pid) # in case setsid forked after all
      if [[ -z $pid ]]; then
        show_log_tail "$LOG_DIR/containerd.log"
        die "containerd exited during startup"
      fi
    fi
    if ((SECONDS > deadline)); then
      show_log_tail "$LOG_DIR/containerd.log"
      die "containerd did not answer on $SOCK within 60 s"
    fi
    sleep 0.1
  done
  cri=$(ctr_ plugins ls 2>/dev/null | awk '$1 == "io.containerd.grpc.v1" && $2 == "cri" { print $NF }')
  if [[ $cri != ok ]]; then
    show_log_tail "$LOG_DIR/containerd.log"
    die "containerd's CRI plugin did not load (status: ${cri:-missing})"
  fi
  if ! quiet node "$RUNTIME_SRC/probe.mjs" cri-ready "$SOCK" 60; then
    show_log_tail "$LOG_DIR/containerd.log"
    die "the CRI did not become ready"
  fi
}

start_containerd() {
  local pid
  pid=$(containerd_pid)
  if [[ -n $pid ]]; then
    wait_containerd "$pid"
    return 0
  fi
  mkdir -p "$LOG_DIR"
  printf '\n==== %s test-runtime.sh: starting containerd ====\n' "$(date -u +%FT%TZ)" >>"$LOG_DIR/containerd.log"
  # setsid: a new session, so a Ctrl-C on `up` does not reach it. In a script
  # (no job control) setsid execs in place, so $! is containerd itself.
  setsid "$CONTAINERD_BIN" --config "$CONTAINERD_CONFIG" >>"$LOG_DIR/containerd.log" 2>&1 </dev/null 9>&- &
  pid=$!
  echo "$pid" >"$CONTAINERD_PID_FILE"
  wait_containerd "$pid"
  # Make sure the PID file holds containerd's own PID.
  pid=$(containerd_pid)
  [[ -n $pid ]] || die "containerd is answering but its process was not found"
  echo "$pid" >"$CONTAINERD_PID_FILE.tmp" && mv -f "$CONTAINERD_PID_FILE.tmp" "$CONTAINERD_PID_FILE"
  log "containerd running (pid $pid, socket $SOCK)"
}

# Stops containerd by PID with signal $1; shims and containers keep running.
stop_containerd() {
  local signal=$1 pid
  pid=$(containerd_pid)
  if [[ -n $pid ]]; then
    if ! stop_pid "$pid" "$signal" 15; then
      log "containerd (pid $pid) ignored SIG$signal for 15 s; sending SIGKILL"
      stop_pid "$pid" KILL 5 || die "could not stop containerd (pid $pid)"
    fi
    log "containerd stopped (pid $pid, SIG$signal)"
  fi
  rm -f "$CONTAINERD_PID_FILE" "$SOCK" "$SOCK.ttrpc"
}

# Imports each image unless containerd already has it with the same digest.
import_images() {
  local name ref digest current listing
  listing=$(ctr_ -n k8s.io images ls 2>/dev/null)
  for name in pause busybox http-echo; do
    case $name in
      pause) ref=$PAUSE_IMAGE ;;
      busybox) ref=$BUSYBOX_IMAGE ;;
      http-echo) ref=$HTTP_IMAGE ;;
    esac
    digest=$(cat "$IMAGES_DIR/$name.tar.digest")
    current=$(awk -v ref="$ref" '$1 == ref { print $3 }' <<<"$listing")
    [[ $current == "$digest" ]] && continue
    quiet ctr_ -n k8s.io images import "$IMAGES_DIR/$name.tar" || die "could not import $IMAGES_DIR/$name.tar"
    log "imported $ref"
  done
}

# --- registries ---------------------------------------------------------------------

registry_pid() {
  local port=$1 pid
  pid=$(read_pid "$REGISTRY_DIR/$port/pid")
  if [[ -n $pid ]] && pid_matches "$pid" "$REGISTRY_DIR/$port/config.yml"; then
    echo "$pid"
  else
    find_pids docker-registry "$REGISTRY_DIR/$port/config.yml" | head -n 1
  fi
}

# Prints the status code of `HEAD <url>` (0 when nothing answers), with basic
# auth when a user is given. Plain bash (/dev/tcp): no curl on a fresh machine.
http_status() {
  local url=$1 user=${2:-} password=${3:-} hostport path fd status auth=''
  hostport=${url#http://}
  path=/${hostport#*/}
  hostport=${hostport%%/*}
  [[ -n $user ]] && auth="Authorization: Basic $(printf '%s:%s' "$user" "$password" | base64 -w0)"$'\r\n'
  if ! { exec {fd}<>"/dev/tcp/${hostport%:*}/${hostport##*:}"; } 2>/dev/null; then
    echo 0
    return 0
  fi
  # Registries answer 404 for an OCI manifest unless the client accepts it.
  printf 'HEAD %s HTTP/1.1\r\nHost: %s\r\nAccept: %s\r\n%sConnection: close\r\n\r\n' "$path" "$hostport" \
    'application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json' \
    "$auth" >&"$fd" 2>/dev/null || true
  IFS=' ' read -r -t 5 _ status _ <&"$fd" || status=0
  exec {fd}>&-
  echo "${status:-0}"
}

registry_password() {
  local file=$REGISTRY_DIR/$AUTH_REGISTRY_PORT/password
  if [[ ! -s $file ]]; then
    mkdir -p "$(dirname "$file")"
    (umask 077 && head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' >"$file")
  fi
  cat "$file"
}

start_registry() {
  local port=$1 auth=$2 dir=$REGISTRY_DIR/$1 pid changed=0 expected=200 auth_block=''
  mkdir -p "$dir/data" "$LOG_DIR"
  if ((auth)); then
    local htpasswd
    htpasswd="$REGISTRY_USER:$(registry_password | "$BIN_DIR/bcrypt-hash")" || die "could not hash the registry password"
    # Keep an existing entry for the same password (bcrypt salts differ per run).
    if [[ ! -s $dir/htpasswd ]]; then
      printf '%s\n' "$htpasswd" >"$dir/htpasswd"
      changed=1
    fi
    auth_block=$(printf 'auth:\n  htpasswd:\n    realm: kubelet-ts-test\n    path: %s\n' "$dir/htpasswd")
    expected=401
  fi
  write_atomic "$dir/config.yml" "$(
    cat <<EOF
# Generated by scripts/test-runtime.sh: loopback registry for kubelet-ts tests.
version: 0.1
log:
  level: warn
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: $dir/data
  delete:
    enabled: true
  maintenance:
    uploadpurging:
      enabled: false
http:
  addr: 127.0.0.1:$port
  secret: kubelet-ts-test-$port
$auth_block
EOF
  )" && changed=1
  pid=$(registry_pid "$port")
  if [[ -n $pid ]] && ((changed)); then
    stop_pid "$pid" TERM 10 || stop_pid "$pid" KILL 5 || true
    pid=
  fi
  if [[ -z $pid ]]; then
    # Another process answering on the port would pass for ours below.
    [[ $(http_status "http://127.0.0.1:$port/v2/") == 0 ]] ||
      die "127.0.0.1:$port is in use by another process (set KUBELET_TS_REGISTRY_PORT / KUBELET_TS_AUTH_REGISTRY_PORT)"
    printf '\n==== %s test-runtime.sh: starting registry ====\n' "$(date -u +%FT%TZ)" >>"$LOG_DIR/registry-$port.log"
    setsid docker-registry serve "$dir/config.yml" >>"$LOG_DIR/registry-$port.log" 2>&1 </dev/null 9>&- &
    pid=$!
    echo "$pid" >"$dir/pid"
  fi
  local deadline=$((SECONDS + 30)) status
  until status=$(http_status "http://127.0.0.1:$port/v2/") && [[ $status == "$expected" ]]; do
    if [[ ! -d /proc/$pid ]]; then
      show_log_tail "$LOG_DIR/registry-$port.log"
      die "registry on 127.0.0.1:$port exited during startup (port already in use?)"
    fi
    if ((SECONDS > deadline)); then
      show_log_tail "$LOG_DIR/registry-$port.log"
      die "registry on 127.0.0.1:$port did not answer within 30 s (last status $status)"
    fi
    sleep 0.1
  done
}

# Pushes an OCI archive unless the registry already has that build of it.
push_image() {
  local archive=$1 dest=$2 user=${3:-} password=${4:-} stamp digest repo tag
  digest=$(cat "$archive.digest")
  stamp=$REGISTRY_DIR/pushed/${dest//[\/:]/_}
  repo=${dest#*/}
  tag=${repo##*:}
  repo=${repo%:*}
  if [[ $(cat "$stamp" 2>/dev/null) == "$digest" &&
    $(http_status "http://${dest%%/*}/v2/$repo/manifests/$tag" "$user" "$password") == 200 ]]; then
    return 0
  fi
  local creds=()
  [[ -n $user ]] && creds=(--dest-creds "$user:$password")
  TMPDIR=$DIR/tmp quiet skopeo --insecure-policy copy --quiet --dest-tls-verify=false "${creds[@]+"${creds[@]}"}" \
    "oci-archive:$archive" "docker://$dest" || die "could not push $archive to $dest"
  mkdir -p "$(dirname "$stamp")"
  echo "$digest" >"$stamp"
  log "pushed $dest"
}

# --- env file -------------------------------------------------------------------------

write_env() {
  local tmp=$DIR/.env.tmp
  {
    echo "# Written by scripts/test-runtime.sh up at $(date -u +%FT%TZ). Load with: source $DIR/env"
    local name value
    while read -r name value; do printf 'export %s=%q\n' "$name" "$value"; done <<EOF
KUBELET_TS_RUNTIME_DIR $DIR
KUBELET_TS_CRI_ENDPOINT unix://$SOCK
KUBELET_TS_CONTAINERD_PID_FILE $CONTAINERD_PID_FILE
KUBELET_TS_CONTAINERD_CONFIG $CONTAINERD_CONFIG
KUBELET_TS_CONTAINERD_METRICS_ADDRESS $METRICS_ADDRESS
KUBELET_TS_CONTAINERD $CONTAINERD_MAJOR
KUBELET_TS_CONTAINERD_VERSION $(containerd_version)
KUBELET_TS_CTR $CTR_BIN
KUBELET_TS_LOG_DIR $LOG_DIR
KUBELET_TS_PAUSE_IMAGE $PAUSE_IMAGE
KUBELET_TS_BUSYBOX_IMAGE $BUSYBOX_IMAGE
KUBELET_TS_HTTP_IMAGE $HTTP_IMAGE
KUBELET_TS_IMAGES_DIR $IMAGES_DIR
KUBELET_TS_REGISTRY 127.0.0.1:$REGISTRY_PORT
KUBELET_TS_AUTH_REGISTRY 127.0.0.1:$AUTH_REGISTRY_PORT
KUBELET_TS_REGISTRY_USER $REGISTRY_USER
KUBELET_TS_REGISTRY_PASSWORD $(registry_password)
KUBELET_TS_CNI_CONF_DIR $CNI_CONF_DIR
KUBELET_TS_CNI_NETWORK $CNI_NETWORK
KUBELET_TS_CNI_BRIDGE $CNI_BRIDGE
KUBELET_TS_CNI_SUBNET $CNI_SUBNET
KUBELET_TS_CGROUP_ROOT $CGROUP_ROOT
KUBELET_TS_POD_LOGS_DIR $POD_LOGS_DIR
EOF
  } >"$tmp"
  mv -f "$tmp" "$DIR/env"
}

# --- subcommands ------------------------------------------------------------------------

cmd_up() {
  require_root
  take_lock
  ensure_packages
  require_tools
  mkdir -p "$DIR" "$DIR/tmp" "$LOG_DIR" "$POD_LOGS_DIR"
  select_containerd build
  check_containerd_switch
  build_images
  log "images ready"
  create_cgroup_root
  write_cni_config
  if write_containerd_config; then
    local pid
    pid=$(containerd_pid)
    # The config changed under a running containerd: restart it to apply.
    [[ -n $pid ]] && log "containerd config changed; restarting containerd" && stop_containerd TERM
  fi
  start_containerd
  echo "$CONTAINERD_MAJOR" >"$CONTAINERD_MAJOR_FILE"
  import_images
  log "containerd $(containerd_version) ready"
  start_registry "$REGISTRY_PORT" 0
  start_registry "$AUTH_REGISTRY_PORT" 1
  local password
  password=$(registry_password)
  push_image "$IMAGES_DIR/registry/busybox.tar" "127.0.0.1:$REGISTRY_PORT/kubelet-ts/busybox:test"
  push_image "$IMAGES_DIR/registry/http-echo.tar" "127.0.0.1:$REGISTRY_PORT/kubelet-ts/http-echo:test"
  push_image "$IMAGES_DIR/auth-registry/busybox.tar" "127.0.0.1:$AUTH_REGISTRY_PORT/kubelet-ts/busybox:private" \
    "$REGISTRY_USER" "$password"
  log "registries ready"
  write_env
  log "up: environment ready; load it with: source $DIR/env"
}

cmd_install() {
  require_root
  take_lock
  ensure_packages
  require_tools
  log "install: every package is installed"
}

cmd_down() {
  require_root
  local purge=0
  [[ ${1:-} == --purge ]] && purge=1
  take_lock
  local pid
  pid=$(containerd_pid)
  if [[ -n $pid ]] && ctr_ version >/dev/null 2>&1; then
    # Through the CRI first: StopPodSandbox runs the CNI DEL (IPs, iptables, veths).
    quiet node "$RUNTIME_SRC/probe.mjs" cri-teardown "$SOCK" || log "warning: some sandboxes could not be removed through the CRI"
    # Anything left (or created with ctr): kill tasks, delete containers, in every namespace.
    local ns id
    for ns in $(ctr_ namespaces ls -q 2>/dev/null); do
      for id in $(ctr_ -n "$ns" tasks ls -q 2>/dev/null); do
        ctr_ -n "$ns" tasks kill -s SIGKILL "$id" >/dev/null 2>&1 || true
      done
      for id in $(ctr_ -n "$ns" tasks ls -q 2>/dev/null); do
        ctr_ -n "$ns" tasks delete -f "$id" >/dev/null 2>&1 || true
      done
      for id in $(ctr_ -n "$ns" containers ls -q 2>/dev/null); do
        ctr_ -n "$ns" containers delete "$id" >/dev/null 2>&1 || true
      done
    done
  fi
  stop_containerd TERM
  # Shims outlive containerd: kill them and whatever they still run.
  local shim child
  for shim in $(find_pids containerd-shim "-address $SOCK"); do
    for child in $(awk -v p="$shim" '$4 == p { print $1 }' /proc/[0-9]*/stat 2>/dev/null); do
      kill -KILL "$child" 2>/dev/null || true
    done
    stop_pid "$shim" KILL 5 || log "warning: shim $shim did not exit"
  done
  remove_cgroup_root
  # Unmount what containerd left mounted under the state dir (rootfs, shm, netns), deepest first.
  local mount
  while read -r mount; do
    umount "$mount" 2>/dev/null || umount -l "$mount" 2>/dev/null || log "warning: could not unmount $mount"
  done < <(awk -v d="$DIR/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo | sort -r)
  cleanup_iptables
  if ip link show "$CNI_BRIDGE" >/dev/null 2>&1; then
    ip link delete "$CNI_BRIDGE" || log "warning: could not delete bridge $CNI_BRIDGE"
  fi
  rm -f /var/lib/cni/results/"$CNI_NETWORK"-* 2>/dev/null || true
  local port
  for port in "$REGISTRY_PORT" "$AUTH_REGISTRY_PORT"; do
    pid=$(registry_pid "$port")
    [[ -n $pid ]] && { stop_pid "$pid" TERM 10 || stop_pid "$pid" KILL 5 || true; }
  done
  if [[ -d $DIR ]]; then
    if ((purge)); then
      rm -rf "$DIR"
    else
      find "$DIR" -mindepth 1 -maxdepth 1 ! -name bin ! -name images -exec rm -rf {} +
    fi
  fi
  log "down: everything stopped and removed$( ((purge)) && echo ', image cache included' || true)"
}

cmd_env() {
  [[ -f $DIR/env ]] || die "no $DIR/env: start the environment with: bash scripts/test-runtime.sh up"
  cat "$DIR/env"
}

cmd_status() {
  local ok=0 pid line port
  pid=$(containerd_pid)
  if [[ -n $pid ]]; then
    echo "containerd: $(containerd_version) running (pid $pid, socket $SOCK)"
    if line=$(node "$RUNTIME_SRC/probe.mjs" cri-status "$SOCK" 2>&1); then
      echo "CRI: $line" | sed '2,$s/^/  /'
    else
      echo "CRI: NOT READY: $line"
      ok=1
    fi
    echo "images (k8s.io):"
    ctr_ -n k8s.io images ls 2>/dev/null | awk 'NR > 1 && $1 !~ /^sha256:/ { print "  " $1 }'
    echo "tasks (k8s.io, sandboxes and containers): $(ctr_ -n k8s.io tasks ls -q 2>/dev/null | wc -l)"
  else
    echo "containerd: NOT RUNNING"
    ok=1
  fi
  local shims
  shims=$(find_pids containerd-shim "-address $SOCK" | wc -l)
  echo "shims: $shims"
  for port in "$REGISTRY_PORT" "$AUTH_REGISTRY_PORT"; do
    pid=$(registry_pid "$port")
    if [[ -n $pid ]]; then
      echo "registry 127.0.0.1:$port: running (pid $pid, /v2/ answers $(http_status "http://127.0.0.1:$port/v2/"))"
    else
      echo "registry 127.0.0.1:$port: NOT RUNNING"
      ok=1
    fi
  done
  if ip link show "$CNI_BRIDGE" >/dev/null 2>&1; then
    echo "bridge $CNI_BRIDGE: $(ip -br addr show "$CNI_BRIDGE" | awk '{ print $2, $3 }')"
  else
    echo "bridge $CNI_BRIDGE: absent (created by the first pod sandbox)"
  fi
  local mount _ roots=()
  while read -r mount _; do [[ -d $mount$CGROUP_ROOT ]] && roots+=("${mount##*/}"); done < <(cgroup_v1_mounts)
  echo "cgroup root $CGROUP_ROOT: ${roots[*]:-absent}"
  [[ -f $DIR/env ]] && echo "env file: $DIR/env" || { echo "env file: absent"; ok=1; }
  return "$ok"
}

cmd_restart_containerd() {
  require_root
  take_lock
  [[ -f $CONTAINERD_CONFIG ]] || die "no $CONTAINERD_CONFIG: run up first"
  stop_containerd KILL
  start_containerd
  log "restart-containerd: done"
}

cmd_stop_containerd() {
  require_root
  take_lock
  stop_containerd TERM
}

cmd_start_containerd() {
  require_root
  take_lock
  [[ -f $CONTAINERD_CONFIG ]] || die "no $CONTAINERD_CONFIG: run up first"
  start_containerd
}

main() {
  check_dir
  check_names
  local command=${1:-}
  shift || true
  case $command in
    up) cmd_up ;;
    install) cmd_install ;;
    down) select_containerd && cmd_down "$@" ;;
    env) cmd_env ;;
    status) select_containerd && cmd_status ;;
    restart-containerd) select_containerd && cmd_restart_containerd ;;
    stop-containerd) select_containerd && cmd_stop_containerd ;;
    start-containerd) select_containerd && cmd_start_containerd ;;
    conformance-images)
      # shellcheck source=runtime/conformance-images.sh
      source "$RUNTIME_SRC/conformance-images.sh"
      cmd_conformance_images
      ;;
    *)
      sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
      exit 2
      ;;
  esac
}

main "$@"
