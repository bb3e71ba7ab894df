# compute-gateway as a container (DESIGN.md 13; docs/deployment.md): `docker compose up --build` runs it with
# PostgreSQL, Redis, an S3-compatible store and three gateway processes (compose.yaml).
# test/unit/deployment-files.test.ts checks this file: Node 24, a non-root user, the /readyz healthcheck, and that
# every ENV below is a setting of the configuration schema (src/config.ts).

# The server's JavaScript. Compiling needs the dev dependencies (TypeScript) but none of their native builds, so
# install scripts are skipped; the SDK and the terminal tool (packages/*) are not part of the server.
# 24.18.1: the last Node 24 the SQLite driver runs on (package.json `engines`, README "Two commands").
FROM node:24.18.1-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/sdk/package.json packages/sdk/package.json
COPY packages/cli/package.json packages/cli/package.json
RUN npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
COPY tsconfig.json tsconfig.build.json ./
COPY generated generated
COPY src src
RUN node_modules/.bin/tsc -p tsconfig.build.json

# The server's runtime dependencies alone: --omit=dev drops the toolchain, --workspaces=false the SDK and the
# terminal tool with their dependencies. better-sqlite3 (the embedded database, still loaded on PostgreSQL) builds
# from source with node-gyp when no prebuilt binary can be fetched; npm_config_nodedir points node-gyp at the
# headers this image ships, so the build needs no download.
FROM node:24.18.1-bookworm-slim AS runtime-deps
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
ENV npm_config_nodedir=/usr/local
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/sdk/package.json packages/sdk/package.json
COPY packages/cli/package.json packages/cli/package.json
RUN npm ci --omit=dev --workspaces=false --no-audit --no-fund --loglevel=error

# What the server reads at run time: dist/ (the server, the admin CLI and the agent, compiled), node_modules (the
# reference page's swagger-ui-dist assets among them), package.json (src/lib/project-root.ts finds the root by it),
# the bundled contract (src/composition/config-files.ts) and config/ (CATALOG_FILE, UPSTREAMS_FILE; compose.yaml
# mounts the operator's copy over it). Migrations are compiled into dist/ (src/db/migrate.ts lists them in code).
FROM node:24.18.1-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080
# One malloc arena instead of one per thread (glibc's default, up to 8 per core): V8's and libuv's threads otherwise
# each keep freed memory of their own; 7-10 MB less RSS, no measurable CPU (bench/README.md, "Memory").
ENV MALLOC_ARENA_MAX=1
WORKDIR /app
COPY --from=runtime-deps /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY package.json ./
COPY generated/openapi.bundled.yaml generated/openapi.bundled.yaml
COPY config config
# data/ is the one place the process writes (CHARGE_JOURNAL_DIR, and BLOB_DIR with BLOB_STORE=file); a named volume
# mounted here starts with this ownership.
RUN mkdir -p data/pending-charges && chown -R node:node data
USER node
# The API, and the SSH tunnel port agents dial back to (TUNNEL_PORT; docs/deployment.md "SSH to rentals").
EXPOSE 8080 7022
# The slim image has no curl: node's own fetch asks /readyz (200 once the database answers), on PORT.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", \
    "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/src/main.js"]
