#!/usr/bin/env bash
# `make bench`: private MariaDB + demo data + `svc serve` in a state folder of their own
# (.svc/bench, DB port 3357, HTTPS port 8557), then bench/service.ts, which writes the
# "Service benchmark" section of bench/RESULTS.md. Everything started here is stopped on exit.
# BENCH_PROFILE=1 runs the server under --cpu-prof (profiles in .svc/bench/profiles).
set -euo pipefail
cd "$(dirname "$0")/.."
export SVC_HOME="${SVC_BENCH_HOME:-$PWD/.svc/bench}"
export SVC_DB_PORT="${SVC_BENCH_DB_PORT:-3357}"
export SVC_PORT="${SVC_BENCH_PORT:-8557}"
unset SVC_DATABASE_URL SVC_PUBLIC_URL SVC_TLS_CERT SVC_TLS_KEY
mkdir -p "$SVC_HOME"
SVC="node bin/svc"

server_pid=
cleanup () {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
  fi
  $SVC db stop >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "bench: database on 127.0.0.1:$SVC_DB_PORT (state in $SVC_HOME)"
# A fresh database every run: jobs, documents and runs of earlier runs would otherwise pile up
# (3.3 GB after a day of runs, 2.2 GB of it documents) past the 256 MB buffer pool, and the
# drain would measure disk waits (60% idle CPU) instead of the service.
$SVC db stop >/dev/null 2>&1 || true
rm -rf "$SVC_HOME/db"
$SVC db start >/dev/null
$SVC db migrate >/dev/null
# Every run creates a fresh live and test key (secrets are shown once); the bench uses them.
$SVC --json demo >"$SVC_HOME/demo-keys.json"
chmod 600 "$SVC_HOME/demo-keys.json"

# The bench keys must not hit their rate limit: they get a high one of their own (the shared
# limiter stays on and its statements are counted with the rest; SVC_RATE_LIMIT is untouched).
for prefix in $(node -e 'const d=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));console.log(d.keys.live.prefix,d.keys.test.prefix)' "$SVC_HOME/demo-keys.json"); do
  $SVC keys set-rate-limit "$prefix" "${BENCH_KEY_RATE_LIMIT:-100000000}" >/dev/null
done
# Logging stays as deployed (info, one line per request) but goes to a file, not a terminal.
export SVC_LOG_FILE="$SVC_HOME/server.log"
# BENCH_NODE_FLAGS: extra node flags for the server (e.g. --heapsnapshot-signal=SIGUSR2).
read -r -a node_flags <<<"${BENCH_NODE_FLAGS:-}"
if [ "${BENCH_PROFILE:-0}" = 1 ]; then
  rm -rf "$SVC_HOME/profiles"
  node_flags+=(--cpu-prof --cpu-prof-dir="$SVC_HOME/profiles")
fi
: >"$SVC_LOG_FILE"
# SVC_BENCH_SERVER_DIR: run the server from another checkout (built), for A/B runs of a change.
node "${node_flags[@]}" "${SVC_BENCH_SERVER_DIR:-.}/bin/svc" serve >"$SVC_HOME/serve.out" 2>&1 &
server_pid=$!
for _ in $(seq 1 150); do
  grep -q 'listening' "$SVC_HOME/serve.out" 2>/dev/null && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$SVC_HOME/serve.out" >&2; exit 1; }
  sleep 0.1
done
grep -q 'listening' "$SVC_HOME/serve.out" || { echo "bench: server did not start" >&2; cat "$SVC_HOME/serve.out" >&2; exit 1; }
echo "bench: server pid $server_pid on https://127.0.0.1:$SVC_PORT"

BENCH_SERVER_PID="$server_pid" BENCH_DB_PID="$(cat "$SVC_HOME/db/db.pid" 2>/dev/null || echo)" \
  node dist/bench/service.js "$@"
