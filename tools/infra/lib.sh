# shellcheck shell=bash
# Shared helpers for tools/infra/{up,down,env}. Sourced, never executed.
#
# Local test infrastructure without Docker: a private PostgreSQL cluster,
# a Redis daemon, a single-node Kafka (KRaft) broker and, when a binary is
# found, Meilisearch; all bound to 127.0.0.1 on non-standard ports, all state
# under $INFRA_HOME.
#
# Progress goes to stderr; only the env exports go to stdout.

set -euo pipefail

INFRA_LIB_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$INFRA_LIB_DIR/../.." && pwd)"

INFRA_HOME="${INFRA_HOME:-/var/tmp/commerce-infra}"
PG_PORT="${INFRA_PG_PORT:-55432}"
REDIS_PORT="${INFRA_REDIS_PORT:-56379}"
KAFKA_PORT="${INFRA_KAFKA_PORT:-59092}"
KAFKA_CONTROLLER_PORT="${INFRA_KAFKA_CONTROLLER_PORT:-$((KAFKA_PORT + 1))}"
HOST=127.0.0.1

PG_DIR="$INFRA_HOME/pg"
PG_DATA="$PG_DIR/data"
PG_SOCKET_DIR="$PG_DIR/run"
PG_LOG="$PG_DIR/postgres.log"
PG_USER=commerce
PG_PASSWORD=commerce
PG_DB=commerce

REDIS_DIR="$INFRA_HOME/redis"
REDIS_CONF="$REDIS_DIR/redis.conf"
REDIS_PID="$REDIS_DIR/redis.pid"
REDIS_LOG="$REDIS_DIR/redis.log"

KAFKA_DIR="$INFRA_HOME/kafka"
KAFKA_LIBS="$KAFKA_DIR/libs"
KAFKA_DATA="$KAFKA_DIR/data"
KAFKA_PROPS="$KAFKA_DIR/server.properties"
KAFKA_LOG4J="$KAFKA_DIR/log4j.properties"
KAFKA_TOOLS_LOG4J="$KAFKA_DIR/tools-log4j.properties"
KAFKA_LOG="$KAFKA_DIR/kafka.log"
KAFKA_PID="$KAFKA_DIR/kafka.pid"
KAFKA_CLUSTER_ID_FILE="$KAFKA_DIR/cluster.id"
KAFKA_POM="$REPO_ROOT/infra/kafka/pom.xml"
KAFKA_HEAP_OPTS="${INFRA_KAFKA_HEAP_OPTS:--Xms256m -Xmx768m}"

MEILI_PORT="${INFRA_MEILI_PORT:-57700}"
MEILI_DIR="$INFRA_HOME/meili"
MEILI_DATA="$MEILI_DIR/data.ms"
MEILI_PID="$MEILI_DIR/meilisearch.pid"
MEILI_LOG="$MEILI_DIR/meilisearch.log"
MEILI_KEY_FILE="$MEILI_DIR/master.key"
# Meilisearch's default (2/3 of the RAM) makes every indexing task, even of one document,
# take 1-2 s here; a bounded budget brings that to ~0.15 s.
MEILI_MAX_INDEXING_MEMORY="${INFRA_MEILI_MAX_INDEXING_MEMORY:-512MiB}"
# Meilisearch's own log level (--log-level: OFF, ERROR, WARN, INFO, DEBUG, TRACE). At its default, INFO, it
# logs every HTTP request (the tasks polls of every suite and bench: megabytes an hour); WARN keeps what
# goes wrong. INFRA_MEILI_LOG_LEVEL=INFO to see the requests.
MEILI_LOG_LEVEL="${INFRA_MEILI_LOG_LEVEL:-WARN}"
# The binary built for this machine kind, beside the repo (never copied into it).
MEILI_SHARED_BINARY="$(cd "$REPO_ROOT/.." && pwd)/shared/meilisearch/meilisearch"

# Readiness time-outs in seconds.
PG_TIMEOUT="${INFRA_PG_TIMEOUT:-60}"
REDIS_TIMEOUT="${INFRA_REDIS_TIMEOUT:-20}"
# Kafka: the time-out counts from the broker's last sign of progress (a line in kafka.log: loading the logs
# of thousands of partitions takes minutes and writes a line for each), within an overall cap.
KAFKA_TIMEOUT="${INFRA_KAFKA_TIMEOUT:-90}"
KAFKA_MAX_WAIT="${INFRA_KAFKA_MAX_WAIT:-900}"
# When up starts the broker, no run can be using it: topics named by tests, e2e runs and benches (a base-36
# Date.now() in the name) made before that start are left-overs, and are deleted. INFRA_KAFKA_PRUNE=0 keeps them.
KAFKA_PRUNE="${INFRA_KAFKA_PRUNE:-1}"
MEILI_TIMEOUT="${INFRA_MEILI_TIMEOUT:-30}"
# Postgres schemas and Meilisearch indexes named by tests, e2e runs and benches (a base-36 Date.now() in the
# name, in the shape uniqueName or the benches give it) older than INFRA_PRUNE_MIN_AGE_HOURS are left-overs of
# runs that were killed (or ran before decision 81), and every up deletes them: those engines keep running
# across runs, so unlike the broker's there is no start to date them by. 12 hours: the longest run we know
# (the whole int suite on a loaded 2-core box, under an hour; a bench's set-up lives minutes) is far shorter,
# so no running suite's names are touched. INFRA_PG_PRUNE=0 / INFRA_MEILI_PRUNE=0 keep them.
PG_PRUNE="${INFRA_PG_PRUNE:-1}"
MEILI_PRUNE="${INFRA_MEILI_PRUNE:-1}"
PRUNE_MIN_AGE_HOURS="${INFRA_PRUNE_MIN_AGE_HOURS:-12}"

