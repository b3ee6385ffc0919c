#!/usr/bin/env bash
# Writes the compose stack's settings file once (docs/deployment.md#compose): `deploy/.env`, which
# `docker compose -f deploy/compose.yaml …` reads by itself from any later shell, so `up`, `ps`,
# `logs` and `down` need no exported variables. It holds the compose project name (the stack's
# name on a shared engine), a generated SANDBOX_SECRET and the Docker socket's group. An existing
# file is kept as it is (its secret must not change under a running stack).
#   npm run docker:env              # deploy/.env
#   bash deploy/docker/init-env.sh path/to/file
set -euo pipefail
file="${1:-$(dirname "$0")/../.env}"
if [[ -e "$file" ]]; then
  echo "kept $file (delete it to generate a new one)"
  exit 0
fi
secret="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
gid="$(stat -c %g /var/run/docker.sock 2>/dev/null || echo 0)"
umask 077
cat >"$file" <<ENV
# Written once by deploy/docker/init-env.sh; read by docker compose from deploy/.
# The stack's name on this engine: containers, networks and volumes are prefixed with it.
COMPOSE_PROJECT_NAME=${COMPOSE_PROJECT_NAME:-skillgate}
# Shared by the API and the sandbox host; keep it while the stack runs.
SANDBOX_SECRET=$secret
DOCKER_GID=$gid
ENV
echo "wrote $file (project ${COMPOSE_PROJECT_NAME:-skillgate})"
