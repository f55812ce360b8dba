#!/usr/bin/env bash
# A real single-node Kubernetes control plane on 127.0.0.1 for kubelet-ts' tests, benchmarks and
# people: etcd, kube-apiserver, kube-controller-manager and kube-scheduler, built from the Go module
# proxy by scripts/upstream/build.sh at the versions of scripts/upstream/versions.env.
#
#   bash scripts/control-plane.sh up          build what is missing, start everything (idempotent)
#   bash scripts/control-plane.sh down        stop every process, remove every file it made
#   bash scripts/control-plane.sh status      print what runs; exit 1 if something is not healthy
#   bash scripts/control-plane.sh env         print the env file
#   bash scripts/control-plane.sh node-kubeconfig NAME FILE
#                                             write a kubeconfig for system:node:NAME (x509, group
#                                             system:nodes) to FILE
#   bash scripts/control-plane.sh stop|start COMPONENT
#                                             stop one component (etcd, kube-apiserver,
#                                             kube-controller-manager, kube-scheduler) and start it
#                                             again with the same state: outage tests
#
# Everything lives in $KUBELET_TS_CONTROL_PLANE_DIR (default /run/kubelet-ts-control-plane), etcd's
# data on tmpfs (/dev/shm). Scripts and tests find the control plane through $DIR/env.
#
# Environment: KUBELET_TS_CONTROL_PLANE_DIR, KUBELET_TS_APISERVER_PORT (6443),
# KUBELET_TS_ETCD_PORT (2379; the peer port is the next one), KUBELET_TS_KCM_PORT (10257),
# KUBELET_TS_SCHEDULER_PORT (10259), KUBELET_TS_SERVICE_CIDR (10.96.0.0/16),
# KUBELET_TS_NODE_NAME (kts-node: the node of the default node kubeconfig), KUBELET_TS_NODE_IP
# (10.79.0.1), KUBELET_TS_UPSTREAM_NODE_NAME (upstream-node), KUBELET_TS_UPSTREAM_NODE_IP (10.79.0.2),
# KUBELET_TS_UPSTREAM_BIN_DIR (binaries built elsewhere; see scripts/upstream/build.sh).
set -euo pipefail
shopt -s inherit_errexit

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=upstream/versions.env
source "$SCRIPT_DIR/upstream/versions.env"

DIR=${KUBELET_TS_CONTROL_PLANE_DIR:-/run/kubelet-ts-control-plane}
DIR=${DIR%/}
ETCD_DATA=/dev/shm/$(basename "$DIR")-etcd
PKI=$DIR/pki
LOG_DIR=$DIR/logs
APISERVER_PORT=${KUBELET_TS_APISERVER_PORT:-6443}
ETCD_PORT=${KUBELET_TS_ETCD_PORT:-2379}
ETCD_PEER_PORT=$((ETCD_PORT + 1))
KCM_PORT=${KUBELET_TS_KCM_PORT:-10257}
SCHEDULER_PORT=${KUBELET_TS_SCHEDULER_PORT:-10259}
SERVICE_CIDR=${KUBELET_TS_SERVICE_CIDR:-10.96.0.0/16}
NODE_NAME=${KUBELET_TS_NODE_NAME:-kts-node}
# Node addresses: the kubelet refuses a loopback node IP, so each node gets a /32 of its own on the
# loopback device (reachable from the host and its pods, from nowhere else): kubelet-ts's node, and
# a second one for the upstream kubelet beside it.
NODE_IP=${KUBELET_TS_NODE_IP:-10.79.0.1}
UPSTREAM_NODE_NAME=${KUBELET_TS_UPSTREAM_NODE_NAME:-upstream-node}
UPSTREAM_NODE_IP=${KUBELET_TS_UPSTREAM_NODE_IP:-10.79.0.2}
APISERVER=https://127.0.0.1:$APISERVER_PORT
COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler)

START=${EPOCHREALTIME/,/.}
elapsed() { awk -v s="$START" -v n="${EPOCHREALTIME/,/.}" 'BEGIN { printf "%6.1fs", n - s }'; }
log() { printf '[control-plane %s] %s\n' "$(elapsed)" "$*" >&2; }
die() {
  printf '[control-plane %s] ERROR: %s\n' "$(elapsed)" "$*" >&2
  exit 1
}

bin_dir() { bash "$SCRIPT_DIR/upstream/build.sh" --bin-dir; }

# --- processes --------------------------------------------------------------

