#!/usr/bin/env bash
# `make cluster`: one private MariaDB, NODES `svc serve` processes on their own ports sharing the
# database, SVC_MASTER_KEY and the TLS certificate, behind HAProxy on one HTTPS port (TCP mode,
# TLS passed through, health checks on /readyz). `make cluster-stop` stops all of it.
# State in SVC_HOME (default .svc/cluster): logs, pids, haproxy.cfg, master key, demo keys.
set -euo pipefail
cd "$(dirname "$0")/.."
NODES="${NODES:-3}"
CLUSTER_PORT="${CLUSTER_PORT:-8600}"        # the balancer; nodes on CLUSTER_PORT+1..+N
CLUSTER_ADMIN_PORT="${CLUSTER_ADMIN_PORT:-9600}" # metrics of node i on CLUSTER_ADMIN_PORT+i
export SVC_HOME="${CLUSTER_HOME:-$PWD/.svc/cluster}"
export SVC_DB_PORT="${CLUSTER_DB_PORT:-3347}"
SVC=(bin/svc) # its first line sets the memory settings (docs/deploy.md)

stop () {
  for f in "$SVC_HOME"/run/*.pid; do
    [ -e "$f" ] || continue
    pid="$(cat "$f")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    rm -f "$f"
  done
  "${SVC[@]}" db stop >/dev/null 2>&1 || true
  echo "cluster stopped"
}

if [ "${1:-start}" = stop ]; then stop; exit 0; fi

mkdir -p "$SVC_HOME/run" "$SVC_HOME/log"
[ -z "$(ls "$SVC_HOME"/run/*.pid 2>/dev/null)" ] || { echo "cluster already running (make cluster-stop first)" >&2; exit 1; }
"${SVC[@]}" db start >/dev/null
# The demo's data sources live on the cluster's own loopback MariaDB: an explicit opt-in.
export SVC_DATASOURCE_ALLOW="${SVC_DATASOURCE_ALLOW:-127.0.0.1:$SVC_DB_PORT}"
echo "make cluster: SVC_DATASOURCE_ALLOW=$SVC_DATASOURCE_ALLOW (data sources may reach the demo's own loopback database)"
# Every node must share these: the database, the master key (sealed secrets, document links)
# and one certificate (the balancer passes TLS through, so any node may answer a client).
[ -s "$SVC_HOME/master.hex" ] || (umask 077 && openssl rand -hex 32 >"$SVC_HOME/master.hex")
export SVC_MASTER_KEY; SVC_MASTER_KEY="$(cat "$SVC_HOME/master.hex")"
if [ ! -s "$SVC_HOME/tls/cert.pem" ]; then
  mkdir -p "$SVC_HOME/tls"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 365 -subj /CN=localhost \
    -addext 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1' \
    -keyout "$SVC_HOME/tls/key.pem" -out "$SVC_HOME/tls/cert.pem" 2>/dev/null
  chmod 600 "$SVC_HOME/tls/key.pem"
fi
export SVC_TLS_CERT="$SVC_HOME/tls/cert.pem" SVC_TLS_KEY="$SVC_HOME/tls/key.pem"
export SVC_PUBLIC_URL="https://127.0.0.1:$CLUSTER_PORT"
# HAProxy sends each client's address in a PROXY protocol header (scripts/haproxy-cfg.sh).
export SVC_PROXY_PROTOCOL_FROM=127.0.0.2
export SVC_LOG_LEVEL="${SVC_LOG_LEVEL:-info}"
"${SVC[@]}" db migrate >/dev/null
[ -s "$SVC_HOME/demo-keys.json" ] || "${SVC[@]}" --json demo >"$SVC_HOME/demo-keys.json"
chmod 600 "$SVC_HOME/demo-keys.json"

ports=()
for i in $(seq 1 "$NODES"); do
  port=$((CLUSTER_PORT + i))
  ports+=("$port")
  SVC_PORT="$port" SVC_ADMIN_PORT=$((CLUSTER_ADMIN_PORT + i)) SVC_LOG_FILE="$SVC_HOME/log/node$i.log" \
    nohup "${SVC[@]}" serve >"$SVC_HOME/log/node$i.out" 2>&1 &
  echo $! >"$SVC_HOME/run/node$i.pid"
done
for i in $(seq 1 "$NODES"); do
  for _ in $(seq 1 300); do grep -q listening "$SVC_HOME/log/node$i.out" 2>/dev/null && break; sleep 0.1; done
  grep -q listening "$SVC_HOME/log/node$i.out" || { echo "node $i did not start:" >&2; cat "$SVC_HOME/log/node$i.out" >&2; stop; exit 1; }
done
bash scripts/haproxy-cfg.sh "$CLUSTER_PORT" "${ports[@]}" >"$SVC_HOME/haproxy.cfg"
haproxy -D -f "$SVC_HOME/haproxy.cfg" -p "$SVC_HOME/run/haproxy.pid"
echo "cluster: $NODES nodes (ports ${ports[*]}, metrics on 127.0.0.1:$((CLUSTER_ADMIN_PORT + 1))…) behind https://127.0.0.1:$CLUSTER_PORT"
echo "  curl --cacert $SVC_TLS_CERT https://127.0.0.1:$CLUSTER_PORT/readyz"
echo "  keys: $SVC_HOME/demo-keys.json; logs: $SVC_HOME/log; stop: make cluster-stop"
