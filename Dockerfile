# The reference server (examples/server) as a container image. From the repository root:
#
#   docker build -t agent-platform/server .
#   docker run --rm -p 3000:3000 agent-platform/server                 # the API server (+ run executor)
#   docker run --rm agent-platform/server node dist/worker.js          # a worker (with DATABASE_URL)
#
# Every variable of the README's configuration table applies; docs/deploy.md has the rest
# (PostgreSQL, Docker sandboxes, Compose, Kubernetes). Pin the base by digest for reproducible
# builds: --build-arg NODE_IMAGE=node:20-bookworm-slim@sha256:<digest>.
ARG NODE_IMAGE=node:20-bookworm-slim

# ---- build: install, build the packages the server imports, and deploy a production install ----
FROM ${NODE_IMAGE} AS build
COPY . /src
# One RUN, one layer (the fewer steps, the fewer copies on storage drivers that copy each layer):
#   1. install the server's workspace packages and the root's build tools (tsup, esbuild), exactly
#      as locked; pnpm comes from npm at the version package.json's packageManager names;
#   2. build each package the server imports into its published ESM (dist/); no declarations or
#      source maps, which nothing in the image reads;
#   3. bundle the server's own files into dist/main.js and dist/worker.js (packages stay imports,
#      resolved to their dist/ at run time: no tsx, no source condition);
#   4. copy the server with its production dependencies only into /out (`pnpm deploy`).
RUN set -eu; cd /src; \
    export CI=true NPM_CONFIG_UPDATE_NOTIFIER=false; \
    pnpm="npx -y $(node -p 'require("./package.json").packageManager.split("+")[0]')"; \
    $pnpm install --frozen-lockfile --reporter=append-only --filter '@agent-platform/example-server...' --filter . ; \
    $pnpm --reporter=append-only --filter '@agent-platform/example-server^...' exec tsup --no-dts --no-sourcemap --format esm; \
    node_modules/.bin/esbuild examples/server/src/main.ts examples/server/src/worker.ts --bundle --packages=external \
      --platform=node --format=esm --target=node20 --outdir=examples/server/dist --log-level=warning; \
    $pnpm --reporter=append-only --filter @agent-platform/example-server deploy --prod --legacy /out; \
    rm -rf /out/src /out/test-support /out/tsconfig.json

# ---- runtime: Node, tini, the deployed server; nothing of the build ----
FROM ${NODE_IMAGE}
# HOST: listen on every interface (the server's own default, 127.0.0.1, is unreachable from
# outside a container). AGENT_PLATFORM_PUBLIC_URL (the address senders use) is yours to set.
# /data is where embedded PGlite keeps its data when no DATABASE_URL is set: mount a volume there.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    AGENT_PLATFORM_DATA_DIR=/data \
    AGENT_PLATFORM_LOG_FORMAT=json
EXPOSE 3000
# Ready = storage reachable, migrations applied, sandbox runtime answering (503 while draining).
# A worker (node dist/worker.js) serves no HTTP: turn this off for it (Compose: healthcheck.disable).
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# tini as PID 1: it hands SIGTERM to Node (which drains and exits 0) and reaps the orphans that
# sandbox commands leave behind (the process runtime runs them as child processes).
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/main.js"]
RUN apt-get update \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/* \
  && mkdir -p /app /data \
  && chown 1000:1000 /data
# Owned by root: the server cannot change its own code.
COPY --from=build /out /app
WORKDIR /app
# The base image's unprivileged `node` user, by number so that Kubernetes' runAsNonRoot can check it.
USER 1000:1000
