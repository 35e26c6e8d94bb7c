#!/usr/bin/env bash
# `make bench`: private MariaDB + demo data + two `svc serve` nodes in a state folder of their own
# (.svc/bench, DB port 3357, HTTPS ports 8557 and 8558; override with SVC_BENCH_DB_PORT,
# SVC_BENCH_PORT, SVC_BENCH_PORT2), then bench/service.ts, which writes the "Service benchmark"
# sections of bench/RESULTS.md. Node 2 serves only the two-node row. Everything started here is
# stopped on exit. Arguments go to bench/service.ts (`make bench BENCH_ARGS="--only neighbour,longneighbour,limiter,nodes"`).
# BENCH_PROFILE=1 runs the server under --cpu-prof (profiles in .svc/bench/profiles).
# Ports and state folder: SVC_BENCH_DB_PORT, SVC_BENCH_PORT, SVC_BENCH_ADMIN_PORT (node 2: SVC_BENCH_ADMIN_PORT2), SVC_BENCH_HOME (to run beside others).
# BENCH_AB="dirA dirB": interleaved A/B runs of two built checkouts (see the end of this file).
set -euo pipefail
cd "$(dirname "$0")/.."
export SVC_HOME="${SVC_BENCH_HOME:-$PWD/.svc/bench}"
export SVC_DB_PORT="${SVC_BENCH_DB_PORT:-3357}"
export SVC_PORT="${SVC_BENCH_PORT:-8557}"
SVC_PORT2="${SVC_BENCH_PORT2:-$((SVC_PORT + 1))}"
unset SVC_DATABASE_URL SVC_PUBLIC_URL SVC_TLS_CERT SVC_TLS_KEY
# Metrics listeners on any free port by default: two nodes here, and other benches on the same host.
export SVC_ADMIN_PORT="${SVC_BENCH_ADMIN_PORT:-0}"
# The demo's data sources live on this private instance's loopback port, which the data-source
# policy refuses by default: allow exactly that address (as make demo / make run do).
export SVC_DATASOURCE_ALLOW="${SVC_DATASOURCE_ALLOW:-127.0.0.1:$SVC_DB_PORT}"
echo "bench: SVC_DATASOURCE_ALLOW=$SVC_DATASOURCE_ALLOW (data sources may reach the demo's own loopback database)"
mkdir -p "$SVC_HOME"
SVC="bin/svc"

