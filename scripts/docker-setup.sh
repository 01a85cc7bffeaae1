#!/usr/bin/env bash
# Makes a Docker engine and the local test image available, for the Docker runtime's tests and
# benchmark. Idempotent: it installs, starts and imports only what is missing.
#
#   - the engine: Debian's docker.io, started as `dockerd --iptables=false --storage-driver=vfs`
#     (no image registry is reachable from these machines, and the kernel's overlay and
#     iptables are not needed);
#   - the image: `agent-platform/busybox:test`, built from busybox-static with `docker import`
#     (nothing is pulled from a registry).
#
# Run as root (CI is). Prints what it did on stderr; exits non-zero if the engine cannot start.
set -euo pipefail

IMAGE="${AGENT_PLATFORM_TEST_IMAGE:-agent-platform/busybox:test}"
log() { echo "docker-setup: $*" >&2; }

apt_install() {
  if [ "$(id -u)" != 0 ]; then log "not root: cannot install $*"; return 1; fi
  log "installing $*"
  # Debian's package lists can be stale on a fresh machine; refresh once, quietly.
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@") >/tmp/agent-platform-apt.log 2>&1 \
    || { cat /tmp/agent-platform-apt.log >&2; return 1; }
}

if ! command -v dockerd >/dev/null 2>&1; then apt_install docker.io; fi
if ! command -v busybox >/dev/null 2>&1 && [ ! -x /bin/busybox ]; then apt_install busybox-static; fi

if ! docker info >/dev/null 2>&1; then
  log "starting dockerd"
  nohup dockerd --iptables=false --storage-driver=vfs >/tmp/agent-platform-dockerd.log 2>&1 &
  for _ in $(seq 1 120); do
    docker info >/dev/null 2>&1 && break
    sleep 0.5
  done
  docker info >/dev/null 2>&1 || { tail -n 30 /tmp/agent-platform-dockerd.log >&2; log "dockerd did not start"; exit 1; }
fi

if ! docker image inspect "$IMAGE" >/dev/null 2>&1; then
  log "building $IMAGE from busybox"
  root="$(mktemp -d)"
  mkdir -p "$root/bin" "$root/tmp" "$root/workspace" "$root/proc" "$root/dev" "$root/etc"
  chmod 1777 "$root/tmp"
  cp "$(command -v busybox || echo /bin/busybox)" "$root/bin/busybox"
  for applet in $("$root/bin/busybox" --list); do
    [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
  done
  echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
  tar -C "$root" -c . | docker import \
    --change 'ENV PATH=/bin' \
    --change 'WORKDIR /workspace' \
    --change 'CMD ["/bin/sh"]' \
    - "$IMAGE" >/dev/null
  rm -rf "$root"
fi
log "ready: $(docker version --format '{{.Server.Version}}') with $IMAGE"
