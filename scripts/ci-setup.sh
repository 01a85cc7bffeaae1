#!/usr/bin/env bash
# The services CI's tests need, set up in one go: `.ci/run` starts this in the background while
# `pnpm install`, `pnpm lint` and the packages' build run, and waits for it just before `pnpm test`.
#
#   1. Every missing Debian package in ONE `apt-get update` and ONE `apt-get install` (docker.io and
#      busybox-static for the Docker tests, chromium for the browser tests, prometheus for the metrics
#      test): separate apt runs per service refreshed the package lists three times and paid apt's
#      fixed costs (dpkg triggers, needrestart's scan) three times. Nothing is installed twice: a
#      package whose command is already there is left out, so a re-run on the same machine is quick.
#   2. Then the per-service scripts, which stay the one place each service is made ready (and work on
#      their own): docker-setup.sh starts dockerd and builds the test image; browser-setup.sh and
#      prometheus-setup.sh find their package installed and do nothing.
#
# Run as root (CI is). Prints what it did on stderr; exits non-zero if anything cannot be set up.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { echo "ci-setup: $*" >&2; }

packages=()
command -v dockerd >/dev/null 2>&1 || packages+=(docker.io)
command -v busybox >/dev/null 2>&1 || [ -x /bin/busybox ] || packages+=(busybox-static)
command -v chromium >/dev/null 2>&1 || packages+=(chromium)
# prometheus-setup.sh installs it without recommends: `prometheus-node-exporter-` keeps its one
# recommended package (a second exporter service) out of this install too.
[ -x /usr/bin/prometheus ] || packages+=(prometheus prometheus-node-exporter-)

if [ "${#packages[@]}" -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then log "not root: cannot install ${packages[*]}"; exit 1; fi
  log "installing ${packages[*]}"
  # policy-rc.d: apt starts no package's own service (prometheus would hold port 9090; dockerd is
  # started below with this repository's flags). Removed again only if we created it.
  policy=/usr/sbin/policy-rc.d
  created_policy=
  if [ ! -e "$policy" ]; then printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && created_policy=1; fi
  status=0
  # NEEDRESTART_SUSPEND: docker.io recommends needrestart, whose apt hook would scan every process
  # after the install; nothing here needs restarting.
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive NEEDRESTART_SUSPEND=1 apt-get install -y -qq "${packages[@]}") \
    >/tmp/agent-platform-apt-ci.log 2>&1 || status=$?
  if [ -n "$created_policy" ]; then rm -f "$policy"; fi
  if [ "$status" != 0 ]; then cat /tmp/agent-platform-apt-ci.log >&2; exit 1; fi
fi

bash scripts/docker-setup.sh
bash scripts/browser-setup.sh
bash scripts/prometheus-setup.sh
log "ready"
