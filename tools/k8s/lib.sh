# shellcheck shell=bash
# Shared by tools/k8s/up, down and images: a single-node Kubernetes from ../shared/k8s (the binaries of
# /work/shared/k8s/README.md) on this host's containerd, every file under one state folder.
set -euo pipefail

REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
K8S_HOME=${K8S_HOME:-/var/tmp/commerce-k8s}
K8S_BINARIES=${K8S_BINARIES:-$REPO_DIR/../shared/k8s}
[ -d "$K8S_BINARIES" ] || K8S_BINARIES=/work/shared/k8s
K8S_API_PORT=${K8S_API_PORT:-6443}
K8S_ETCD_PORT=${K8S_ETCD_PORT:-8701}
SERVICE_CIDR=10.96.0.0/12
API_SERVICE_IP=10.96.0.1
POD_CIDR=10.244.0.0/24
DNS_IP=10.96.0.10
PAUSE_IMAGE=registry.k8s.io/pause:3.10
COREDNS_IMAGE=localhost/coredns:1.13.1
BIN=$K8S_HOME/bin
PKI=$K8S_HOME/pki
RUN=$K8S_HOME/run
LOGS=$K8S_HOME/log
CTR_SOCK=$K8S_HOME/containerd/containerd.sock
ADMIN_KUBECONFIG=$K8S_HOME/admin.kubeconfig
# The sysctls the kubelet and the CNI bridge change while the cluster runs; `down` writes back what `up` found.
SYSCTLS=(vm.overcommit_memory kernel.panic kernel.panic_on_oops net.ipv4.ip_forward net.bridge.bridge-nf-call-iptables)

log() { echo "k8s: $*" >&2; }
die() {
  echo "k8s: $*" >&2
  exit 1
}
now() { date +%s; }

node_ip() { ip -4 route get 1 | sed -n 's/.* src \([0-9.]*\).*/\1/p' | head -1; }
node_name() { hostname | tr '[:upper:]' '[:lower:]'; }

kctl() { "$BIN/kubectl" --kubeconfig "$ADMIN_KUBECONFIG" "$@"; }
ctr_k8s() { ctr --address "$CTR_SOCK" -n k8s.io "$@"; }

# A process this folder started: alive, and still the binary it was started from (a reused PID is not ours).
pid_of() { # name
  local file=$RUN/$1.pid pid
  [ -f "$file" ] || return 1
  pid=$(cat "$file")
  [ -n "$pid" ] && [ -d "/proc/$pid" ] || return 1
  [[ "$(readlink "/proc/$pid/exe" 2>/dev/null)" == "$2" ]] || return 1
  echo "$pid"
}

running() { pid_of "$1" "$2" > /dev/null; }

start_process() { # name binary args...
  local name=$1 binary=$2
  shift 2
  if running "$name" "$binary"; then
    log "$name already running (pid $(pid_of "$name" "$binary"))"
    return 0
  fi
  mkdir -p "$RUN" "$LOGS"
  # fd 9 is the lock of up/down: a daemon must not keep it.
  setsid "$binary" "$@" >> "$LOGS/$name.log" 2>&1 < /dev/null 9>&- &
  echo $! > "$RUN/$name.pid"
  log "$name started (pid $!, log $LOGS/$name.log)"
}

stop_process() { # name binary [seconds]
  local name=$1 binary=$2 wait=${3:-20} pid i
  if ! pid=$(pid_of "$name" "$binary"); then
    rm -f "$RUN/$name.pid"
    return 0
  fi
  kill -TERM "$pid" 2> /dev/null || true
  for ((i = 0; i < wait * 10; i++)); do
    [ -d "/proc/$pid" ] || break
    sleep 0.1
  done
  if [ -d "/proc/$pid" ]; then
    log "$name (pid $pid) still running after ${wait}s: SIGKILL"
    kill -KILL "$pid" 2> /dev/null || true
    sleep 0.5
  fi
  rm -f "$RUN/$name.pid"
  log "$name stopped (pid $pid)"
}

wait_for() { # description seconds command...
  local what=$1 seconds=$2 deadline
  shift 2
  deadline=$(($(now) + seconds))
  until "$@" > /dev/null 2>&1; do
    if [ "$(now)" -ge "$deadline" ]; then die "$what: not ready after ${seconds}s"; fi
    sleep 0.5
  done
}
