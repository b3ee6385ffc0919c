#!/usr/bin/env bash
# Prepares the Docker build context of the API and sandbox host images (api.Dockerfile,
# sandbox-host.Dockerfile): the application sources (tracked files only: package files,
# packages/, workers/, sandbox-host/, migrations/) and their production dependencies, installed here with
# `npm ci --omit=dev` from the lockfile. The images then only copy this folder, so their base
# image needs Node.js and nothing else (no npm, no compiler, no shell).
#
# The dependencies are installed for this machine's platform: build on the same OS family and
# architecture as the base image (linux x64 glibc for the default node:22-bookworm-slim).
#
# Usage: bash deploy/docker/build-context.sh [DIR]     (default: dist/docker-context)
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${1:-$REPO/dist/docker-context}"

# Only what the two services run; tests, benchmarks and tooling stay out of the images.
SOURCES=(package.json package-lock.json packages workers sandbox-host migrations)

MARKER=".skillgate-docker-context"
if [ -e "$OUT" ] && [ ! -e "$OUT/$MARKER" ] && [ -n "$(ls -A "$OUT")" ]; then
  echo "build-context.sh: $OUT exists and is not a previous build context; choose another folder" >&2
  exit 1
fi
rm -rf "$OUT"
mkdir -p "$OUT/app"
touch "$OUT/$MARKER"
cd "$REPO"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  # Tracked and new (not ignored) files, so the context matches the working tree without .data/,
  # node_modules/ or build output.
  git ls-files -z --cached --others --exclude-standard -- "${SOURCES[@]}" |
    while IFS= read -r -d '' file; do [ -e "$file" ] && printf '%s\0' "$file"; done |
    tar --null -T - -cf - | tar -C "$OUT/app" -xf -
else
  tar --exclude=node_modules -cf - "${SOURCES[@]}" | tar -C "$OUT/app" -xf -
fi

cp deploy/docker/api.Dockerfile deploy/docker/sandbox-host.Dockerfile "$OUT/"
printf '%s\n' "$MARKER" >"$OUT/.dockerignore"

echo "installing production dependencies into $OUT/app/node_modules"
# --ignore-scripts: no dependency of the services needs an install script (native addons ship
# prebuilt per platform), and none may run arbitrary code at build time.
(cd "$OUT/app" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --prefer-offline --loglevel=error)
echo "docker build context ready: $OUT ($(du -sh "$OUT" | cut -f1))"
