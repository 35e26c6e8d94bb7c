#!/usr/bin/env bash
# `make bench-peers`: installs the jsreport-style peer of `make bench` (issue 15) outside the
# project's dependencies, so `npm ci` and `make test` stay as they are: jsreport 4's core with
# its chrome-pdf recipe and handlebars engine from the npm registry into .svc/peers, and
# Chromium from Debian's packages (puppeteer's own download is skipped: it would need the
# network at install time, and a browser no one else updates). Nothing is fetched at run time.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium
fi
mkdir -p .svc/peers
[ -f .svc/peers/package.json ] || echo '{ "private": true }' >.svc/peers/package.json
PUPPETEER_SKIP_DOWNLOAD=1 npm install --prefix .svc/peers --no-audit --no-fund --loglevel=error \
  @jsreport/jsreport-core@4.7.1 @jsreport/jsreport-chrome-pdf@4.3.0 @jsreport/jsreport-handlebars@4.0.1
echo "peers: jsreport 4 (chrome-pdf, $(chromium --version 2>/dev/null | head -1)) in .svc/peers; make bench measures it"
