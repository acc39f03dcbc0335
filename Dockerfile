# One image for every service; the Deployment picks the bundle with `args`, e.g.
#   docker run commerce:latest dist/apps/catalog/main.js
# Default: the all-in-one demo (embedded engines). See docs/deploy.md.
# BASE: any Node 24 image with npm and a uid-1000 user; tools/image/build passes the base it makes here
# (Debian minbase + the project's own Node binary). NODE_EXTRA_CA_CERTS: a CA bundle for npm's registry
# (a build behind a re-signing proxy mounts it), build-time only.
ARG BASE=node:24-bookworm-slim

FROM ${BASE} AS base
WORKDIR /app
ENV NX_DAEMON=false \
    NX_NO_CLOUD=true \
    npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false

# The root manifest, the lockfile, every workspace's package.json in its folder and the patches that
# `postinstall` applies: what `npm ci` needs. Kept in a stage of their own so a source change does not
# invalidate the install layers.
FROM base AS manifests
WORKDIR /src
COPY . .
RUN mkdir -p /manifests \
 && cp -r package.json package-lock.json patches /manifests/ \
 && find apps libs -name package.json -not -path '*/node_modules/*' -exec cp --parents {} /manifests/ \;

FROM base AS build
ARG NODE_EXTRA_CA_CERTS=""
COPY --from=manifests /manifests/ ./
RUN npm ci
COPY . .
RUN npx nx run-many -t build --outputStyle=static

FROM base AS runtime
ARG NODE_EXTRA_CA_CERTS=""
# HOST: the all-in-one listens on 127.0.0.1 by default, unreachable from outside a container.
ENV NODE_ENV=production \
    HOST=0.0.0.0
COPY --from=manifests /manifests/ ./
# The bundles keep npm packages external; workspace packages get linked (their folders hold only a
# package.json here), which is harmless: the bundles already contain the workspace code.
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
# patch-package is a dev tool, so the patched packages (patches/) come from the build stage.
COPY --from=build /app/node_modules/kafkajs ./node_modules/kafkajs
COPY --from=build /app/dist ./dist
COPY infra/config ./infra/config
COPY infra/meilisearch ./infra/meilisearch
# The judged queries and their baseline, for the search:apply Job (dist/apps/search-apply/main.js).
COPY infra/search ./infra/search
# The all-in-one keeps PGlite under ./data by default: writable for `docker run`; Kubernetes runs the
# separate services, which write nothing.
RUN mkdir data && chown 1000:1000 data
# 1000 is the image's `node` user; numeric so Kubernetes can verify runAsNonRoot.
USER 1000:1000
EXPOSE 8080
ENTRYPOINT ["node"]
CMD ["dist/apps/all-in-one/main.js"]
