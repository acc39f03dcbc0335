#!/usr/bin/env bash
# `redis-server` with no config file listens on every address; protected mode would then refuse every client
# that is not on loopback, so it is turned off, as the official image does. Options are passed through.
set -Eeuo pipefail
if [ "${1:0:1}" = '-' ]; then set -- redis-server "$@"; fi
if [ "$1" = redis-server ]; then
  case "${2:-}" in
    '' | -*) set -- "$@" --protected-mode no ;;
  esac
fi
exec "$@"
