# syntax=docker/dockerfile:1
# The services' container images (ADR 0080): one target per
# deployable of scripts/cluster/service-catalog.ts, named as it names them (the seven services,
# the analytics stream processor, the Recommendation service, and `web`, the public site).
#   docker build --target auth -t commerce-platform/auth:0.1.0 .
# Docker is not needed to trust this file: `npm test` replays it, instruction by instruction,
# and starts every target from the result (scripts/images/).

# Node 24.21.0 (.node-version, the Node the project runs on) on Debian 12; the tag and its
# manifest-list digest.
FROM node:24.21.0-bookworm-slim@sha256:d6aa754f16b3197301076f047b5def2f02ea1dbbc2ca920407d46d7ec7f87b20 AS node-base

# The project's own build: every dependency, code generated from proto/, the web app bundled
# (into services/edge/site/app), TypeScript compiled to .build/dist. The manifests come first, so a source change does not reinstall dependencies.
FROM node-base AS build
WORKDIR /src
COPY package.json package-lock.json ./
COPY client/package.json client/
COPY embedded/package.json embedded/
COPY services/analytics/package.json services/analytics/
COPY services/auth/package.json services/auth/
COPY services/edge/package.json services/edge/
COPY services/notification/package.json services/notification/
COPY services/order/package.json services/order/
COPY services/payment/package.json services/payment/
COPY services/product/package.json services/product/
COPY services/recommendation/package.json services/recommendation/
COPY services/runtime/package.json services/runtime/
COPY services/user/package.json services/user/
COPY web/package.json web/
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# The compiled tree with production dependencies only. chDB, the embedded analytics store
# (0.5 GB), is left out: a service image always runs on a ClickHouse server (CLICKHOUSE_URL).
FROM node-base AS production-dependencies
WORKDIR /app
COPY --from=build /src/.build/dist ./
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --no-audit --no-fund \
    && rm -rf node_modules/chdb node_modules/@chdb

# What every service image is: the same files, owned by root and so read-only to the service's
# user; only the entry point differs. Node is PID 1 and handles SIGTERM itself.
FROM node-base AS service
ARG VERSION=0.1.0
ENV NODE_ENV=production HOST=0.0.0.0 PORT=9090 DATA_DIR=/data
WORKDIR /app
COPY --from=production-dependencies /app ./
USER 10001:10001
EXPOSE 9090
STOPSIGNAL SIGTERM
LABEL org.opencontainers.image.vendor="commerce-platform" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.base.name="docker.io/library/node:24.21.0-bookworm-slim" \
      org.opencontainers.image.base.digest="sha256:d6aa754f16b3197301076f047b5def2f02ea1dbbc2ca920407d46d7ec7f87b20"

FROM service AS auth
LABEL org.opencontainers.image.title="commerce-platform/auth" \
      org.opencontainers.image.description="Auth service: registration, login, tokens"
ENTRYPOINT ["node", "services/auth/src/main.js"]

FROM service AS user
LABEL org.opencontainers.image.title="commerce-platform/user" \
      org.opencontainers.image.description="User service: profiles, addresses, user management"
ENTRYPOINT ["node", "services/user/src/main.js"]

FROM service AS product
LABEL org.opencontainers.image.title="commerce-platform/product" \
      org.opencontainers.image.description="Product service: catalog, categories, stock"
ENTRYPOINT ["node", "services/product/src/main.js"]

FROM service AS order
LABEL org.opencontainers.image.title="commerce-platform/order" \
      org.opencontainers.image.description="Order service: placement and status"
ENTRYPOINT ["node", "services/order/src/main.js"]

FROM service AS notification
LABEL org.opencontainers.image.title="commerce-platform/notification" \
      org.opencontainers.image.description="Notification service: notifications from events"
ENTRYPOINT ["node", "services/notification/src/main.js"]

FROM service AS payment
LABEL org.opencontainers.image.title="commerce-platform/payment" \
      org.opencontainers.image.description="Payment service: gateway orders, signed callbacks"
ENTRYPOINT ["node", "services/payment/src/main.js"]

FROM service AS analytics
LABEL org.opencontainers.image.title="commerce-platform/analytics" \
      org.opencontainers.image.description="Analytics service: dashboards read from ClickHouse"
ENTRYPOINT ["node", "services/analytics/src/main.js"]

FROM service AS analytics-processor
LABEL org.opencontainers.image.title="commerce-platform/analytics-processor" \
      org.opencontainers.image.description="Analytics stream processor: event topics into ClickHouse"
ENTRYPOINT ["node", "services/analytics/src/processor/main.js"]

FROM service AS recommendation
LABEL org.opencontainers.image.title="commerce-platform/recommendation" \
      org.opencontainers.image.description="Recommendation service: customers who bought this also bought"
ENTRYPOINT ["node", "services/recommendation/src/main.js"]

# The public site (/openapi.json, /docs, the web app at /): the files `npm run build` copied
# beside the code.
FROM service AS web
LABEL org.opencontainers.image.title="commerce-platform/web" \
      org.opencontainers.image.description="The public site: the web app, the API's description and its reference page"
ENTRYPOINT ["node", "services/edge/src/web/main.js"]
