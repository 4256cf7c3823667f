#!/usr/bin/env bash
# Stops the local Elasticsearch started by tools/es/start.sh, by the pid it recorded.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
home="${CITA_ES_HOME:-$root/.cita/es}"
pidfile="$home/es.pid"
say() { echo "es:stop: $*"; }

if [[ ! -f "$pidfile" ]]; then
  say "not running (no $pidfile)"
  exit 0
fi
pid="$(cat "$pidfile")"
if ! kill -0 "$pid" 2>/dev/null; then
  say "pid $pid is not running; removing the stale $pidfile"
  rm -f "$pidfile"
  exit 0
fi
# Only a process we started: its command line names our launcher class.
if ! tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'cita.es.LocalNode'; then
  say "pid $pid is not cita's Elasticsearch launcher; leaving it alone and removing $pidfile" >&2
  rm -f "$pidfile"
  exit 1
fi
say "stopping pid $pid…"
kill -TERM "$pid"
for _ in $(seq 1 60); do
  if ! kill -0 "$pid" 2>/dev/null; then
    rm -f "$pidfile"
    say "stopped"
    exit 0
  fi
  sleep 0.5
done
say "pid $pid did not stop within 30 s; sending SIGKILL" >&2
kill -KILL "$pid" 2>/dev/null || true
rm -f "$pidfile"
