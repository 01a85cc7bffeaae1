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
#     the recipe's version: an image of an older recipe is built again;
#   - gVisor: Debian's runsc, registered as the engine's `runsc` runtime in /etc/docker/daemon.json
#     (merged into what is there) with the arguments it needs on these machines: `--platform=ptrace`
#     (kvm hangs here), `--network=none` (it refuses a network stack of its own in the root
#     network namespace) and `--host-uds=open` (sandboxes connect to the egress proxy's mounted
#     Unix socket); a running engine reloads its configuration (SIGHUP);
#   - the egress bridge: packages/sandbox-docker/native/egress-bridge, built static from its C
#     source when missing or older than it.
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
if ! command -v runsc >/dev/null 2>&1; then apt_install runsc; fi
# gcc and glibc's static libc.a build the egress bridge.
if ! command -v gcc >/dev/null 2>&1 || [ -z "$(find /usr/lib -name libc.a -print -quit 2>/dev/null)" ]; then apt_install gcc libc6-dev; fi

# gVisor's runtime in the engine's configuration, merged (other keys and runtimes stay).
RUNSC_ARGS='["--platform=ptrace","--network=none","--host-uds=open"]'
if [ "$(id -u)" = 0 ]; then
  mkdir -p /etc/docker
  changed="$(RUNSC="$(command -v runsc)" ARGS="$RUNSC_ARGS" node -e '
    const fs = require("fs"); const file = "/etc/docker/daemon.json";
    const config = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8") || "{}") : {};
    const want = { path: process.env.RUNSC, runtimeArgs: JSON.parse(process.env.ARGS) };
    if (JSON.stringify(config.runtimes?.runsc) === JSON.stringify(want)) { console.log("no"); process.exit(0); }
    config.runtimes = { ...config.runtimes, runsc: want };
    fs.writeFileSync(file, JSON.stringify(config, null, 2) + "\n");
    console.log("yes");
  ')"
  [ "$changed" = yes ] && log "registered runsc in /etc/docker/daemon.json"
else
  log "not root: runsc is not registered with the engine"
fi

# The egress bridge, a static binary any image runs.
bridge_dir="$(cd "$(dirname "$0")/.." && pwd)/packages/sandbox-docker/native"
if [ ! -x "$bridge_dir/egress-bridge" ] || [ "$bridge_dir/egress-bridge.c" -nt "$bridge_dir/egress-bridge" ]; then
  log "building the egress bridge"
  gcc -static -O2 -o "$bridge_dir/egress-bridge" "$bridge_dir/egress-bridge.c"
fi
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
# An engine started before runsc was registered reloads its configuration (runtimes are reloadable).
if [ "$(id -u)" = 0 ] && ! docker info --format '{{json .Runtimes}}' | grep -q '"runsc"'; then
  log "reloading the engine's configuration (runsc)"
  kill -HUP "$(cat /var/run/docker.pid)"
  for _ in $(seq 1 40); do
    docker info --format '{{json .Runtimes}}' | grep -q '"runsc"' && break
    sleep 0.25
  done
  docker info --format '{{json .Runtimes}}' | grep -q '"runsc"' || { log "the engine did not take up runsc"; exit 1; }
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
log "ready: $(docker version --format '{{.Server.Version}}') with $IMAGE, runtimes $(docker info --format '{{range $name, $_ := .Runtimes}}{{$name}} {{end}}')"
