# Skillgate sandbox host (sandbox-host/src/main.ts): runs code in containers of the Docker engine
# whose socket is mounted at /var/run/docker.sock. Needs SANDBOX_SECRET (the API's secret) and
# membership of the socket's group (`--group-add <gid of the socket>`).
# Build context: the folder made by deploy/docker/build-context.sh, so the base image only needs
# Node.js 22 (no npm, no shell):
#   docker build -f sandbox-host.Dockerfile --build-arg BASE_IMAGE=node:22-bookworm-slim -t skillgate/sandbox-host <context>
ARG BASE_IMAGE=node:22-bookworm-slim
FROM ${BASE_IMAGE}

# The same first layers in both images, so building the second reuses them.
WORKDIR /app
COPY app/ /app/
LABEL org.opencontainers.image.title="skillgate-sandbox-host" \
      org.opencontainers.image.description="Skillgate sandbox host: signed HTTP in front of hardened Docker containers"

# Mount point of the browser socket volume (SANDBOX_BROWSER_SOCKET_VOLUME, see deploy/compose.yaml),
# owned by the unprivileged user with mode 0711: an empty named volume mounted here takes this
# owner and mode, so the host can create the per-browse socket directories in it (browser
# containers mount it read-only). Node instead of a shell: the base image need not have one.
RUN ["node", "-e", "const fs = require('node:fs'); const d = '/run/skillgate-egress'; fs.mkdirSync(d, { recursive: true }); fs.chownSync(d, 65534, 65534); fs.chmodSync(d, 0o711);"]

ENV NODE_ENV=production \
    SANDBOX_HOST=0.0.0.0 \
    SANDBOX_PORT=20129 \
    SANDBOX_DOCKER_SOCKET=/var/run/docker.sock
USER 65534:65534
EXPOSE 20129

# A signed GET /v1/health with the host's own secret; healthy while Docker answers.
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
  CMD ["node", "--import", "tsx", "sandbox-host/src/healthcheck.ts"]

# SIGTERM: the host kills every run and removes its containers before exiting.
STOPSIGNAL SIGTERM
CMD ["node", "--import", "tsx", "sandbox-host/src/main.ts"]
