#!/usr/bin/env bash
# Installs the Debian packages the tests and the deployment use: redis-server (shared rate limits),
# nginx (the edge proxy), wrk (load), chromium (the map page's browser tests, test/map/, driven by
# playwright-core). Idempotent; needs root (CI and the dev machines run as root).
# Nothing is started here: each test starts its own server on its own port and stops it after.
set -euo pipefail
need=()
command -v redis-server >/dev/null || need+=(redis-server)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx)
command -v wrk >/dev/null || need+=(wrk)
command -v setpriv >/dev/null || need+=(util-linux)
[ -x /usr/bin/chromium ] || need+=(chromium)
if [ ${#need[@]} -eq 0 ]; then echo "services: all installed"; exit 0; fi
echo "services: installing ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
# the packages' own daemons are not wanted (no init system here; the tests start their own)
for svc in redis-server nginx; do (service "$svc" stop >/dev/null 2>&1 || true); done
echo "services: installed ${need[*]}"
