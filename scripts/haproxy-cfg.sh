#!/usr/bin/env bash
# Prints the HAProxy configuration of a cluster: one HTTPS port in TCP mode (TLS passed through
# to the nodes, which hold the certificate), round robin over the nodes' ports, each checked with
# GET /readyz over TLS every second (503 = database unreachable or render pool saturated).
# Every connection to a node starts with a PROXY protocol v2 header carrying the client's address
# (the health checks' too, as LOCAL), and comes from 127.0.0.2: start the nodes with
# SVC_PROXY_PROTOCOL_FROM=127.0.0.2 (a direct connection from 127.0.0.1 still needs no header).
# Usage: haproxy-cfg.sh LISTEN_PORT NODE_PORT... (all on 127.0.0.1)
set -euo pipefail
listen="$1"; shift
cat <<CFG
global
  maxconn 4096

defaults
  mode tcp
  timeout connect 5s
  timeout client 120s
  timeout server 120s

frontend svc
  bind 127.0.0.1:${listen}
  default_backend nodes

backend nodes
  balance roundrobin
  source 127.0.0.2
  option httpchk
  http-check send meth GET uri /readyz ver HTTP/1.1 hdr Host localhost
  http-check expect status 200
  default-server send-proxy-v2 check check-ssl check-send-proxy verify none inter 1s fall 2 rise 1 on-marked-down shutdown-sessions
CFG
i=1
for port in "$@"; do
  echo "  server node${i} 127.0.0.1:${port}"
  i=$((i + 1))
done
