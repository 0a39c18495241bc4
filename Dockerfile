# syntax=docker/dockerfile:1
#
# Switchboard: one image for every process of an installation (compose.yaml runs it as
# `serve`, `worker` and `emulator`). The build stage installs the workspace and bundles the
# CLI (apps/server/dist); the runtime stage holds only that bundle and the server's
# production dependencies (`pnpm deploy --prod`: better-sqlite3 is the one loaded at run
# time), runs as the unprivileged `node` user and answers a health check. `.dockerignore`
# keeps `.env` files, node_modules and build output out of the build context.
#
#   docker build -t switchboard .
#   docker run -p 127.0.0.1:3000:3000 -v switchboard-data:/data switchboard          # SQLite + emulator
#   docker run --rm -v switchboard-data:/data switchboard stores create --name "My shop"

FROM node:20.19-bookworm-slim AS build
WORKDIR /app
# pnpm at the version package.json pins; compilers in case better-sqlite3 has no prebuilt binary
RUN npm install -g pnpm@10.34.8 \
 && apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
# the lockfile alone first: the dependency download is cached until it changes
COPY pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
RUN pnpm fetch
COPY . .
# installs from the fetched store; the root `prepare` script bundles the CLI into apps/server/dist
RUN pnpm install --offline --frozen-lockfile \
 && test -f apps/server/dist/main.js
# the runtime's files: the server package (its bundle) with its production dependencies only,
# then proof that the bundle runs with nothing else (migrations on a throw-away SQLite file)
RUN pnpm --filter @switchboard/server deploy --prod --legacy /deploy \
 && test -f /deploy/dist/main.js \
 && cp -r apps/console/dist /deploy/console \
 && cd /deploy && DATABASE_URL=/tmp/deploy-check.sqlite node dist/main.js migrate \
 && rm -f /tmp/deploy-check.sqlite*

FROM node:20.19-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_URL=/data/switchboard.sqlite \
    SWITCHBOARD_EMULATOR_STATE=/data/emulator-state.json \
    SWITCHBOARD_CONSOLE_DIR=/app/console
WORKDIR /app
# owned by root, read-only to the user the service runs as
COPY --from=build /deploy /app
RUN printf '#!/bin/sh\nexec node /app/dist/main.js "$@"\n' > /usr/local/bin/switchboard \
 && chmod +x /usr/local/bin/switchboard \
 && mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
ENTRYPOINT ["switchboard"]
CMD ["serve"]
