#!/usr/bin/env bash
# Builds the reference server's container image (the repository's Dockerfile) on this machine's
# Docker engine, for the image's test (test/e2e/container-image.test.ts). CI starts it in the
# background from scripts/ci-setup.sh; the test runs it again, which waits for that run (a lock)
# and then finds everything built.
#
#   - The base: no image registry is reachable from these machines, so when the public base the
#     Dockerfile names (node:20-bookworm-slim) is missing, a stand-in is built under that name,
#     as the busybox test image is: Debian bookworm's minimal system from Debian's archive
#     (mmdebstrap --variant=minbase, documentation and translations left out as in the slim
#     image; dpkg without fsync, the image being a throwaway) with this machine's own Node 20 and npm in /usr/local and a `node` user (uid and gid
#     1000), as in the official image. A machine that can pull the real base uses it instead.
#     When this machine's Node trusts an extra certificate authority (NODE_EXTRA_CA_CERTS, or
#     npm's cafile: a proxy between it and the registry), the stand-in trusts it too, so that the
#     build's npm and pnpm reach the registry as the host's do.
#   - The image: `docker build --network host` (the engine runs with --iptables=false, so the
#     default bridge has no route out; the build installs from the npm registry and Debian's
#     archive). Docker's layer cache makes a second build of unchanged sources a few seconds.
#
# Run as root on these machines (mmdebstrap's root mode; installs it when missing). Prints what it
# did on stderr; exits non-zero, with the failing step's output, if the image cannot be built.
set -euo pipefail
cd "$(dirname "$0")/.."

BASE=node:20-bookworm-slim # the Dockerfile's default NODE_IMAGE
IMAGE="${AGENT_PLATFORM_SERVER_IMAGE:-agent-platform/server}"
# Raise when the stand-in's recipe changes, so machines that have an older one build it again.
RECIPE=1
LABEL=dev.agent-platform.base-stand-in
log() { echo "image-setup: $*" >&2; }

# One build at a time on a machine: a second caller (the test, while CI's background run is still
# building) waits here, then finds the base and a cached build.
exec 9>/tmp/agent-platform-image-setup.lock
flock 9

started=$(date +%s)
docker info >/dev/null 2>&1 || { log "no Docker engine answers (scripts/docker-setup.sh starts one)"; exit 1; }

build_stand_in() {
  if ! command -v mmdebstrap >/dev/null 2>&1; then
    if [ "$(id -u)" != 0 ]; then log "not root: cannot install mmdebstrap"; return 1; fi
    log "installing mmdebstrap"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap) >/tmp/agent-platform-apt-image.log 2>&1 \
      || { cat /tmp/agent-platform-apt-image.log >&2; return 1; }
  fi
  local node npm_dir corepack_dir extra_ca
  node="$(readlink -f "$(command -v node)")"
  if [ "$("$node" -p 'process.versions.node.split(".")[0]')" != 20 ]; then log "this machine's node is not Node 20: $("$node" -v)"; return 1; fi
  npm_dir="$(dirname "$(readlink -f "$(command -v npm)")")/.."
  npm_dir="$(cd "$npm_dir" && pwd)"
  corepack_dir="$(dirname "$npm_dir")/corepack"
  extra_ca="${NODE_EXTRA_CA_CERTS:-$(npm config get cafile 2>/dev/null || true)}"
  local ca_hook=(--customize-hook=true) ca_env=()
  if [ -n "$extra_ca" ] && [ "$extra_ca" != null ] && [ -f "$extra_ca" ]; then
    ca_hook=(--customize-hook="mkdir -p \"\$1/usr/local/share/ca-certificates\"; cp $extra_ca \"\$1/usr/local/share/ca-certificates/host-ca-bundle.crt\"")
    ca_env=(--change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/ca-certificates/host-ca-bundle.crt')
  fi
  log "building the stand-in for $BASE (Debian bookworm minbase + $("$node" -v) from $node)"
  # The tar goes straight to `docker import`: nothing is written to disk but the image.
  mmdebstrap --quiet --variant=minbase --mode=root --format=tar \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/locale/locale.alias' \
    --dpkgopt='path-exclude=/usr/share/info/*' --dpkgopt=force-unsafe-io \
    --customize-hook='mkdir -p "$1/usr/local/lib/node_modules"' \
    --customize-hook="copy-in $node /usr/local/bin" \
    --customize-hook="copy-in $npm_dir /usr/local/lib/node_modules" \
    --customize-hook="if [ -d $corepack_dir ]; then cp -a $corepack_dir \"\$1/usr/local/lib/node_modules/\"; ln -s ../lib/node_modules/corepack/dist/corepack.js \"\$1/usr/local/bin/corepack\"; fi" \
    --customize-hook='ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm"' \
    --customize-hook='ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"' \
    "${ca_hook[@]}" \
    --customize-hook='chroot "$1" groupadd --gid 1000 node' \
    --customize-hook='chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node' \
    bookworm - http://deb.debian.org/debian 2>/tmp/agent-platform-mmdebstrap.log |
    docker import \
      --change "LABEL $LABEL=$RECIPE" \
      --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      --change "ENV NODE_VERSION=$("$node" -p process.versions.node)" \
      --change 'CMD ["node"]' \
      "${ca_env[@]}" \
      - "$BASE" >/dev/null \
    || { cat /tmp/agent-platform-mmdebstrap.log >&2; return 1; }
  log "stand-in built after $(($(date +%s) - started)) s"
}

# Built when missing, and again when it is a stand-in of an older recipe (a real base is kept).
recipe="$(docker image inspect --format "{{ index .Config.Labels \"$LABEL\" }}" "$BASE" 2>/dev/null || echo missing)"
if [ "$recipe" = missing ] || { [ -n "$recipe" ] && [ "$recipe" != "<no value>" ] && [ "$recipe" != "$RECIPE" ]; }; then
  build_stand_in
fi

# BuildKit when a client here speaks it: it skips the legacy builder's container and full layer
# copy (vfs) per metadata instruction, and builds the two stages side by side. A CLI before 23
# (Debian's docker.io) has it built in; later ones need the buildx plugin. Else the legacy builder.
builder=(docker build)
if docker buildx version >/dev/null 2>&1; then
  builder=(docker buildx build --load)
else
  for cli in $(type -ap docker); do
    major="$("$cli" version --format '{{.Client.Version}}' 2>/dev/null | cut -d. -f1)"
    if [ -n "$major" ] && [ "$major" -lt 23 ] 2>/dev/null; then builder=(env DOCKER_BUILDKIT=1 "$cli" build --progress plain); break; fi
  done
fi

log "building $IMAGE (${builder[*]})"
if ! "${builder[@]}" --network host --tag "$IMAGE" . >/tmp/agent-platform-image-build.log 2>&1; then
  tail -n 60 /tmp/agent-platform-image-build.log >&2
  log "the image build failed (full output in /tmp/agent-platform-image-build.log)"
  exit 1
fi
log "ready: $IMAGE after $(($(date +%s) - started)) s"
