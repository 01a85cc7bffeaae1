#!/usr/bin/env bash
# Makes headless Chromium available for the client SDK's browser test (test/e2e/client-browser).
# Debian's chromium package: `npx playwright install` cannot download browsers on these machines.
# Idempotent; run as root (CI is). Exits non-zero if Chromium cannot be installed.
set -euo pipefail
log() { echo "browser-setup: $*" >&2; }

if command -v chromium >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" != 0 ]; then log "not root: cannot install chromium"; exit 1; fi
log "installing chromium"
(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/tmp/agent-platform-apt-chromium.log 2>&1 \
  || { cat /tmp/agent-platform-apt-chromium.log >&2; exit 1; }