server_pid=
server2_pid=
stop_pid () {
  if [ -n "$1" ] && kill -0 "$1" 2>/dev/null; then
    kill -TERM "$1" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  fi
}
cleanup_server () {
  stop_pid "$server_pid"
  stop_pid "$server2_pid"
}
cleanup () {
  cleanup_server
  # The jsreport peer's Chromium browsers, should bench/service.ts have died before closing them.
  pkill -9 -f -- '--svc-bench-peer=' 2>/dev/null || true
  # The stack floor's server (bench/stack-floor.ts), stopped between its measurements.
  pkill -9 -f -- '--serve-stack-floor' 2>/dev/null || true
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

# The bench keys must not hit their rate limit: they get a high one of their own, so the shared
# limiter runs for them and its statements are counted with the rest. The servers run with
# SVC_RATE_LIMIT=0 (off for keys without a limit of their own) for one key only: the
# limiter-off half of the limiter row (issue 13).
KEY_LIMIT="${BENCH_KEY_RATE_LIMIT:-100000000}"
# json PATH: the member at PATH (a.b.c) of the JSON document on stdin.
json () { node -e 'console.log(process.argv[1].split(".").reduce((o,k)=>o[k],JSON.parse(require("fs").readFileSync(0,"utf8"))))' "$1"; }
for member in keys.live.prefix keys.test.prefix; do
  prefix="$(json "$member" <"$SVC_HOME/demo-keys.json")"
  $SVC keys set-rate-limit "$prefix" "$KEY_LIMIT" >/dev/null
done
ws_a="$(json workspace.id <"$SVC_HOME/demo-keys.json")"
key_off="$($SVC --json keys create --workspace "$ws_a" --name 'bench limiter off' --mode live --scopes render | json key)"
# Workspace B, the noisy neighbour (issue 11): its own workspace, read-only database user,
# production environment (the same demo rows as A, so both ask for the same work), invoice
# template and key.
ws_b="$($SVC --json workspaces create --name 'Bench neighbour' | json id)"
pw_b="$(openssl rand -hex 16)"
mariadb --no-defaults --socket="$SVC_HOME/db/db.sock" -u"$(id -un)" -e \
  "CREATE USER 'bench_b_ro'@'%' IDENTIFIED BY '$pw_b'; GRANT SELECT ON demo_production.* TO 'bench_b_ro'@'%'"
$SVC envs create --workspace "$ws_b" --key production --datasource "mysql://bench_b_ro:$pw_b@127.0.0.1:$SVC_DB_PORT/demo_production" >/dev/null
$SVC templates publish --workspace "$ws_b" --note bench examples/templates/invoice.json >/dev/null
key_b="$($SVC --json keys create --workspace "$ws_b" --name 'bench neighbour' --mode live --scopes render --rate-limit "$KEY_LIMIT" | json key)"
(umask 077 && printf '{"limiterOffKey":"%s","neighbour":{"workspaceId":"%s","key":"%s"},"node2Url":"https://127.0.0.1:%s"}\n' \
  "$key_off" "$ws_b" "$key_b" "$SVC_PORT2" >"$SVC_HOME/bench-keys.json")
export SVC_RATE_LIMIT=0
# Logging stays as deployed (info, one line per request) but goes to a file, not a terminal.
export SVC_LOG_FILE="$SVC_HOME/server.log"
# BENCH_NODE_FLAGS: extra node flags for the server (e.g. --heapsnapshot-signal=SIGUSR2). The
# servers run as deployed: bin/svc's first line (env -S …: its memory settings, docs/deploy.md),
# with these flags after its own.
read -r -a node_flags <<<"${BENCH_NODE_FLAGS:-}"
if [ "${BENCH_PROFILE:-0}" = 1 ]; then
  rm -rf "$SVC_HOME/profiles"
  node_flags+=(--cpu-prof --cpu-prof-dir="$SVC_HOME/profiles")
fi
: >"$SVC_LOG_FILE"

# Starts both nodes from the checkout $1 (built) and waits until they listen. Node 2: same
# database, master key and certificate (all in SVC_HOME), its own port and log.
start_server () {
  local -a own
  read -r -a own <<<"$(head -1 "$1/bin/svc" | sed 's|^#!/usr/bin/env -S ||')"
  env "${own[@]}" "${node_flags[@]}" "$1/bin/svc" serve >"$SVC_HOME/serve.out" 2>&1 &
  server_pid=$!
  # Node 2 takes no jobs (SVC_JOBS=false): it serves only the two-node row's sync requests, and
  # must not claim half of the async drain's jobs (a second job loop on the same 2 cores).
  SVC_PORT="$SVC_PORT2" SVC_ADMIN_PORT="${SVC_BENCH_ADMIN_PORT2:-0}" SVC_LOG_FILE="$SVC_HOME/server2.log" SVC_JOBS=false \
    "$1/bin/svc" serve >"$SVC_HOME/serve2.out" 2>&1 &
  server2_pid=$!
  for out in serve serve2; do
    for _ in $(seq 1 150); do
      grep -q 'listening' "$SVC_HOME/$out.out" 2>/dev/null && break
      kill -0 "$server_pid" 2>/dev/null && kill -0 "$server2_pid" 2>/dev/null || { cat "$SVC_HOME/$out.out" >&2; exit 1; }
      sleep 0.1
    done
    grep -q 'listening' "$SVC_HOME/$out.out" || { echo "bench: server did not start" >&2; cat "$SVC_HOME/$out.out" >&2; exit 1; }
  done
  echo "bench: server pids $server_pid ($1) on https://127.0.0.1:$SVC_PORT, $server2_pid (node 2) on https://127.0.0.1:$SVC_PORT2"
}
stop_server () {
  cleanup_server
  server_pid=
  server2_pid=
}
# The raw pool (in bench/service.ts) runs with the server's CPU setting, --no-parallel-scavenge
# (bin/svc's first line), so the baseline is not slowed by what the server is spared; not with its
# memory settings, which trade CPU for RSS (the RSS target is the server's).
run_bench () {
  BENCH_SERVER_PID="$server_pid" BENCH_DB_PID="$(cat "$SVC_HOME/db/db.pid" 2>/dev/null || echo)" \
    node --no-parallel-scavenge dist/bench/service.js "$@"
}

# BENCH_AB="dirA dirB": A/B runs of two builds (checkouts) on the same database: each round starts
# the servers of A, runs bench/service.ts with the given options (e.g. --only sync --runs 1), stops
# them, then the same for B; BENCH_AB_ROUNDS rounds (3), so drift in the machine's load falls on both.
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

# SVC_BENCH_SERVER_DIR: run the servers from another checkout (built), for A/B runs of a change.
start_server "${SVC_BENCH_SERVER_DIR:-.}"
run_bench "$@"
