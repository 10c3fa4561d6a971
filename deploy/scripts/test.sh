#!/usr/bin/env bash
# The whole suite: services, type check, lint, format, build, every test, benchmarks in short mode.
# Ends with "N passed, N failed"; exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
export NX_DAEMON=false NX_NO_CLOUD=true NX_TUI=false
export TEST_DATABASE_URL=${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/perp_test}
export TEST_REDIS_URL=${TEST_REDIS_URL:-redis://127.0.0.1:6379/15}

bash deploy/scripts/ensure-services.sh
# Each section header carries the time it started (a slow step shows in the log).
step() { echo "== $1 ($(date -u +%T))"; }
# The format check (single-threaded, about 30 s) runs beside the type check and lint.
format_log=$(mktemp)
npx prettier --check . --log-level warn > "$format_log" 2>&1 &
format_pid=$!
step "type check"; npx tsc -p tsconfig.json
step "lint"; npx eslint . --max-warnings 0
step "format"
format_status=0
wait $format_pid || format_status=$?
cat "$format_log"
rm -f "$format_log"
[ "$format_status" -eq 0 ]
step "build"; bash deploy/scripts/build.sh
# Process tests use this dist/ as it is (libs/testing ensureBuilt) instead of building it again.
export DIST_BUILT=1
step "benchmarks (short mode)"; BENCH_MODE=short npx nx run-many -t bench --outputStyle=static
step "tests"
if [ $# -gt 0 ]; then
  summary=$(mktemp)
  status=0
  TEST_SUMMARY_FILE=$summary npx jest --ci "$@" || status=$?
  [ -s "$summary" ] || echo "0 passed, 1 failed" > "$summary"
  echo
  cat "$summary"
  rm -f "$summary"
  exit $status
fi
# Two test processes on a 2-core machine: the suites that run the exchange as several processes
# (clusters on the Kafka mock, every app from dist/, durability's kill -9 rounds), the Kafka
# adapter's own suites on the mock (mostly waiting on it) and the random-requests suite (these two
# keep the lanes about as long)
# one after another, beside the in-process suites one after another. Jest's own two workers could
# run two clusters at once.
multi='apps/exchange/src/(cluster/|apps-(metrics|health)\.e2e|durability\.e2e|trading/random-requests\.e2e)|libs/bus/src/kafka/(kafka-bus|member-eviction)\.spec'
work=$(mktemp -d)
status=0
TEST_SUMMARY_FILE=$work/multi npx jest --ci --runInBand --testPathPatterns "$multi" > "$work/multi.log" 2>&1 &
multi_pid=$!
TEST_SUMMARY_FILE=$work/single npx jest --ci --runInBand --testPathIgnorePatterns "$multi" || status=$?
wait $multi_pid || status=$?
step "tests with several processes"
cat "$work/multi.log"
passed=0
failed=0
for part in single multi; do
  [ -s "$work/$part" ] || echo "0 passed, 1 failed" > "$work/$part"
  read -r p _ f _ < "$work/$part"
  passed=$((passed + p))
  failed=$((failed + f))
done
rm -rf "$work"
echo
echo "$passed passed, $failed failed"
exit $status
