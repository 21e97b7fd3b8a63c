# syntax=docker/dockerfile:1
# The order intake service: `docker build -t order-intake .` then see docs/operators/install.md ("Container").
#
# Two stages: the build stage has the compilers better-sqlite3 may need and every dev dependency (TypeScript); the
# runtime stage gets the compiled service and production dependencies only, runs as a user of its own, under tini.

FROM node:22-bookworm-slim AS build
# python3, make and g++: node-gyp's tools, for when better-sqlite3 (or ssh2's optional cpu-features) has no prebuilt
# binary for this Node ABI and platform and builds from source.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
# --ignore-scripts: the package's own prepare (the build) needs the sources, copied below; the native modules'
# install scripts are run by the rebuild right after.
RUN npm ci --no-audit --no-fund --ignore-scripts \
 && npm rebuild better-sqlite3 ssh2
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/copy-assets.mjs scripts/
COPY src src
COPY bin bin
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 # The image must not ship a native module that does not load on its own Node: checked here, not at first start.
 && node -e "const D = require('better-sqlite3'); const db = new D(':memory:'); console.log('better-sqlite3 loads, SQLite', db.prepare('select sqlite_version() v').get().v); db.close()"

FROM node:22-bookworm-slim
# tini as PID 1: forwards SIGTERM to the service (a graceful stop drains the channels) and reaps zombies.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 intake \
 && useradd --system --uid 10001 --gid intake --home-dir /data --shell /usr/sbin/nologin intake \
 && mkdir -p /data /hotfolder && chown intake:intake /data /hotfolder
WORKDIR /app
COPY --from=build --chown=root:root /src/package.json ./
COPY --from=build --chown=root:root /src/node_modules node_modules
COPY --from=build --chown=root:root /src/dist dist
COPY --from=build --chown=root:root /src/bin bin
ENV NODE_ENV=production \
    INTAKE_DATA_DIR=/data \
    INTAKE_LOG_FORMAT=json
# Everything the service keeps (SQLite database, secret.key, SFTP host key, upload spool) with the embedded store;
# with PostgreSQL only the SFTP host key and the spool.
VOLUME ["/data"]
# /hotfolder: where compose.yaml mounts the shared hot-folder volume; owned by the service user so a new volume is too.
# HTTP (REST, SOAP, docs, /healthz, /readyz); SFTP; FTP control; SMTP; FTP passive data range (INTAKE_FTP_PASV_RANGE).
# The metrics port (INTAKE_METRICS_PORT) and the HTTPS redirect port (INTAKE_HTTP_REDIRECT_PORT) are off by default.
EXPOSE 8080 2222 2121 2525 30000-30100
USER intake:intake
# Ready means every enabled channel listens and the database answers (docs/operators/install.md, "Liveness and
# readiness"); Node's own fetch, so the image needs no curl.
HEALTHCHECK --interval=10s --timeout=4s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.INTAKE_HTTP_PORT||8080)+'/readyz').then((r)=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/bin/order-intake.js"]
CMD ["serve"]
