# syntax=docker/dockerfile:1
#
# Production image of Cusp: one image for both process kinds.
#   API:     docker run -p 3000:3000 --env-file cusp.env -v cusp-data:/data cusp
#   worker:  docker run --env-file cusp.env cusp bun run workers/main.ts
# NODE_ENV=production is baked in, so the API refuses to start without
# DPMS_ADMIN_EMAIL, DPMS_ADMIN_PASSWORD and DPMS_JWT_SECRET (docs/deploy.md).
# For a quick local try: add -e NODE_ENV=development.

ARG BUN_VERSION=1.4.4

# ---- production dependencies, from the lockfile ------------------------------
# bun reads package-lock.json (there is no bun.lock) and installs exactly the
# versions it records; --frozen-lockfile fails the build if package.json and
# the lockfile disagree. Dev dependencies (typescript, drizzle-kit, the bun npm
# package, test servers) stay out. Lifecycle scripts of dependencies are not
# run by bun unless listed in trustedDependencies; none is needed.
FROM oven/bun:${BUN_VERSION} AS deps
WORKDIR /app
COPY package.json package-lock.json bunfig.toml ./
RUN bun install --production --frozen-lockfile

# ---- runtime ----------------------------------------------------------------
# Debian (glibc) based: @libsql/client loads its prebuilt linux-x64-gnu /
# linux-arm64-gnu native module.
FROM oven/bun:${BUN_VERSION}-slim AS runtime
WORKDIR /app

ENV NODE_ENV=production \
    PORT=3000 \
    DATA_DIR=/data \
    LOG_LEVEL=info

# Code and dependencies stay owned by root (read-only for the service user).
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json bunfig.toml tsconfig.json ./
COPY src ./src
COPY db ./db
COPY workers ./workers

# DATA_DIR: the only place the service writes (embedded databases, PGlite queue,
# local documents, generated secrets). Owned by the image's `bun` user (uid/gid
# 1000), so a fresh Docker named volume mounted here inherits that ownership;
# Fly mounts volumes owned by the image's user.
RUN mkdir -p /data && chown 1000:1000 /data

# Non-root: the `bun` user that the official image creates.
USER 1000:1000

EXPOSE 3000

# Liveness only (no database round trip); /api/health is the readiness check
# that load balancers should use. No curl in the slim image: bun does the request.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["bun", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/ping').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# SIGTERM: stop accepting, close event streams, finish in-flight requests, stop
# workers, close databases (src/server.ts). Give it time: docker stop -t 45.
STOPSIGNAL SIGTERM

CMD ["bun", "run", "src/server.ts"]
