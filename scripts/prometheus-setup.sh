#!/usr/bin/env bash
# Makes the Prometheus server available for the metrics test (test/e2e/prometheus.test.ts), which
# scrapes the reference server's /metrics with a real Prometheus. Debian's prometheus package; only
# its binary is used (the test starts its own on a free loopback port; the package's service is
# stopped so it holds no port). Idempotent; run as root (CI is). Exits non-zero if it cannot be
# installed.
set -euo pipefail
log() { echo "prometheus-setup: $*" >&2; }

if [ -x /usr/bin/prometheus ]; then exit 0; fi
if [ "$(id -u)" != 0 ]; then log "not root: cannot install prometheus"; exit 1; fi
log "installing prometheus"
# policy-rc.d: keep apt from starting the package's own service (port 9090) where a service manager runs.
policy=/usr/sbin/policy-rc.d
created_policy=
if [ ! -e "$policy" ]; then printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && created_policy=1; fi
status=0
(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus) >/tmp/agent-platform-apt-prometheus.log 2>&1 || status=$?
if [ -n "$created_policy" ]; then rm -f "$policy"; fi
if [ "$status" != 0 ] || [ ! -x /usr/bin/prometheus ]; then cat /tmp/agent-platform-apt-prometheus.log >&2; exit 1; fi
