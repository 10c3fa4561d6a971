#!/usr/bin/env bash
# Makes sure what the tests need outside npm is here and running: PostgreSQL, Redis, Debian's
# kcat (its librdkafka mock cluster stands in for Kafka) and Debian's chromium (the API reference
# page test drives it headless with playwright-core). Idempotent; fails loudly with the reason.
set -euo pipefail

PG_HOST=${PGHOST:-127.0.0.1}
PG_PORT=${PGPORT:-5432}
REDIS_HOST=127.0.0.1
REDIS_PORT=6379
TEST_DB=${TEST_DB:-perp_test}

say() { printf 'ensure-services: %s\n' "$*" >&2; }
die() { say "FAILED: $*"; exit 1; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else die "need root to run: $*"; fi; }

apt_updated=
apt_install() {
  command -v apt-get >/dev/null || die "apt-get not found: install $* by hand"
  if [ -z "$apt_updated" ]; then as_root apt-get update -qq >/dev/null || die "apt-get update failed"; apt_updated=1; fi
  say "installing $*"
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >/dev/null || die "apt-get install $* failed"
}

wait_for() { # name, command...
  local name=$1; shift
  for _ in $(seq 1 50); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
  die "$name did not come up"
}

# --- PostgreSQL ---------------------------------------------------------------------------
pg_up() { pg_isready -q -h "$PG_HOST" -p "$PG_PORT"; }
command -v pg_isready >/dev/null || apt_install postgresql postgresql-client
if ! pg_up; then
  if ! ls /etc/postgresql/*/main >/dev/null 2>&1; then apt_install postgresql; fi
  ver=$(ls /etc/postgresql | sort -V | tail -1)
  say "starting PostgreSQL $ver"
  as_root pg_ctlcluster --skip-systemctl-redirect "$ver" main start || true
  wait_for PostgreSQL pg_up
fi
psql_admin() { psql -h "$PG_HOST" -p "$PG_PORT" -U postgres -v ON_ERROR_STOP=1 -qtA "$@"; }
psql_admin -c 'select 1' >/dev/null 2>&1 \
  || die "cannot connect to PostgreSQL at $PG_HOST:$PG_PORT as postgres (trust auth expected for tests)"
if [ "$(psql_admin -c "select 1 from pg_database where datname='$TEST_DB'")" != 1 ]; then
  say "creating database $TEST_DB"
  psql_admin -c "create database $TEST_DB" >/dev/null
fi

# --- Redis --------------------------------------------------------------------------------
redis_up() { redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" ping | grep -q PONG; }
command -v redis-server >/dev/null || apt_install redis-server
if ! redis_up; then
  say "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
  redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no \
    --dir "${TMPDIR:-/tmp}" >/dev/null
  wait_for Redis redis_up
fi

# --- kcat (Kafka mock cluster) ------------------------------------------------------------
command -v kcat >/dev/null || apt_install kcat
kcat -V >/dev/null 2>&1 || die "kcat is installed but does not run"

# --- chromium (headless browser for the API reference page test) ----------------------------
command -v chromium >/dev/null || apt_install chromium
chromium --headless --no-sandbox --version >/dev/null 2>&1 || die "chromium is installed but does not run"

say "PostgreSQL $PG_HOST:$PG_PORT (database $TEST_DB), Redis $REDIS_HOST:$REDIS_PORT, kcat and chromium are ready"
