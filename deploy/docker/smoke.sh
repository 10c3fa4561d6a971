#!/usr/bin/env bash
# Smoke test of the one-machine cluster (docker-compose.yml): builds the image, starts everything,
# waits until every app is healthy behind its /readyz probe (after the migrate and topics steps
# succeeded), then asks the gateway a few public questions. Needs Docker with Compose v2.
# `KEEP=1` leaves the cluster running; otherwise it is removed (with its volumes) at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
base=${BASE_URL:-http://localhost:8080}

say() { printf 'compose-smoke: %s\n' "$*" >&2; }
cleanup() { [ "${KEEP:-}" = 1 ] || docker compose down -v --remove-orphans >/dev/null 2>&1 || true; }
trap cleanup EXIT

docker compose config --quiet
say "building and starting (waits for every healthcheck)"
docker compose up --build --detach --wait --wait-timeout 600

for step in migrate topics; do
  code=$(docker compose ps --all --format '{{.ExitCode}}' "$step")
  [ "$code" = 0 ] || { say "$step exited with $code"; docker compose logs "$step"; exit 1; }
done

check() { # path, text the answer must contain
  local body
  body=$(curl -fsS "$base$1") || { say "GET $1 failed"; exit 1; }
  grep -q -- "$2" <<<"$body" || { say "GET $1 lacks $2: ${body:0:300}"; exit 1; }
  say "GET $1 ok"
}
check /readyz '"ready":true'
check /fapi/v1/ping '{}'
check /fapi/v1/exchangeInfo '"rateLimits"'
check '/fapi/v1/depth?symbol=BTCUSDT&limit=5' '"lastUpdateId"'
check /api/v1/markets '"symbol"'
check /api/v1/openapi/fapi.json '"openapi":"3.1.0"'
check /docs 'swagger-ui-bundle.js'
say "every service healthy; the gateway answers"
