#!/usr/bin/env bash
# Runs the whole suite against a private MariaDB started for the run (its own state folder and
# port, so it never touches the `make run` instance). Each test file creates its own database.
set -euo pipefail
cd "$(dirname "$0")/.."
export SVC_TEST_HOME="${SVC_TEST_HOME:-$PWD/.svc/test}"
export SVC_TEST_DB_PORT="${SVC_TEST_DB_PORT:-3317}"
mkdir -p "$SVC_TEST_HOME"
SVC_DB_PORT="$SVC_TEST_DB_PORT" node bin/svc --home "$SVC_TEST_HOME" db start >/dev/null
# SVC_TEST_KEEP_DB=1 leaves the instance running (several suites at once on a dev machine).
if [ "${SVC_TEST_KEEP_DB:-0}" != 1 ]; then
  trap 'node bin/svc --home "$SVC_TEST_HOME" db stop >/dev/null || true' EXIT
fi
export SVC_TEST_DATABASE_URL
SVC_TEST_DATABASE_URL="$(node -e 'const i=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));process.stdout.write(i.url.replace(/\/[^/]*$/,""))' "$SVC_TEST_HOME/db/instance.json")"
files=("$@")
[ ${#files[@]} -eq 0 ] && files=(dist/test)
node --test --test-concurrency="${TEST_CONCURRENCY:-2}" --test-timeout=180000 "${files[@]}"
