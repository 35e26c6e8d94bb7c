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
# The instance's service user holds only its own database (docs/security.md), so tests create
# their per-file databases and users through a test-only administrator made over the root socket.
admin_pw_file="$SVC_TEST_HOME/test-admin.password"
[ -s "$admin_pw_file" ] || (umask 077; head -c 18 /dev/urandom | base64 | tr -d '/+=\n' >"$admin_pw_file")
admin_pw="$(cat "$admin_pw_file")"
socket="$(node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")).socket)' "$SVC_TEST_HOME/db/instance.json")"
mariadb --no-defaults --socket="$socket" -u"$(id -un)" -e "CREATE USER IF NOT EXISTS 'svc_test_admin'@'127.0.0.1' IDENTIFIED BY '$admin_pw';
  ALTER USER 'svc_test_admin'@'127.0.0.1' IDENTIFIED BY '$admin_pw';
  GRANT ALL PRIVILEGES ON *.* TO 'svc_test_admin'@'127.0.0.1' WITH GRANT OPTION;"
export SVC_TEST_DATABASE_URL="mysql://svc_test_admin:$admin_pw@127.0.0.1:$SVC_TEST_DB_PORT"
# The suite's data sources live on this loopback instance, which the default policy refuses.
export SVC_DATASOURCE_ALLOW="${SVC_DATASOURCE_ALLOW:-127.0.0.1}"
echo "test suite: data sources on $SVC_DATASOURCE_ALLOW allowed (SVC_DATASOURCE_ALLOW opt-in for the suite's own instance)" >&2
files=("$@")
# Only *.test.js: given a folder, node --test runs every .js in it, so the helpers (test/helpers,
# fixtures, probes) each counted as a passing test with no assertion.
[ ${#files[@]} -eq 0 ] && mapfile -t files < <(find dist/test -name '*.test.js' | sort)
node --test --test-concurrency="${TEST_CONCURRENCY:-2}" --test-timeout=180000 "${files[@]}"
