#!/usr/bin/env bash
# Starts the embedded exchange: every app in one process, memory bus journaled under DATA_DIR.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -d node_modules ] || npm install --no-audit --no-fund
bash deploy/scripts/build.sh
# The demo moves: a deterministic simulated index-price feed, unless the caller chose a source.
export PRICE_SOURCE="${PRICE_SOURCE:-simulated}"
# V8's default young generation (16 MB semi-spaces): a 64 MB one saved no CPU per order any more and
# cost every request its allocations' cache misses (docs/performance-log.md; the benchmark starts it alike).
exec node --enable-source-maps dist/apps/exchange/src/main.js
