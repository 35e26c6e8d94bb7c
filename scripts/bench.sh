#!/usr/bin/env bash
# `make bench`: private MariaDB + demo data + `svc serve` in a state folder of their own
# (.svc/bench, DB port 3357, HTTPS port 8557), then bench/service.ts, which writes the
# "Service benchmark" section of bench/RESULTS.md. Everything started here is stopped on exit.
# BENCH_PROFILE=1 runs the server under --cpu-prof (profiles in .svc/bench/profiles).
# Ports and state folder: SVC_BENCH_DB_PORT, SVC_BENCH_PORT, SVC_BENCH_ADMIN_PORT, SVC_BENCH_HOME (to run beside others).
# BENCH_AB="dirA dirB": interleaved A/B runs of two built checkouts (see the end of this file).
set -euo pipefail
cd "$(dirname "$0")/.."
export SVC_HOME="${SVC_BENCH_HOME:-$PWD/.svc/bench}"
export SVC_DB_PORT="${SVC_BENCH_DB_PORT:-3357}"
export SVC_PORT="${SVC_BENCH_PORT:-8557}"
export SVC_ADMIN_PORT="${SVC_BENCH_ADMIN_PORT:-9557}"
unset SVC_DATABASE_URL SVC_PUBLIC_URL SVC_TLS_CERT SVC_TLS_KEY
# The demo's data sources live on this private instance's loopback port, which the data-source
# policy refuses by default: allow exactly that address (as make demo / make run do).
export SVC_DATASOURCE_ALLOW="${SVC_DATASOURCE_ALLOW:-127.0.0.1:$SVC_DB_PORT}"
echo "bench: SVC_DATASOURCE_ALLOW=$SVC_DATASOURCE_ALLOW (data sources may reach the demo's own loopback database)"
mkdir -p "$SVC_HOME"
SVC="node bin/svc"

server_pid=
cleanup_server () {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
  fi
}
cleanup () {
  cleanup_server
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
# A refused demo prints a problem document (exit 0 is not enough): no keys, no bench.
grep -q '"keys"' "$SVC_HOME/demo-keys.json" || { echo "bench: svc demo failed:" >&2; cat "$SVC_HOME/demo-keys.json" >&2; exit 1; }

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

# Starts `svc serve` from the checkout $1 (built) and waits until it listens.
start_server () {
  node "${node_flags[@]}" "$1/bin/svc" serve >"$SVC_HOME/serve.out" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 150); do
    grep -q 'listening' "$SVC_HOME/serve.out" 2>/dev/null && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$SVC_HOME/serve.out" >&2; exit 1; }
    sleep 0.1
  done
  grep -q 'listening' "$SVC_HOME/serve.out" || { echo "bench: server did not start" >&2; cat "$SVC_HOME/serve.out" >&2; exit 1; }
  echo "bench: server pid $server_pid ($1) on https://127.0.0.1:$SVC_PORT"
}
stop_server () {
  cleanup_server
  server_pid=
}
run_bench () {
  BENCH_SERVER_PID="$server_pid" BENCH_DB_PID="$(cat "$SVC_HOME/db/db.pid" 2>/dev/null || echo)" \
    node dist/bench/service.js "$@"
}

# BENCH_AB="dirA dirB": A/B runs of two builds (checkouts) on the same database: each round starts
# the server of A, runs bench/service.ts with the given options (e.g. --only sync --runs 1), stops
# it, then the same for B; BENCH_AB_ROUNDS rounds (3), so drift in the machine's load falls on both.
if [ -n "${BENCH_AB:-}" ]; then
  read -r -a ab_dirs <<<"$BENCH_AB"
  for round in $(seq 1 "${BENCH_AB_ROUNDS:-3}"); do
    for dir in "${ab_dirs[@]}"; do
      start_server "$dir"
      echo "bench: A/B round $round: $dir (load average $(cut -d' ' -f1-3 /proc/loadavg))"
      run_bench "$@"
      stop_server
    done
  done
  exit 0
fi

# SVC_BENCH_SERVER_DIR: run the server from another checkout (built), for A/B runs of a change.
start_server "${SVC_BENCH_SERVER_DIR:-.}"
run_bench "$@"
