# Skillgate API (the Node entry, workers/src/runtime/node/node.ts) on an embedded libSQL file in /data.
# Build context: the folder made by deploy/docker/build-context.sh (sources + production
# node_modules), so the base image only needs Node.js 22 (no npm, no shell):
#   docker build -f api.Dockerfile --build-arg BASE_IMAGE=node:22-bookworm-slim -t skillgate/api <context>
# Works with the classic builder and BuildKit alike.
ARG BASE_IMAGE=node:22-bookworm-slim
FROM ${BASE_IMAGE}

# The same first layers in both images, so building the second reuses them.
WORKDIR /app
COPY app/ /app/
LABEL org.opencontainers.image.title="skillgate-api" \
      org.opencontainers.image.description="Skillgate API: skill registry, tool injection, interception and execution"
# The data folder (database, generated management token), owned by the unprivileged user.
RUN ["node", "-e", "const fs = require('node:fs'); fs.mkdirSync('/data', { mode: 0o700 }); fs.chownSync('/data', 65534, 65534)"]

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=20128 \
    DATA_DIR=/data
VOLUME ["/data"]
USER 65534:65534
EXPOSE 20128

# Anonymous /api/health answers 200 while the database answers.
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 20128) + '/api/health', { signal: AbortSignal.timeout(5000) }).then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))"]

STOPSIGNAL SIGTERM
CMD ["node", "--import", "tsx", "workers/src/runtime/node/node.ts"]
