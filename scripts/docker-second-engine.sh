#!/usr/bin/env bash
# Starts a second Docker engine beside the first, for the tests of placement across several
# engines (test/e2e/docker-engines.test.ts). Idempotent: a running second engine that has the
# test image is left as it is.
#
#   - its own socket, data root, exec root (and so its own containerd) and pid file, with the
#     first engine's `--iptables=false --storage-driver=vfs`;
#   - `--bridge=none`: no default bridge, so it never fights the first engine over `docker0`
#     (the tests' sandboxes use `network: "none"`);
#   - `--config-file` of its own (empty): /etc/docker/daemon.json belongs to the first engine;
#   - the test image copied from the first engine (`docker save | docker load`; nothing is pulled).
#
#   bash scripts/docker-second-engine.sh [name]
#
# `name` (default `agent-platform-docker-2`) makes the engine's places: its socket
# `/run/<name>.sock`, its state (data root, pid file, log, config) in `/var/lib/<name>`, its exec
# root `/run/<name>`. Another name starts another engine: the test that stops an engine on
# purpose starts one of its own, so the shared one stays up for the tests beside it.
#
# Run as root after scripts/docker-setup.sh (CI does, from scripts/ci-setup.sh). Prints what it
# did on stderr and the engine's address (`unix:///run/<name>.sock`) on stdout; exits non-zero if
# the engine cannot start.
set -euo pipefail

IMAGE="${AGENT_PLATFORM_TEST_IMAGE:-agent-platform/busybox:test}"
NAME="${1:-agent-platform-docker-2}"
if ! [[ "$NAME" =~ ^[A-Za-z0-9][A-Za-z0-9_.-]*$ ]]; then echo "docker-second-engine: a name is letters, digits, _ . - only" >&2; exit 2; fi
HOST="unix:///run/$NAME.sock"
STATE="/var/lib/$NAME"
EXEC_ROOT="/run/$NAME"
log() { echo "docker-second-engine: $*" >&2; }
second() { DOCKER_HOST="$HOST" docker "$@"; }

if ! second info >/dev/null 2>&1; then
  log "starting a second dockerd on $HOST"
  mkdir -p "$STATE" "$EXEC_ROOT"
  [ -s "$STATE/daemon.json" ] || echo '{}' >"$STATE/daemon.json"
  # A pid file left by an engine that died (a killed test, a reboot) would stop this one.
  if [ -f "$STATE/dockerd.pid" ] && ! kill -0 "$(cat "$STATE/dockerd.pid")" 2>/dev/null; then rm -f "$STATE/dockerd.pid"; fi
  nohup dockerd \
    --host "$HOST" \
    --data-root "$STATE/data" \
    --exec-root "$EXEC_ROOT" \
    --pidfile "$STATE/dockerd.pid" \
    --config-file "$STATE/daemon.json" \
    --iptables=false --ip-masq=false --bridge=none --storage-driver=vfs \
    >"$STATE/dockerd.log" 2>&1 &
  for _ in $(seq 1 120); do
    second info >/dev/null 2>&1 && break
    sleep 0.5
  done
  second info >/dev/null 2>&1 || { tail -n 30 "$STATE/dockerd.log" >&2; log "the second dockerd did not start"; exit 1; }
fi

# The first engine's image id: the second gets it again when the first built a newer recipe.
want="$(docker image inspect --format '{{.Id}}' "$IMAGE")"
have="$(second image inspect --format '{{.Id}}' "$IMAGE" 2>/dev/null || true)"
if [ "$want" != "$have" ]; then
  log "copying $IMAGE from the first engine"
  docker save "$IMAGE" | second load >/dev/null
fi
log "ready: $HOST with $IMAGE"
echo "$HOST"
