#!/usr/bin/env bash
# Starts the embedded exchange: every app in one process, memory bus journaled under DATA_DIR.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -d node_modules ] || npm install --no-audit --no-fund
bash deploy/scripts/build.sh
# The demo moves: a deterministic simulated index-price feed, unless the caller chose a source.
export PRICE_SOURCE="${PRICE_SOURCE:-simulated}"
# A larger young generation: the order path allocates per message, and with V8's default 16 MB
# semi-space scavenges (and promotions) took ~10 % of the process (the benchmark starts it the same way).
exec node --enable-source-maps --max-semi-space-size=64 dist/apps/exchange/src/main.js
