#!/usr/bin/env bash
# Makes a Docker engine and the local test image available, for the Docker runtime's tests and
# benchmark. Idempotent: it installs, starts and imports only what is missing.
#
#   - the engine: Debian's docker.io, started as `dockerd --iptables=false --storage-driver=vfs`
#     (no image registry is reachable from these machines, and the kernel's overlay and
#     iptables are not needed);
#   - the image: `agent-platform/busybox:test`, built from busybox-static with `docker import`
#     (nothing is pulled from a registry). It runs as root, and also has a non-root user `agent`
#     (uid and gid 1000) for specs that name one. Its `dev.agent-platform.test-image` label is
#     the recipe's version: an image of an older recipe is built again.
#
# Run as root (CI is). Prints what it did on stderr; exits non-zero if the engine cannot start.
set -euo pipefail

IMAGE="${AGENT_PLATFORM_TEST_IMAGE:-agent-platform/busybox:test}"
# Raise when the image below changes, so machines that have the older one build it again.
RECIPE=2
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

# Built when missing; the default image also when it was built by an older recipe (another image
# named by AGENT_PLATFORM_TEST_IMAGE is never replaced).
recipe="$(docker image inspect --format '{{ index .Config.Labels "dev.agent-platform.test-image" }}' "$IMAGE" 2>/dev/null || echo missing)"
if [ "$recipe" = missing ] || { [ "$IMAGE" = agent-platform/busybox:test ] && [ "$recipe" != "$RECIPE" ]; }; then
  log "building $IMAGE from busybox"
  root="$(mktemp -d)"
  # mktemp's 0700 would become the image's / and lock out every user but root.
  chmod 755 "$root"
  mkdir -p "$root/bin" "$root/tmp" "$root/workspace" "$root/proc" "$root/dev" "$root/etc" "$root/home/agent"
  chmod 1777 "$root/tmp"
  chown 1000:1000 "$root/home/agent"
  cp "$(command -v busybox || echo /bin/busybox)" "$root/bin/busybox"
  for applet in $("$root/bin/busybox" --list); do
    [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
  done
  printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'agent:x:1000:1000:agent:/home/agent:/bin/sh' >"$root/etc/passwd"
  printf '%s\n' 'root:x:0:' 'agent:x:1000:' >"$root/etc/group"
  tar -C "$root" -c . | docker import \
    --change "LABEL dev.agent-platform.test-image=$RECIPE" \
    --change 'ENV PATH=/bin' \
    --change 'WORKDIR /workspace' \
    --change 'CMD ["/bin/sh"]' \
    - "$IMAGE" >/dev/null
  rm -rf "$root"
fi
log "ready: $(docker version --format '{{.Server.Version}}') with $IMAGE"