# INFRA_PG_DURABLE=1: Postgres with its production defaults for durability (fsync, synchronous_commit and
# full_page_writes on), for benchmarks whose answer waits on a commit; otherwise the test-only settings.
PG_DURABLE="${INFRA_PG_DURABLE:-0}"

MARKER_FILE=".commerce-infra"

# ---------------------------------------------------------------- output

log() { printf '[infra] %s\n' "$*" >&2; }

# die MESSAGE [LOGFILE]: print the tail of LOGFILE (if any), then one clear
# error line naming the log to look at, and exit 1.
die() {
  local msg="$1" logfile="${2:-}"
  if [[ -n "$logfile" && -s "$logfile" ]]; then
    printf '[infra] ---- last lines of %s ----\n' "$logfile" >&2
    tail -n 15 "$logfile" | sed 's/^/[infra] | /' >&2 || true
    printf '[infra] ERROR: %s (see %s)\n' "$msg" "$logfile" >&2
  else
    printf '[infra] ERROR: %s\n' "$msg" >&2
  fi
  exit 1
}

print_env() {
  printf 'export DATABASE_URL=postgres://%s:%s@%s:%s/%s\n' "$PG_USER" "$PG_PASSWORD" "$HOST" "$PG_PORT" "$PG_DB"
  printf 'export REDIS_URL=redis://%s:%s\n' "$HOST" "$REDIS_PORT"
  printf 'export KAFKA_BROKERS=%s:%s\n' "$HOST" "$KAFKA_PORT"
  # Only for a Meilisearch that runs (from this INFRA_HOME) and whose key is known.
  if meili_running && meili_healthy && [[ -s "$MEILI_KEY_FILE" ]]; then
    printf 'export MEILI_URL=http://%s:%s\n' "$HOST" "$MEILI_PORT"
    printf 'export MEILI_MASTER_KEY=%s\n' "$(cat "$MEILI_KEY_FILE")"
    # The services read MEILI_API_KEY; on a developer's machine the master key serves as that key.
    printf 'export MEILI_API_KEY=%s\n' "$(cat "$MEILI_KEY_FILE")"
  fi
}

now() { date +%s; }

# ---------------------------------------------------------------- helpers

is_root() { [[ "$(id -u)" -eq 0 ]]; }

# port_open PORT: true when something accepts TCP connections on 127.0.0.1:PORT.
port_open() {
  timeout 2 bash -c "exec 3<>/dev/tcp/$HOST/$1" 2>/dev/null
}

# pid_alive PIDFILE [CMDLINE_SUBSTRING]: the pid in PIDFILE is a live process
# (and, if given, its command line contains the substring).
pid_alive() {
  local pidfile="$1" want="${2:-}" pid
  [[ -s "$pidfile" ]] || return 1
  pid="$(tr -dc '0-9' <"$pidfile")"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 1
  if [[ -n "$want" ]]; then
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$want" || return 1
  fi
}

read_pid() { tr -dc '0-9' <"$1" 2>/dev/null || true; }

# wait_pid_gone PID SECONDS: true if the process exits within SECONDS.
wait_pid_gone() {
  local pid="$1" deadline=$(($(now) + $2))
  while kill -0 "$pid" 2>/dev/null; do
    (($(now) < deadline)) || return 1
    sleep 0.2
  done
}

ensure_home() {
  mkdir -p "$INFRA_HOME"
  chmod 755 "$INFRA_HOME" 2>/dev/null || true
  touch "$INFRA_HOME/$MARKER_FILE"
}

# Serialise concurrent up/down runs. Daemons are started with 9>&- so that
# they do not inherit (and keep holding) the lock.
take_lock() {
  ensure_home
  exec 9>"$INFRA_HOME/.lock"
  if ! flock -w 600 9; then
    die "another tools/infra command holds $INFRA_HOME/.lock for more than 600s"
  fi
}

# ---------------------------------------------------------------- installs

# Newest /usr/lib/postgresql/<version>/bin that has the server tools.
pg_bin_dir() {
  local d best=""
  while IFS= read -r d; do
    if [[ -x "$d/initdb" && -x "$d/pg_ctl" && -x "$d/postgres" ]]; then best="$d"; fi
  done < <(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V)
  [[ -z "$best" ]] || printf '%s\n' "$best"
}

APT_UPDATED=0
apt_install() {
  local sudo=()
  if ! is_root; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
      sudo=(sudo -n)
    else
      die "missing packages ($*) and not root: run 'apt-get install -y $*' as root"
    fi
  fi
  command -v apt-get >/dev/null || die "missing packages ($*) and no apt-get on this machine"
  local apt_log="$INFRA_HOME/apt.log"
  if [[ "$APT_UPDATED" -eq 0 ]]; then
    log "apt-get update (output in $apt_log)"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update >"$apt_log" 2>&1 ||
      die "apt-get update failed" "$apt_log"
    APT_UPDATED=1
  fi
  log "apt-get install -y $*"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "$@" >>"$apt_log" 2>&1 ||
    die "apt-get install $* failed" "$apt_log"
}

