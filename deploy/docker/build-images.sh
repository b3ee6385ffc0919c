#!/usr/bin/env bash
# Builds the two self-hosting images from a prepared context (build-context.sh):
#   ${SKILLGATE_API_IMAGE:-skillgate/api:latest}                    (api.Dockerfile)
#   ${SKILLGATE_SANDBOX_HOST_IMAGE:-skillgate/sandbox-host:latest}  (sandbox-host.Dockerfile)
# FROM ${BASE_IMAGE:-node:22-bookworm-slim}: any image with Node.js 22 at `node` on the PATH and
# the same platform as this machine (the context's node_modules are installed here), e.g. the
# local skillgate-local/node:latest of `npm run sandbox:images` on a machine without a registry.
# Works with the classic builder (no BuildKit features are used).
# Usage: [BASE_IMAGE=...] bash deploy/docker/build-images.sh
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CONTEXT="$REPO/dist/docker-context"
BASE_IMAGE="${BASE_IMAGE:-node:22-bookworm-slim}"
API_IMAGE="${SKILLGATE_API_IMAGE:-skillgate/api:latest}"
HOST_IMAGE="${SKILLGATE_SANDBOX_HOST_IMAGE:-skillgate/sandbox-host:latest}"

bash "$REPO/deploy/docker/build-context.sh" "$CONTEXT"
for spec in "api.Dockerfile=$API_IMAGE" "sandbox-host.Dockerfile=$HOST_IMAGE"; do
  dockerfile="${spec%%=*}"
  tag="${spec#*=}"
  echo "building $tag FROM $BASE_IMAGE"
  # The classic builder prints a deprecation notice on stderr; the image id goes to stdout.
  docker build --quiet --build-arg "BASE_IMAGE=$BASE_IMAGE" -f "$CONTEXT/$dockerfile" -t "$tag" \
    "$CONTEXT" 2> >(grep -v -e DEPRECATED -e buildx -e 'docs.docker.com/go/buildx' -e '^\s*$' >&2)
done
# Images a rebuild left untagged (same title label) are removed.
for title in skillgate-api skillgate-sandbox-host; do
  docker image prune --force --filter "label=org.opencontainers.image.title=$title" >/dev/null
done
echo "built $API_IMAGE and $HOST_IMAGE"
