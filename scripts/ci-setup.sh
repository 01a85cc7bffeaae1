#!/usr/bin/env bash
# The services CI's tests need, set up in one go: `.ci/run` starts this in the background while
# `pnpm install`, `pnpm lint` and the packages' build run, and waits for it just before `pnpm test`.
#
#   1. Every missing Debian package in ONE `apt-get update` and ONE `apt-get install` (docker.io,
#      busybox-static and runsc for the Docker tests, chromium for the browser tests, prometheus for the metrics
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
# gVisor: docker-setup.sh registers it as the engine's runsc runtime.
command -v runsc >/dev/null 2>&1 || packages+=(runsc)
command -v busybox >/dev/null 2>&1 || [ -x /bin/busybox ] || packages+=(busybox-static)
command -v chromium >/dev/null 2>&1 || packages+=(chromium)
# prometheus-setup.sh installs it without recommends: `prometheus-node-exporter-` keeps its one
# recommended package (a second exporter service) out of this install too.
[ -x /usr/bin/prometheus ] || packages+=(prometheus prometheus-node-exporter-)
# The server image's test: mmdebstrap builds the stand-in for its public base (image-setup.sh);
# docker-compose checks deploy/compose.yaml.
command -v mmdebstrap >/dev/null 2>&1 || packages+=(mmdebstrap)
command -v docker-compose >/dev/null 2>&1 || packages+=(docker-compose)

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
# A guard for a fault seen only on these machines (Debian's Docker 20.10, gVisor on ptrace): while
# gVisor and runc sandboxes start and stop side by side, the engine's default bridge `docker0`
# sometimes disappears, and every later sandbox on the bridge fails to start ("could not find
# bridge docker0"). The cause is not found (docs/containment.md, "Known issues"); for the tests'
# sake the bridge is made again, with the address the engine gave it, as soon as it is gone.
bridge_address="$(ip -4 -o addr show docker0 2>/dev/null | awk '{print $4}' | head -n1)"
bridge_address="${bridge_address:-172.17.0.1/16}"
if command -v ip >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  nohup bash -c "while :; do
    if ! ip link show docker0 >/dev/null 2>&1; then
      ip link add docker0 type bridge 2>/dev/null && ip addr add $bridge_address dev docker0 && ip link set docker0 up \
        && echo \"\$(date -u +%T) docker0 was gone: made again\" >>/tmp/agent-platform-docker0.log
    fi
    sleep 0.2
  done" >/dev/null 2>&1 &
fi
# The reference server's image, built in the background through the lint, the build and the first
# tests; its test (test/e2e/container-image.test.ts) runs the script again, which waits for this
# run and finds the image built. Not waited for here: it takes minutes.
nohup bash scripts/image-setup.sh >/tmp/agent-platform-image-setup.log 2>&1 &
# A second engine for the several-engines tests, beside the browser and metrics set-up.
bash scripts/docker-second-engine.sh >/dev/null & second_engine=$!
bash scripts/browser-setup.sh
bash scripts/prometheus-setup.sh
wait "$second_engine"
log "ready"
