# syntax=docker/dockerfile:1
#
# Switchboard: one image for every process of an installation (compose.yaml runs it as
# `serve`, `worker` and `emulator`). The CLI runs as the bundle `pnpm install` builds
# (apps/server/dist); only better-sqlite3 (native) is loaded from node_modules at run time.
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

FROM node:20.19-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_URL=/data/switchboard.sqlite \
    SWITCHBOARD_EMULATOR_STATE=/data/emulator-state.json
WORKDIR /app
COPY --from=build /app /app
RUN printf '#!/bin/sh\nexec node /app/apps/server/dist/main.js "$@"\n' > /usr/local/bin/switchboard \
 && chmod +x /usr/local/bin/switchboard \
 && mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
ENTRYPOINT ["switchboard"]
CMD ["serve"]