# Install whatever of postgres / redis / java / maven is missing, in one apt run.
ensure_packages() {
  local want=()
  [[ -n "$(pg_bin_dir)" ]] || want+=(postgresql)
  command -v redis-server >/dev/null || want+=(redis-server)
  command -v redis-cli >/dev/null || want+=(redis-tools)
  command -v java >/dev/null || want+=(default-jre-headless)
  command -v mvn >/dev/null || want+=(maven)
  command -v curl >/dev/null || want+=(curl)
  if ((${#want[@]})); then
    apt_install "${want[@]}"
  fi
  PG_BIN="$(pg_bin_dir)"
  [[ -n "$PG_BIN" ]] || die "PostgreSQL binaries not found under /usr/lib/postgresql/*/bin after install"
  command -v redis-server >/dev/null || die "redis-server not found after install"
  command -v java >/dev/null || die "java not found after install"
}

# ---------------------------------------------------------------- postgres

# Run a command as the postgres OS user (postgres refuses to run as root).
as_pg() {
  if is_root; then
    if command -v runuser >/dev/null; then
      runuser -u postgres -- "$@"
    else
      su postgres -s /bin/bash -c "$(printf '%q ' "$@")"
    fi
  else
    "$@"
  fi
}

pg_running() {
  [[ -f "$PG_DATA/PG_VERSION" ]] || return 1
  as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" status >/dev/null 2>&1
}

pg_ready() {
  PGPASSWORD="$PG_PASSWORD" PGCONNECT_TIMEOUT=3 "$PG_BIN/psql" -X -q -w \
    -h "$HOST" -p "$PG_PORT" -U "$PG_USER" -d "$PG_DB" -tAc 'select 1' 2>/dev/null | grep -qx 1
}

pg_durability_conf() {
  if [[ "$PG_DURABLE" == 1 ]]; then
    printf '%s\n' '# INFRA_PG_DURABLE=1: crash safe, as production runs it.' \
      'fsync = on' 'synchronous_commit = on' 'full_page_writes = on'
  else
    printf '%s\n' '# Tuned for throw-away test data: fast, NOT crash safe (INFRA_PG_DURABLE=1 for production settings).' \
      'fsync = off' 'synchronous_commit = off' 'full_page_writes = off'
  fi
}

pg_write_conf() {
  as_pg tee "$PG_DATA/commerce-infra.conf" >/dev/null <<EOF
# Written by tools/infra/up on every start; edits are overwritten.
listen_addresses = '$HOST'
port = $PG_PORT
unix_socket_directories = '$PG_SOCKET_DIR'
max_connections = 200
$(pg_durability_conf)
log_min_messages = warning
log_line_prefix = '%m [%p] %q%u@%d '
EOF
}

pg_init() {
  if is_root; then
    id postgres >/dev/null 2>&1 || die "OS user 'postgres' is missing (it comes with Debian's postgresql package)"
  fi
  mkdir -p "$PG_DIR"
  if is_root; then chown postgres:postgres "$PG_DIR"; fi
  chmod 700 "$PG_DIR"
  as_pg mkdir -p "$PG_SOCKET_DIR"
  as_pg test -w "$PG_DIR" ||
    die "postgres: $PG_DIR is not writable by the postgres user (put INFRA_HOME somewhere like /var/tmp)"
  if [[ ! -f "$PG_DATA/PG_VERSION" ]]; then
    log "postgres: initdb $PG_DATA"
    as_pg rm -rf "$PG_DATA"
    as_pg "$PG_BIN/initdb" -D "$PG_DATA" -U postgres -E UTF8 --locale=C.UTF-8 \
      --auth-local=trust --auth-host=scram-sha-256 >"$PG_DIR/initdb.log" 2>&1 ||
      die "postgres: initdb failed" "$PG_DIR/initdb.log"
    echo "include_if_exists = 'commerce-infra.conf'" | as_pg tee -a "$PG_DATA/postgresql.conf" >/dev/null
  fi
  pg_write_conf
}

pg_bootstrap_sql() {
  as_pg "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PG_SOCKET_DIR" -p "$PG_PORT" -U postgres -d postgres <<EOF
DO \$\$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$PG_USER') THEN
    CREATE ROLE $PG_USER LOGIN SUPERUSER CREATEDB CREATEROLE PASSWORD '$PG_PASSWORD';
  END IF;
END
\$\$;
SELECT 'CREATE DATABASE $PG_DB OWNER $PG_USER'
WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '$PG_DB') \gexec
EOF
}

pg_up() {
  if pg_running && pg_ready; then
    # The durability settings follow INFRA_PG_DURABLE on every up: all three take a reload, not a restart.
    pg_write_conf
    as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" reload >/dev/null 2>&1 || die "postgres: pg_ctl reload failed" "$PG_LOG"
    log "postgres: already running on $HOST:$PG_PORT (durable settings: $([[ "$PG_DURABLE" == 1 ]] && echo on || echo off))"
    return 0
  fi
  if pg_running; then
    local running_port
    running_port="$(as_pg sed -n 4p "$PG_DATA/postmaster.pid" 2>/dev/null || true)"
    if [[ -n "$running_port" && "$running_port" != "$PG_PORT" ]]; then
      die "postgres: already running on port $running_port, not $PG_PORT: run tools/infra/down first"
    fi
  else
    if port_open "$PG_PORT"; then
      die "postgres: port $PG_PORT is already used by another process (set INFRA_PG_PORT)"
    fi
    pg_init
    log "postgres: starting on $HOST:$PG_PORT"
    # setsid: keep the postmaster out of the caller's process group / terminal.
    as_pg setsid -w "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_LOG" -w -t "$PG_TIMEOUT" start >/dev/null 2>&1 9>&- ||
      die "postgres: pg_ctl start failed" "$PG_LOG"
  fi
  pg_bootstrap_sql >"$PG_DIR/bootstrap.log" 2>&1 ||
    die "postgres: could not create role/database '$PG_USER'" "$PG_DIR/bootstrap.log"
  local deadline=$(($(now) + PG_TIMEOUT))
  until pg_ready; do
    (($(now) < deadline)) || die "postgres: not accepting '$PG_USER' logins on $HOST:$PG_PORT after ${PG_TIMEOUT}s" "$PG_LOG"
    sleep 0.3
  done
  log "postgres: ready"
}

pg_down() {
  PG_BIN="${PG_BIN:-$(pg_bin_dir)}"
  if [[ -z "$PG_BIN" || ! -f "$PG_DATA/PG_VERSION" ]]; then
    log "postgres: not set up"
    return 0
  fi
  if pg_running; then
    log "postgres: stopping"
    as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w -t 60 stop >/dev/null 2>&1 ||
      die "postgres: pg_ctl stop failed" "$PG_LOG"
  else
    log "postgres: not running"
  fi
}

# ---------------------------------------------------------------- redis

redis_ready() {
  [[ "$(timeout 3 redis-cli -h "$HOST" -p "$REDIS_PORT" ping 2>/dev/null)" == PONG ]]
}

redis_up() {
  if redis_ready; then
    log "redis: already running on $HOST:$REDIS_PORT"
    return 0
  fi
  if pid_alive "$REDIS_PID" redis-server; then
    die "redis: pid $(read_pid "$REDIS_PID") from $REDIS_DIR runs but does not answer on port $REDIS_PORT: run tools/infra/down first"
  fi
  if port_open "$REDIS_PORT"; then
    die "redis: port $REDIS_PORT is already used by something that does not answer PING (set INFRA_REDIS_PORT)"
  fi
  mkdir -p "$REDIS_DIR"
  cat >"$REDIS_CONF" <<EOF
# Written by tools/infra/up on every start; edits are overwritten.
bind $HOST
port $REDIS_PORT
protected-mode yes
daemonize yes
pidfile $REDIS_PID
logfile $REDIS_LOG
dir $REDIS_DIR
# no persistence: test data only
save ""
appendonly no
databases 16
EOF
  log "redis: starting on $HOST:$REDIS_PORT"
  redis-server "$REDIS_CONF" >>"$REDIS_LOG" 2>&1 9>&- || die "redis: redis-server failed to start" "$REDIS_LOG"
  local deadline=$(($(now) + REDIS_TIMEOUT))
  until redis_ready; do
    (($(now) < deadline)) || die "redis: no PONG on $HOST:$REDIS_PORT after ${REDIS_TIMEOUT}s" "$REDIS_LOG"
    sleep 0.2
  done
  log "redis: ready"
}

redis_down() {
  local pid=""
  [[ -f "$REDIS_PID" ]] && pid="$(read_pid "$REDIS_PID")"
  if redis_ready; then
    log "redis: stopping"
    timeout 10 redis-cli -h "$HOST" -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1 || true
  elif [[ -n "$pid" ]] && pid_alive "$REDIS_PID" redis-server; then
    log "redis: stopping pid $pid"
    kill "$pid" 2>/dev/null || true
  else
    log "redis: not running"
    return 0
  fi
  if [[ -n "$pid" ]] && ! wait_pid_gone "$pid" 20; then
    kill -9 "$pid" 2>/dev/null || true
  fi
  local deadline=$(($(now) + 20))
  while redis_ready; do
    (($(now) < deadline)) || die "redis: still answering on port $REDIS_PORT after shutdown" "$REDIS_LOG"
    sleep 0.2
  done
}

# ---------------------------------------------------------------- kafka

kafka_running() { pid_alive "$KAFKA_PID" kafka.Kafka; }

# kafka_probe: send a raw Metadata v1 request (no topics) and succeed only if
# the broker answers with at least one live broker. A KRaft broker lists
# itself only once it is registered and unfenced, i.e. able to serve clients.
kafka_probe() {
  local bytes b
  # shellcheck disable=SC2016 # $0/$1 expand in the inner shell
  bytes="$(timeout 5 bash -c '
    exec 3<>"/dev/tcp/$0/$1" || exit 1
    # size=15 | api_key=3 (Metadata) | api_version=1 | correlation_id=7 | client_id="p" | topics=[] (0)
    printf "\x00\x00\x00\x0f\x00\x03\x00\x01\x00\x00\x00\x07\x00\x01p\x00\x00\x00\x00" >&3
    head -c 12 <&3 | od -An -tu1 -v
  ' "$HOST" "$KAFKA_PORT" 2>/dev/null)" || return 1
  # response: size(4) correlation_id(4)=7 broker_count(4)
  read -r -a b <<<"$bytes"
  ((${#b[@]} == 12)) || return 1
  ((b[4] == 0 && b[5] == 0 && b[6] == 0 && b[7] == 7)) || return 1
  (((b[8] << 24) + (b[9] << 16) + (b[10] << 8) + b[11] >= 1))
}

kafka_pom_hash() { sha256sum "$KAFKA_POM" | cut -d' ' -f1; }

kafka_resolve_libs() {
  [[ -f "$KAFKA_POM" ]] || die "kafka: $KAFKA_POM is missing"
  local hash
  hash="$(kafka_pom_hash)"
  if [[ -f "$KAFKA_LIBS/.resolved" && "$(cat "$KAFKA_LIBS/.resolved")" == "$hash" ]]; then
    return 0
  fi
  command -v mvn >/dev/null || die "kafka: mvn not found"
  log "kafka: resolving broker jars from Maven Central (infra/kafka/pom.xml)"
  mkdir -p "$KAFKA_DIR"
  rm -rf "$KAFKA_LIBS.tmp"
  if ! mvn -q -B -f "$KAFKA_POM" dependency:copy-dependencies \
    -DoutputDirectory="$KAFKA_LIBS.tmp" -DincludeScope=runtime >"$KAFKA_DIR/mvn.log" 2>&1; then
    die "kafka: mvn dependency:copy-dependencies failed" "$KAFKA_DIR/mvn.log"
  fi
  ls "$KAFKA_LIBS.tmp"/kafka_2.13-*.jar >/dev/null 2>&1 || die "kafka: resolved jars lack kafka_2.13" "$KAFKA_DIR/mvn.log"
  echo "$hash" >"$KAFKA_LIBS.tmp/.resolved"
  rm -rf "$KAFKA_LIBS"
  mv "$KAFKA_LIBS.tmp" "$KAFKA_LIBS"
}

kafka_write_conf() {
  mkdir -p "$KAFKA_DATA"
  cat >"$KAFKA_PROPS" <<EOF
# Written by tools/infra/up on every start; edits are overwritten.
# Single node, KRaft mode, combined broker + controller.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$HOST:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://$HOST:$KAFKA_PORT,CONTROLLER://$HOST:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://$HOST:$KAFKA_PORT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
log.dirs=$KAFKA_DATA

auto.create.topics.enable=true
num.partitions=3
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
# fewer internal partitions than the default 50: faster first consumer group / transaction
offsets.topic.num.partitions=10
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=10
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=4
num.recovery.threads.per.data.dir=1
EOF
  cat >"$KAFKA_LOG4J" <<'EOF'
# Written by tools/infra/up. Broker logs go to stdout, which is kafka.log.
log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka=INFO
log4j.logger.org.apache.kafka=INFO
log4j.logger.kafka.request.logger=WARN
log4j.logger.kafka.network.RequestChannel$=WARN
log4j.logger.kafka.log.LogCleaner=WARN
log4j.logger.state.change.logger=WARN
log4j.logger.kafka.authorizer.logger=WARN
log4j.logger.org.apache.kafka.clients.NetworkClient=WARN
EOF
  cat >"$KAFKA_TOOLS_LOG4J" <<'EOF'
# For CLI tools run by hand: warnings only, on stderr.
log4j.rootLogger=WARN, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.appender.stderr.Target=System.err
EOF
}

kafka_cluster_id() {
  # A Kafka Uuid: 16 random bytes, url-safe base64 without padding (22 chars). Not one that begins with '-'
  # (one in 64 did): kafka-storage's argument parser takes it for an option and the format fails, as Kafka's
  # own Uuid.randomUuid() knows. A file left by such a failed format is made again.
  local id
  id=$(cat "$KAFKA_CLUSTER_ID_FILE" 2>/dev/null)
  while [[ -z "$id" || "$id" == -* ]]; do
    id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')
  done
  echo "$id" >"$KAFKA_CLUSTER_ID_FILE"
  echo "$id"
}

kafka_format() {
  [[ -f "$KAFKA_DATA/meta.properties" ]] && return 0
  log "kafka: formatting storage $KAFKA_DATA"
  java -Dlog4j.configuration="file:$KAFKA_TOOLS_LOG4J" -cp "$KAFKA_LIBS/*" kafka.tools.StorageTool \
    format -t "$(kafka_cluster_id)" -c "$KAFKA_PROPS" --ignore-formatted >"$KAFKA_DIR/format.log" 2>&1 ||
    die "kafka: storage format failed" "$KAFKA_DIR/format.log"
}

kafka_up() {
  local started_here=
  if kafka_running && kafka_probe; then
    log "kafka: already running on $HOST:$KAFKA_PORT"
    return 0
  fi
  if kafka_running; then
    if ! grep -qxF "listeners=PLAINTEXT://$HOST:$KAFKA_PORT,CONTROLLER://$HOST:$KAFKA_CONTROLLER_PORT" "$KAFKA_PROPS" 2>/dev/null; then
      die "kafka: already running with other ports ($(grep '^listeners=' "$KAFKA_PROPS" 2>/dev/null)): run tools/infra/down first"
    fi
  else
    local p
    for p in "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT"; do
      if port_open "$p"; then
        die "kafka: port $p is already used by another process (set INFRA_KAFKA_PORT / INFRA_KAFKA_CONTROLLER_PORT)"
      fi
    done
    kafka_resolve_libs
    kafka_write_conf
    kafka_format
    [[ -f "$KAFKA_LOG" ]] && mv -f "$KAFKA_LOG" "$KAFKA_LOG.prev"
    log "kafka: starting on $HOST:$KAFKA_PORT (controller $KAFKA_CONTROLLER_PORT)"
    started_here=$(now)
    rm -f "$KAFKA_PID"
    # SC2086: KAFKA_HEAP_OPTS is a list of JVM flags; SC2016: $$ is the inner shell's pid
    # shellcheck disable=SC2086,SC2016
    nohup setsid bash -c 'echo $$ >"$0"; exec "$@"' "$KAFKA_PID" \
      java $KAFKA_HEAP_OPTS -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
      -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent \
      -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
      -Dlog4j.configuration="file:$KAFKA_LOG4J" \
      -cp "$KAFKA_LIBS/*" kafka.Kafka "$KAFKA_PROPS" \
      >"$KAFKA_LOG" 2>&1 </dev/null 9>&- &
    local _
    for _ in $(seq 1 50); do
      [[ -s "$KAFKA_PID" ]] && break
      sleep 0.1
    done
  fi
  kafka_wait_ready
  # A minute's margin: a run that began as the broker started has younger topics still.
  if [[ -n "$started_here" ]]; then kafka_prune_stale_topics $((started_here - 60)); fi
}

# kafka_wait_ready: wait for the broker to serve metadata. It fails after KAFKA_TIMEOUT seconds without
# progress (kafka.log not growing) or KAFKA_MAX_WAIT seconds in all, and says every 15 s how far it is.
kafka_wait_ready() {
  local start last_change size last_size=-1 said
  start=$(now)
  last_change=$start
  said=$start
  until kafka_probe; do
    kafka_running || die "kafka: broker process exited during start-up" "$KAFKA_LOG"
    size=$(stat -c %s "$KAFKA_LOG" 2>/dev/null || echo 0)
    if ((size != last_size)); then
      last_size=$size
      last_change=$(now)
    fi
    (($(now) - last_change < KAFKA_TIMEOUT)) ||
      die "kafka: broker not serving metadata on $HOST:$KAFKA_PORT, and no progress in its log for ${KAFKA_TIMEOUT}s" "$KAFKA_LOG"
    (($(now) - start < KAFKA_MAX_WAIT)) ||
      die "kafka: broker not serving metadata on $HOST:$KAFKA_PORT after ${KAFKA_MAX_WAIT}s" "$KAFKA_LOG"
    if (($(now) - said >= 15)); then
      said=$(now)
      log "kafka: starting for $((said - start))s; partitions loaded so far: $(grep -c 'Log loaded for partition' "$KAFKA_LOG" 2>/dev/null)"
    fi
    sleep 0.5
  done
  log "kafka: ready ($(($(now) - start))s)"
}

# stale_test_names CUTOFF: read names (topics, schemas, indexes) on stdin, print those a test, e2e run or bench
# made before CUTOFF (epoch seconds). Such a name carries Date.now() in base 36 as an 8-character part of its
# first dot-separated segment, parts split at '_' and '-' (libs/shared/testing uniqueName, tools/e2e/processes.ts,
# KAFKA_NAMESPACE and the schemas of the benches), e.g. t_mwrkksek_bggfj9.dlq,
# bench-3202-mws766we-6va7.order.order.v1, outbox_mwrklccn_1xc5d8, bench_catalog_3843_mwrnc013,
# e2e_products_mwrt4mmv_t62arw. Names without one are never printed; nor are names of Kafka's own (__*) or
# Postgres's own (pg_*, information_schema). Pure bash, no process a name: it reads thousands of names.
stale_test_names() {
  local now_ms cutoff=$(($1 * 1000)) name part ms
  now_ms=$(($(now) * 1000))
  while IFS= read -r name; do
    [[ -n "$name" && "$name" != __* && "$name" != pg_* && "$name" != information_schema ]] || continue
    part="${name%%.*}"
    for part in ${part//[_-]/ }; do
      [[ "$part" =~ ^[0-9a-z]{8}$ ]] || continue
      ms=$((36#$part))
      # 1.6e12 ms is September 2020: older "timestamps" are words or numbers, not Date.now(); nor is a time
      # still to come (the word "products" reads as 2031).
      if ((ms > 1600000000000 && ms <= now_ms)); then
        ((ms < cutoff)) && printf '%s\n' "$name"
        break
      fi
    done
  done
}

# test_shaped_names: read names on stdin, print those in the shape of a test's or a bench's schema or index:
# uniqueName's <prefix>_<8 base-36>_<6 base-36> (outbox_mwrklccn_1xc5d8, e2e_products_mwrt4mmv_t62arw) or the
# benches' bench_<what>_<pid>_<8 base-36> (bench_soap_cart_2422_mws74518). With stale_test_names after it, a
# schema or index is deleted only when both its shape and its time stamp say a run made it.
test_shaped_names() {
  grep -E '^([a-z0-9_]+_[0-9a-z]{8}_[0-9a-z]{6}|bench_[a-z0-9_]+_[0-9]+_[0-9a-z]{8})$' || true
}

# prune_cutoff: epoch seconds before which a test's schema or index is a left-over.
prune_cutoff() {
  [[ "$PRUNE_MIN_AGE_HOURS" =~ ^[0-9]+$ ]] || die "INFRA_PRUNE_MIN_AGE_HOURS must be a whole number of hours"
  echo $(($(now) - PRUNE_MIN_AGE_HOURS * 3600))
}

# pg_prune_stale_schemas CUTOFF [URL]: drop (cascade) the test schemas made before CUTOFF in the database at
# URL (default this infra's), one statement each, so a schema still locked is skipped, not waited for.
# Prints how many it dropped; failures only warn: Postgres is usable.
pg_prune_stale_schemas() { pg_prune_stale schemas "$@"; }

# pg_prune_stale_databases CUTOFF [URL]: drop the test databases made before CUTOFF on the server at URL (default
# this infra's): uniqueName's shape, as the schemas (checkout-payment.int-spec makes checkout_saga_<ts>_<rand>),
# one statement each and without FORCE, so a database someone is connected to is skipped (decision 101).
pg_prune_stale_databases() { pg_prune_stale databases "$@"; }

# pg_prune_stale schemas|databases CUTOFF [URL]: what the two above share.
pg_prune_stale() {
  [[ "$PG_PRUNE" != 0 ]] || return 0
  local what=$1 cutoff=$2 url="${3:-postgresql://$PG_USER:$PG_PASSWORD@$HOST:$PG_PORT/$PG_DB}" psql names stale count dropped
  local list drop done_tag options=''
  case "$what" in
    schemas)
      list='select nspname from pg_namespace' drop='drop schema if exists "&" cascade;' done_tag='DROP SCHEMA'
      options='-c lock_timeout=5s'
      ;;
    databases) list='select datname from pg_database where not datistemplate' drop='drop database if exists "&";' done_tag='DROP DATABASE' ;;
    *) die "pg_prune_stale: schemas or databases, not $what" ;;
  esac
  psql="${PG_BIN:-$(pg_bin_dir)}/psql"
  [[ -x "$psql" ]] || psql=psql
  names=$(PGCONNECT_TIMEOUT=5 "$psql" -X -q -w -tA -d "$url" -c "$list" 2>&1) || {
    log "postgres: could not list $what to prune: ${names##*$'\n'}"
    return 0
  }
  stale=$(test_shaped_names <<<"$names" | stale_test_names "$cutoff")
  [[ -n "$stale" ]] || return 0
  count=$(wc -l <<<"$stale")
  log "postgres: dropping $count $what left by tests and benches more than $(((($(now) - cutoff) + 1800) / 3600)) h ago (INFRA_PG_PRUNE=0 keeps them)"
  # Names of [a-z0-9_] only (test_shaped_names), so quoting them needs no escaping.
  dropped=$(sed "s/.*/$drop/" <<<"$stale" |
    PGCONNECT_TIMEOUT=5 PGOPTIONS="$options" "$psql" -X -w -d "$url" 2>&1 | grep -c "^$done_tag\$" || true)
  log "postgres: dropped $dropped of $count left-over test $what"
}

# meili_prune_stale_indexes CUTOFF [URL KEY]: delete the test indexes made before CUTOFF on the Meilisearch at
# URL (default this infra's, with its key). Prints how many deletions it enqueued; failures only warn.
meili_prune_stale_indexes() {
  [[ "$MEILI_PRUNE" != 0 ]] || return 0
  local url="${2:-http://$HOST:$MEILI_PORT}" key="${3:-}" uids="" page offset=0 stale count deleted=0 uid
  [[ -n "$key" || ! -s "$MEILI_KEY_FILE" ]] || key="$(cat "$MEILI_KEY_FILE")"
  local auth=(-H "Authorization: Bearer $key")
  while :; do
    page=$(curl -sf -m 10 "${auth[@]}" "$url/indexes?limit=1000&offset=$offset") || {
      log "meilisearch: could not list indexes to prune"
      return 0
    }
    page=$(grep -o '"uid":"[^"]*"' <<<"$page" | sed 's/^"uid":"//; s/"$//' || true)
    [[ -n "$page" ]] || break
    uids+="$page"$'\n'
    (($(wc -l <<<"$page") == 1000)) || break
    offset=$((offset + 1000))
  done
  stale=$(test_shaped_names <<<"$uids" | stale_test_names "$1")
  [[ -n "$stale" ]] || return 0
  count=$(wc -l <<<"$stale")
  while IFS= read -r uid; do
    # A deletion is a task of Meilisearch's: 202 once enqueued; the index goes when the task runs.
    [[ "$(curl -s -m 10 -o /dev/null -w '%{http_code}' -X DELETE "${auth[@]}" "$url/indexes/$uid")" == 202 ]] &&
      deleted=$((deleted + 1))
  done <<<"$stale"
  log "meilisearch: deleting $deleted of $count indexes left by tests and benches more than $(((($(now) - $1) + 1800) / 3600)) h ago (INFRA_MEILI_PRUNE=0 keeps them)"
}

# kafka_prune_stale_topics CUTOFF: delete the test topics made before CUTOFF (see above), so that they do not
# pile up and make every later start of the broker load their logs. Failures only warn: the broker is usable.
kafka_prune_stale_topics() {
  [[ "$KAFKA_PRUNE" != 0 ]] || return 0
  local tool=(java -Xmx256m -Dlog4j.configuration="file:$KAFKA_TOOLS_LOG4J" -cp "$KAFKA_LIBS/*"
    org.apache.kafka.tools.TopicCommand --bootstrap-server "$HOST:$KAFKA_PORT")
  local topics stale count
  topics=$("${tool[@]}" --list 2>>"$KAFKA_DIR/prune.log") || {
    log "kafka: could not list topics to prune (see $KAFKA_DIR/prune.log)"
    return 0
  }
  stale=$(stale_test_names "$1" <<<"$topics")
  [[ -n "$stale" ]] || return 0
  count=$(wc -l <<<"$stale")
  log "kafka: deleting $count topics left by tests, e2e runs and benches before this start (INFRA_KAFKA_PRUNE=0 keeps them)"
  { echo "# $(date -u +%FT%TZ): deleting $count topics made before $(date -u -d "@$1" +%FT%TZ)"; echo "$stale"; } >>"$KAFKA_DIR/prune.log"
  # TopicCommand takes one regular expression: the names (letters, digits, '.', '_', '-'), dots escaped, 300 a call.
  local batch
  while IFS= read -r batch; do
    "${tool[@]}" --delete --topic "^($batch)\$" >>"$KAFKA_DIR/prune.log" 2>&1 ||
      log "kafka: deleting stale topics failed (see $KAFKA_DIR/prune.log)"
  done < <(sed 's/\./\\./g' <<<"$stale" |
    awk '{ line = (NR % 300 == 1) ? $0 : line "|" $0 } NR % 300 == 0 { print line } END { if (NR % 300) print line }')
}

kafka_down() {
  if ! kafka_running; then
    log "kafka: not running"
    rm -f "$KAFKA_PID"
    return 0
  fi
  local pid
  pid="$(read_pid "$KAFKA_PID")"
  log "kafka: stopping pid $pid"
  kill -TERM "$pid" 2>/dev/null || true
  if ! wait_pid_gone "$pid" 45; then
    log "kafka: no exit after 45s, killing"
    kill -KILL "$pid" 2>/dev/null || true
    wait_pid_gone "$pid" 10 || die "kafka: pid $pid survives SIGKILL" "$KAFKA_LOG"
  fi
  rm -f "$KAFKA_PID"
}

# ---------------------------------------------------------------- meilisearch

# meili_binary: the Meilisearch server to run: $MEILI_BINARY, else `meilisearch`
# on PATH, else ../shared/meilisearch/meilisearch beside the repo. Empty if none.
meili_binary() {
  if [[ -n "${MEILI_BINARY:-}" ]]; then
    [[ -x "$MEILI_BINARY" ]] || die "meilisearch: MEILI_BINARY=$MEILI_BINARY is not an executable file"
    printf '%s\n' "$MEILI_BINARY"
  elif command -v meilisearch >/dev/null; then
    command -v meilisearch
  elif [[ -x "$MEILI_SHARED_BINARY" ]]; then
    printf '%s\n' "$MEILI_SHARED_BINARY"
  fi
}

# The pid file names a live process started with this INFRA_HOME's data dir.
meili_running() { pid_alive "$MEILI_PID" "--db-path $MEILI_DATA"; }

meili_healthy() {
  timeout 3 curl -s -m 2 "http://$HOST:$MEILI_PORT/health" 2>/dev/null | grep -q '"status":"available"'
}

# meili_key_works KEY: the running instance accepts KEY as its master key.
meili_key_works() {
  [[ "$(timeout 5 curl -s -m 4 -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $1" \
    "http://$HOST:$MEILI_PORT/keys" 2>/dev/null)" == 200 ]]
}

# The master key: $MEILI_MASTER_KEY when set, else the one kept in meili/master.key,
# else a new random one (kept there). The key in use is always written to the file,
# so tools/infra/env prints it in other shells.
meili_master_key() {
  local key
  if [[ -n "${MEILI_MASTER_KEY:-}" ]]; then
    key="$MEILI_MASTER_KEY"
  elif [[ -s "$MEILI_KEY_FILE" ]]; then
    key="$(cat "$MEILI_KEY_FILE")"
  else
    key="$(head -c 24 /dev/urandom | od -An -tx1 -v | tr -d ' \n')"
  fi
  ((${#key} >= 16)) || die "meilisearch: MEILI_MASTER_KEY must have at least 16 characters"
  [[ "$key" =~ ^[A-Za-z0-9_-]+$ ]] || die "meilisearch: MEILI_MASTER_KEY may hold only letters, digits, '-' and '_'"
  printf '%s\n' "$key"
}

meili_up() {
  local bin key
  bin="$(meili_binary)"
  if [[ -z "$bin" ]]; then
    if meili_running; then
      log "meilisearch: no binary found but pid $(read_pid "$MEILI_PID") still runs: run tools/infra/down"
    fi
    log "meilisearch: no binary (MEILI_BINARY, meilisearch on PATH, $MEILI_SHARED_BINARY): not started, its suites report themselves skipped"
    return 0
  fi
  mkdir -p "$MEILI_DIR"
  chmod 700 "$MEILI_DIR"
  key="$(meili_master_key)"
  if meili_running; then
    if ! tr '\0' ' ' <"/proc/$(read_pid "$MEILI_PID")/cmdline" | grep -qF -- "--http-addr $HOST:$MEILI_PORT "; then
      die "meilisearch: already running on another port than $MEILI_PORT: run tools/infra/down first"
    fi
  else
    if port_open "$MEILI_PORT"; then
      die "meilisearch: port $MEILI_PORT is already used by another process (set INFRA_MEILI_PORT)"
    fi
    (umask 077 && printf '%s\n' "$key" >"$MEILI_KEY_FILE")
    [[ -f "$MEILI_LOG" ]] && mv -f "$MEILI_LOG" "$MEILI_LOG.prev"
    log "meilisearch: starting $bin on $HOST:$MEILI_PORT"
    rm -f "$MEILI_PID"
    # The key goes through the environment, not the command line (visible in ps). The working dir
    # is $MEILI_DIR, so nothing it writes lands in the caller's directory.
    # shellcheck disable=SC2016 # $$ and $1 belong to the inner shell
    MEILI_MASTER_KEY="$key" nohup setsid bash -c 'echo $$ >"$0"; cd "$1" || exit 1; shift; exec "$@"' \
      "$MEILI_PID" "$MEILI_DIR" \
      "$bin" --db-path "$MEILI_DATA" --dump-dir "$MEILI_DIR/dumps" --snapshot-dir "$MEILI_DIR/snapshots" \
      --http-addr "$HOST:$MEILI_PORT" --no-analytics --env development \
      --max-indexing-memory "$MEILI_MAX_INDEXING_MEMORY" --log-level "$MEILI_LOG_LEVEL" \
      >"$MEILI_LOG" 2>&1 </dev/null 9>&- &
    local _
    for _ in $(seq 1 50); do
      [[ -s "$MEILI_PID" ]] && break
      sleep 0.1
    done
  fi
  local deadline=$(($(now) + MEILI_TIMEOUT))
  until meili_healthy; do
    meili_running || die "meilisearch: server exited during start-up" "$MEILI_LOG"
    (($(now) < deadline)) || die "meilisearch: /health not available on $HOST:$MEILI_PORT after ${MEILI_TIMEOUT}s" "$MEILI_LOG"
    sleep 0.2
  done
  meili_key_works "$key" ||
    die "meilisearch: the running server refuses the master key ($( [[ -n "${MEILI_MASTER_KEY:-}" ]] && echo "MEILI_MASTER_KEY" || echo "$MEILI_KEY_FILE")): run tools/infra/down, then up with the key you want"
  (umask 077 && printf '%s\n' "$key" >"$MEILI_KEY_FILE")
  log "meilisearch: ready"
}

meili_down() {
  if ! meili_running; then
    log "meilisearch: not running"
    rm -f "$MEILI_PID"
    return 0
  fi
  local pid
  pid="$(read_pid "$MEILI_PID")"
  log "meilisearch: stopping pid $pid"
  kill -TERM "$pid" 2>/dev/null || true
  if ! wait_pid_gone "$pid" 20; then
    log "meilisearch: no exit after 20s, killing"
    kill -KILL "$pid" 2>/dev/null || true
    wait_pid_gone "$pid" 10 || die "meilisearch: pid $pid survives SIGKILL" "$MEILI_LOG"
  fi
  rm -f "$MEILI_PID"
}