pid_of() { cat "$DIR/$1.pid" 2>/dev/null || true; }
running() {
  local pid
  pid=$(pid_of "$1")
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

port_free() { ! ss -Hltn "sport = :$1" | grep -q .; }
need_port() {
  port_free "$1" || die "port $1 (for $2) is taken: $(ss -Hltnp "sport = :$1" | head -1 | sed 's/  */ /g'); stop that process or set the port variable (see --help)"
}

# Starts a component in its own session, logging to $LOG_DIR/<name>.log; records its PID.
spawn() {
  local name=$1
  shift
  # fd 9 is the lock of up/down: the component must not hold it.
  setsid "$@" >>"$LOG_DIR/$name.log" 2>&1 </dev/null 9>&- &
  echo $! >"$DIR/$name.pid"
}

# Waits until `$@` succeeds, or fails naming the component and its log.
wait_for() {
  local name=$1 timeout=$2 deadline
  shift 2
  deadline=$(($(date +%s) + timeout))
  until "$@" >/dev/null 2>&1; do
    running "$name" || { tail -n 20 "$LOG_DIR/$name.log" >&2; die "$name exited (log: $LOG_DIR/$name.log)"; }
    (($(date +%s) < deadline)) || { tail -n 20 "$LOG_DIR/$name.log" >&2; die "$name not ready after ${timeout}s (log: $LOG_DIR/$name.log)"; }
    sleep 0.2
  done
}

stop_component() {
  local name=$1 pid i
  pid=$(pid_of "$name")
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
    log "stopped $name (pid $pid)"
  fi
  rm -f "$DIR/$name.pid"
}

# --- PKI ----------------------------------------------------------------------

# Signs a certificate with the cluster CA: sign NAME SUBJECT EXTENSIONS.
sign() {
  local name=$1 subject=$2 ext=$3
  [ -f "$PKI/$name.crt" ] && return
  openssl genrsa -out "$PKI/$name.key" 2048 2>/dev/null
  openssl req -new -key "$PKI/$name.key" -subj "$subject" -out "$PKI/$name.csr" 2>/dev/null
  printf '%s\n' "$ext" >"$PKI/$name.ext"
  openssl x509 -req -in "$PKI/$name.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial \
    -days 365 -sha256 -extfile "$PKI/$name.ext" -out "$PKI/$name.crt" 2>/dev/null
  rm -f "$PKI/$name.csr" "$PKI/$name.ext"
}

client_ext='basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth'

make_pki() {
  mkdir -p "$PKI"
  chmod 700 "$PKI"
  if [ ! -f "$PKI/ca.crt" ]; then
    openssl genrsa -out "$PKI/ca.key" 2048 2>/dev/null
    openssl req -x509 -new -key "$PKI/ca.key" -subj "/CN=kubelet-ts-test-ca" -days 3650 -sha256 \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" \
      -out "$PKI/ca.crt" 2>/dev/null
  fi
  local service_ip
  service_ip=$(first_service_ip)
  sign apiserver "/CN=kube-apiserver" "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,IP:$service_ip,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  # The API server's identity towards kubelets (logs, exec, metrics through the node proxy).
  sign apiserver-kubelet-client "/CN=kube-apiserver-kubelet-client" "$client_ext"
  sign admin "/O=system:masters/CN=kubernetes-admin" "$client_ext"
  sign controller-manager "/CN=system:kube-controller-manager" "$client_ext"
  sign scheduler "/CN=system:kube-scheduler" "$client_ext"
  [ -f "$PKI/sa.key" ] || {
    openssl genrsa -out "$PKI/sa.key" 2048 2>/dev/null
    openssl rsa -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
  }
  # A bootstrap token (id.secret, [a-z0-9]{6}.[a-z0-9]{16}) for TLS bootstrap.
  [ -f "$PKI/bootstrap-token" ] || printf '%s.%s\n' "$(rand 6)" "$(rand 16)" >"$PKI/bootstrap-token"
}

rand() { tr -dc 'a-z0-9' </dev/urandom | head -c "$1"; }

# The first address of the service range: the `kubernetes` Service's ClusterIP.
first_service_ip() {
  local net=${SERVICE_CIDR%/*} a b c d
  IFS=. read -r a b c d <<<"$net"
  echo "$a.$b.$c.$((d + 1))"
}

# kubeconfig FILE USER then either `cert NAME` or `token TOKEN`.
kubeconfig() {
  local file=$1 user=$2 kind=$3 value=$4
  {
    echo "apiVersion: v1"
    echo "kind: Config"
    echo "clusters:"
    echo "- name: kubelet-ts-test"
    echo "  cluster:"
    echo "    server: $APISERVER"
    echo "    certificate-authority: $PKI/ca.crt"
    echo "users:"
    echo "- name: $user"
    echo "  user:"
    if [ "$kind" = cert ]; then
      echo "    client-certificate: $PKI/$value.crt"
      echo "    client-key: $PKI/$value.key"
    else
      echo "    token: $value"
    fi
    echo "contexts:"
    echo "- name: $user@kubelet-ts-test"
    echo "  context: {cluster: kubelet-ts-test, user: $user}"
    echo "current-context: $user@kubelet-ts-test"
  } >"$file.tmp"
  chmod 600 "$file.tmp"
  mv "$file.tmp" "$file"
}

node_kubeconfig() {
  local name=$1 file=$2 cert=node-$1
  [[ $name =~ ^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$ ]] || die "invalid node name '$name'"
  [ -f "$PKI/ca.key" ] || die "the control plane is not set up: run 'bash scripts/control-plane.sh up'"
  sign "$cert" "/O=system:nodes/CN=system:node:$name" "$client_ext"
  kubeconfig "$file" "system:node:$name" cert "$cert"
}

# --- node addresses on the loopback device -------------------------------------

add_node_ips() {
  local ip
  for ip in "$NODE_IP" "$UPSTREAM_NODE_IP"; do
    ip -4 addr show dev lo | grep -q " $ip/32 " || ip addr add "$ip/32" dev lo ||
      die "could not add $ip/32 to the loopback device"
  done
}

remove_node_ips() {
  local ip
  for ip in "$NODE_IP" "$UPSTREAM_NODE_IP"; do
    ip -4 addr show dev lo | grep -q " $ip/32 " && ip addr del "$ip/32" dev lo || true
  done
}

# --- components ---------------------------------------------------------------

start_etcd() {
  local bin=$1
  running etcd && return
  need_port "$ETCD_PORT" etcd
  need_port "$ETCD_PEER_PORT" "etcd peer"
  mkdir -p "$ETCD_DATA"
  spawn etcd "$bin/etcd" --name kubelet-ts --data-dir "$ETCD_DATA" --unsafe-no-fsync \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "kubelet-ts=http://127.0.0.1:$ETCD_PEER_PORT" --listen-metrics-urls "" --log-level warn
  wait_for etcd 60 curl -fsS "http://127.0.0.1:$ETCD_PORT/health"
  log "etcd ready on 127.0.0.1:$ETCD_PORT (data on tmpfs: $ETCD_DATA)"
}

start_apiserver() {
  local bin=$1
  running kube-apiserver && return
  need_port "$APISERVER_PORT" kube-apiserver
  cat >"$DIR/audit-policy.yaml" <<'EOF'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
EOF
  spawn kube-apiserver "$bin/kube-apiserver" \
    --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$APISERVER_PORT" \
    --tls-cert-file="$PKI/apiserver.crt" --tls-private-key-file="$PKI/apiserver.key" \
    --client-ca-file="$PKI/ca.crt" \
    --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
    --enable-bootstrap-token-auth=true \
    --service-cluster-ip-range="$SERVICE_CIDR" \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-account-key-file="$PKI/sa.pub" --service-account-signing-key-file="$PKI/sa.key" \
    --kubelet-client-certificate="$PKI/apiserver-kubelet-client.crt" \
    --kubelet-client-key="$PKI/apiserver-kubelet-client.key" \
    --kubelet-preferred-address-types=InternalIP,Hostname \
    --allow-privileged=true \
    --audit-policy-file="$DIR/audit-policy.yaml" --audit-log-path="$LOG_DIR/audit.log" \
    --audit-log-maxsize=100 --audit-log-maxbackup=1 \
    --profiling=false
  wait_for kube-apiserver 120 kubectl_admin get --raw /readyz
  log "kube-apiserver ready on $APISERVER"
}

start_controller_manager() {
  local bin=$1
  running kube-controller-manager && return
  need_port "$KCM_PORT" kube-controller-manager
  spawn kube-controller-manager "$bin/kube-controller-manager" \
    --kubeconfig="$DIR/controller-manager.kubeconfig" \
    --authentication-kubeconfig="$DIR/controller-manager.kubeconfig" \
    --authorization-kubeconfig="$DIR/controller-manager.kubeconfig" \
    --bind-address=127.0.0.1 --secure-port="$KCM_PORT" --leader-elect=false \
    --controllers='*,bootstrapsigner,tokencleaner' \
    --use-service-account-credentials=true \
    --service-account-private-key-file="$PKI/sa.key" --root-ca-file="$PKI/ca.crt" \
    --cluster-signing-cert-file="$PKI/ca.crt" --cluster-signing-key-file="$PKI/ca.key" \
    --service-cluster-ip-range="$SERVICE_CIDR" --profiling=false
  wait_for kube-controller-manager 60 curl -fsSk "https://127.0.0.1:$KCM_PORT/healthz"
  log "kube-controller-manager ready (127.0.0.1:$KCM_PORT)"
}

start_scheduler() {
  local bin=$1
  running kube-scheduler && return
  need_port "$SCHEDULER_PORT" kube-scheduler
  spawn kube-scheduler "$bin/kube-scheduler" \
    --kubeconfig="$DIR/scheduler.kubeconfig" \
    --authentication-kubeconfig="$DIR/scheduler.kubeconfig" \
    --authorization-kubeconfig="$DIR/scheduler.kubeconfig" \
    --bind-address=127.0.0.1 --secure-port="$SCHEDULER_PORT" --leader-elect=false --profiling=false
  wait_for kube-scheduler 60 curl -fsSk "https://127.0.0.1:$SCHEDULER_PORT/healthz"
  log "kube-scheduler ready (127.0.0.1:$SCHEDULER_PORT)"
}

kubectl_admin() { kubectl --kubeconfig "$DIR/admin.kubeconfig" "$@"; }

# What a cluster made by kubeadm has for kubelets: the bootstrap token, the RBAC that lets
# bootstrapping nodes ask for client certificates and gets them approved, and the API server's
# access to the kubelet API.
apply_cluster_objects() {
  local token id secret
  token=$(cat "$PKI/bootstrap-token")
  id=${token%.*}
  secret=${token#*.}
  kubectl_admin apply -f - >"$LOG_DIR/cluster-objects.log" 2>&1 <<EOF || { cat "$LOG_DIR/cluster-objects.log" >&2; die "could not create the cluster objects"; }
apiVersion: v1
kind: Secret
metadata: {name: bootstrap-token-$id, namespace: kube-system}
type: bootstrap.kubernetes.io/token
stringData:
  token-id: "$id"
  token-secret: "$secret"
  usage-bootstrap-authentication: "true"
  usage-bootstrap-signing: "true"
  auth-extra-groups: system:bootstrappers:kubelet-ts
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: kubelet-ts:kubelet-bootstrap}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: system:node-bootstrapper}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: Group, name: system:bootstrappers}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: kubelet-ts:node-autoapprove-bootstrap}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: system:certificates.k8s.io:certificatesigningrequests:nodeclient}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: Group, name: system:bootstrappers}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: kubelet-ts:node-autoapprove-certificate-rotation}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: system:certificates.k8s.io:certificatesigningrequests:selfnodeclient}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: Group, name: system:nodes}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: kubelet-ts:apiserver-kubelet-admin}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: system:kubelet-api-admin}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: kube-apiserver-kubelet-client}]
EOF
}

write_env() {
  cat >"$DIR/env.tmp" <<EOF
# The kubelet-ts control plane (scripts/control-plane.sh); source this file.
export KUBELET_TS_CONTROL_PLANE_DIR=$DIR
export KUBELET_TS_K8S_VERSION=$KUBERNETES_VERSION
export KUBELET_TS_APISERVER=$APISERVER
export KUBELET_TS_KUBECONFIG=$DIR/admin.kubeconfig
export KUBELET_TS_BOOTSTRAP_KUBECONFIG=$DIR/bootstrap.kubeconfig
export KUBELET_TS_BOOTSTRAP_TOKEN=$(cat "$PKI/bootstrap-token")
export KUBELET_TS_NODE_NAME=$NODE_NAME
export KUBELET_TS_NODE_KUBECONFIG=$DIR/node.kubeconfig
export KUBELET_TS_NODE_IP=$NODE_IP
export KUBELET_TS_UPSTREAM_NODE_NAME=$UPSTREAM_NODE_NAME
export KUBELET_TS_UPSTREAM_NODE_IP=$UPSTREAM_NODE_IP
export KUBELET_TS_CA_FILE=$PKI/ca.crt
export KUBELET_TS_CA_KEY_FILE=$PKI/ca.key
export KUBELET_TS_APISERVER_KUBELET_CLIENT_CERT=$PKI/apiserver-kubelet-client.crt
export KUBELET_TS_APISERVER_KUBELET_CLIENT_KEY=$PKI/apiserver-kubelet-client.key
export KUBELET_TS_SERVICE_CIDR=$SERVICE_CIDR
export KUBELET_TS_UPSTREAM_BIN_DIR=$(bin_dir)
export KUBELET_TS_CONTROL_PLANE_LOG_DIR=$LOG_DIR
EOF
  mv "$DIR/env.tmp" "$DIR/env"
}

cmd_up() {
  local bin
  command -v openssl >/dev/null || die "openssl is not installed"
  command -v kubectl >/dev/null || die "kubectl is not on the PATH"
  mkdir -p "$DIR" "$LOG_DIR"
  bash "$SCRIPT_DIR/upstream/build.sh" --only control-plane
  bin=$(bin_dir)
  make_pki
  kubeconfig "$DIR/admin.kubeconfig" kubernetes-admin cert admin
  kubeconfig "$DIR/controller-manager.kubeconfig" system:kube-controller-manager cert controller-manager
  kubeconfig "$DIR/scheduler.kubeconfig" system:kube-scheduler cert scheduler
  kubeconfig "$DIR/bootstrap.kubeconfig" kubelet-bootstrap token "$(cat "$PKI/bootstrap-token")"
  node_kubeconfig "$NODE_NAME" "$DIR/node.kubeconfig"
  add_node_ips
  start_etcd "$bin"
  start_apiserver "$bin"
  apply_cluster_objects
  start_controller_manager "$bin"
  start_scheduler "$bin"
  write_env
  log "up: $KUBERNETES_VERSION at $APISERVER; source $DIR/env"
}

cmd_down() {
  local c
  for c in kube-scheduler kube-controller-manager kube-apiserver etcd; do stop_component "$c"; done
  # Nothing else of ours may outlive down: processes started with our configuration.
  pkill -f -- "--data-dir $ETCD_DATA" 2>/dev/null || true
  pkill -f -- "--kubeconfig=$DIR/" 2>/dev/null || true
  pkill -f -- "--audit-policy-file=$DIR/" 2>/dev/null || true
  remove_node_ips
  rm -rf "$ETCD_DATA" "$DIR" "$DIR.lock"
  log "down: removed $DIR and $ETCD_DATA"
}

cmd_status() {
  local c ok=0 pid
  for c in "${COMPONENTS[@]}"; do
    pid=$(pid_of "$c")
    if running "$c"; then
      printf '%-24s running (pid %s)\n' "$c" "$pid"
    else
      printf '%-24s not running\n' "$c"
      ok=1
    fi
  done
  if [ -f "$DIR/admin.kubeconfig" ] && kubectl_admin get --raw /readyz >/dev/null 2>&1; then
    printf '%-24s %s ready at %s\n' "api" "$KUBERNETES_VERSION" "$APISERVER"
    kubectl_admin get nodes -o wide 2>/dev/null || true
  else
    printf '%-24s not ready\n' "api"
    ok=1
  fi
  return "$ok"
}

# up and down change state: one at a time (a second waits).
lock() {
  mkdir -p "$(dirname "$DIR")"
  exec 9>"$DIR.lock"
  flock -w 600 9 || die "another control-plane.sh holds $DIR.lock"
}

case ${1:-} in
  up) lock && cmd_up ;;
  down) lock && cmd_down ;;
  status) cmd_status ;;
  env) cat "$DIR/env" 2>/dev/null || die "no control plane at $DIR: start it with: bash scripts/control-plane.sh up" ;;
  node-kubeconfig)
    [ $# -eq 3 ] || die "usage: control-plane.sh node-kubeconfig NAME FILE"
    node_kubeconfig "$2" "$3"
    ;;
  # Outage tests: one component stopped and started again with the same state (etcd keeps its data).
  stop)
    [ $# -eq 2 ] || die "usage: control-plane.sh stop etcd|kube-apiserver|kube-controller-manager|kube-scheduler"
    lock && stop_component "$2"
    ;;
  start)
    [ $# -eq 2 ] || die "usage: control-plane.sh start etcd|kube-apiserver|kube-controller-manager|kube-scheduler"
    lock
    case $2 in
      etcd) start_etcd "$(bin_dir)" ;;
      kube-apiserver) start_apiserver "$(bin_dir)" ;;
      kube-controller-manager) start_controller_manager "$(bin_dir)" ;;
      kube-scheduler) start_scheduler "$(bin_dir)" ;;
      *) die "unknown component $2" ;;
    esac
    ;;
  -h | --help | help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' ;;
  *) die "usage: control-plane.sh up|down|status|env|node-kubeconfig NAME FILE|stop COMPONENT|start COMPONENT (see --help)" ;;
esac
