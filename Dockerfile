# syntax=docker/dockerfile:1
# Platform REST API + MCP server. Build: `docker build -t platform-mcp .`
# Serve: `docker run ... platform-mcp`; migrate: `docker run ... platform-mcp node dist/apps/server/src/migrate.js up`.

# Node 22: nestjs-pino 5 and nestjs-cls 7 declare node >= 22 (package.json `engines` says the same).
ARG NODE_IMAGE=node:22-bookworm-slim

# ---- deps: every dependency, for the build -------------------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV SCARF_ANALYTICS=false
COPY package.json package-lock.json ./
# --ignore-scripts: no dependency needs an install script (only @scarf/scarf telemetry has one).
RUN --mount=type=cache,target=/root/.npm \
    npm ci --ignore-scripts --no-audit --no-fund

# ---- build: TypeScript -> dist/ ---------------------------------------------------------------
FROM deps AS build
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY apps ./apps
COPY libs ./libs
# The conformance fixtures are for tests only: their entry and library leave the build here, so the
# image never ships them (nothing else imports them; the server loads them only under their flag).
RUN npm run build \
 && test -f dist/apps/server/src/main.js \
 && test -f dist/apps/server/src/migrate.js \
 && rm -r dist/apps/server/src/conformance-fixtures.js* dist/libs/mcp-conformance-fixtures

# ---- prod-deps: runtime dependencies only -----------------------------------------------------
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
ENV SCARF_ANALYTICS=false
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# ---- runtime --------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
# Memory, as `npm run start:prod` runs (docs/operations.md "Memory"): one malloc arena besides the
# main one (glibc otherwise keeps one per thread, most of it free after start-up), and a V8 old
# space cap, which also makes V8 grow the heap by ~1.35x its live size instead of up to 4x.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data \
    MALLOC_ARENA_MAX=2 \
    NODE_OPTIONS=--max-old-space-size=384
WORKDIR /app
# Application files stay owned by root (read-only to the app); only DATA_DIR is writable, and
# only the embedded (no DATABASE_URL) mode uses it.
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
RUN mkdir -p /data && chown 1000:1000 /data
# The image's `node` user, by number so Kubernetes can verify runAsNonRoot.
USER 1000:1000
EXPOSE 3000
# The root filesystem can be mounted read-only (compose `read_only`, k8s readOnlyRootFilesystem):
# the server writes nothing outside DATA_DIR, and only in the embedded mode.
# Readiness, asked of node itself (the slim image has no curl): 503 while starting or draining.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/ready').then((r)=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node is PID 1: the server handles SIGTERM itself (drains, then exits within SHUTDOWN_GRACE_MS).
STOPSIGNAL SIGTERM
CMD ["node", "dist/apps/server/src/main.js"]
