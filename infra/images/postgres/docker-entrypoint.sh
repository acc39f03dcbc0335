#!/usr/bin/env bash
# First start (an empty PGDATA): initdb with POSTGRES_USER as the superuser and POSTGRES_PASSWORD as its password,
# listen on every address with password (scram) authentication, create POSTGRES_DB, run the scripts of
# /docker-entrypoint-initdb.d on a server listening on its socket only, stop it; then run the server.
# Any later start runs the server on the data as it is.
set -Eeuo pipefail

if [ "${1:0:1}" = '-' ]; then set -- postgres "$@"; fi

init_database() {
  : "${POSTGRES_USER:=postgres}"
  : "${POSTGRES_DB:=$POSTGRES_USER}"
  local auth="${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}"
  if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "$auth" != trust ]; then
    echo 'error: the database is uninitialized and POSTGRES_PASSWORD is not set (or POSTGRES_HOST_AUTH_METHOD=trust)' >&2
    exit 1
  fi
  mkdir -p "$PGDATA" && chmod 700 "$PGDATA"
  # shellcheck disable=SC2086 # POSTGRES_INITDB_ARGS is a list of arguments, as in the official image
  initdb --username="$POSTGRES_USER" --pwfile=<(printf '%s\n' "${POSTGRES_PASSWORD:-}") \
    --encoding=UTF8 --locale=C.UTF-8 --auth-local=trust --auth-host="$auth" ${POSTGRES_INITDB_ARGS:-} -D "$PGDATA"
  printf "\nlisten_addresses = '*'\n" >>"$PGDATA/postgresql.conf"
  printf '\nhost all all all %s\n' "$auth" >>"$PGDATA/pg_hba.conf"

  pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -p 5432" -w start
  local psql=(psql -v ON_ERROR_STOP=1 --no-password --no-psqlrc --username "$POSTGRES_USER")
  if [ "$POSTGRES_DB" != postgres ]; then
    "${psql[@]}" --dbname postgres --set db="$POSTGRES_DB" <<<'CREATE DATABASE :"db";'
  fi
  local f
  shopt -s nullglob
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh) echo "running $f"; . "$f" ;;
      *.sql) echo "running $f"; "${psql[@]}" --dbname "$POSTGRES_DB" -f "$f" ;;
      *.sql.gz) echo "running $f"; gunzip -c "$f" | "${psql[@]}" --dbname "$POSTGRES_DB" ;;
      *) echo "ignoring $f" ;;
    esac
  done
  pg_ctl -D "$PGDATA" -m fast -w stop
  echo 'PostgreSQL init process complete; ready for start up.'
}

if [ "$1" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  init_database
fi
exec "$@"
