#!/usr/bin/env bash
# Builds the local sandbox images from binaries already on this machine, for offline use
# (docs/deployment.md#sandbox-images):
#   skillgate-local/busybox:latest  static busybox (shell image, execute_command)
#   skillgate-local/python:latest   the system CPython (/usr/bin/python3.X) + its stdlib + busybox
#   skillgate-local/node:latest     the Node binary of this repository's node_modules + busybox, and
#                                   the shared libraries of the embedded libSQL engine's addon, so
#                                   the API and sandbox host images (deploy/docker) can use it as
#                                   their base
#   skillgate-local/browser:latest  the node image's contents plus Debian's Chromium
#                                   (/usr/lib/chromium), its shared libraries, the NSS modules it
#                                   loads at run time, the DejaVu/Liberation fonts and this
#                                   repository's playwright-core (/opt/playwright-core): the image of
#                                   the `browser` builtin (docs/sandbox.md#the-browser-builtin)
# Idempotent: an image that already exists and was built by the current version of these scripts
# (label org.skillgate.recipe) is skipped unless --force (or SKILLGATE_IMAGES_FORCE=1) is given.
# Needs a running Docker engine; uses no registry.
# Overrides: SKILLGATE_BUSYBOX_BIN, SKILLGATE_PYTHON_BIN, SKILLGATE_NODE_BIN, SKILLGATE_CHROMIUM_DIR.
# Usage: bash sandbox-host/images/build.sh [--force] [busybox|python|node|browser ...]
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
# shellcheck source=rootfs.sh
. "$HERE/rootfs.sh"

force="${SKILLGATE_IMAGES_FORCE:-0}"
targets=()
for arg in "$@"; do
  case "$arg" in
    --force | -f) force=1 ;;
    busybox | python | node | browser) targets+=("$arg") ;;
    *)
      echo "usage: build.sh [--force] [busybox|python|node|browser ...]" >&2
      exit 2
      ;;
  esac
done
[ "${#targets[@]}" -gt 0 ] || targets=(busybox python node browser)

if ! docker info >/dev/null 2>&1; then
  echo "build.sh: the Docker engine is not reachable (is dockerd running?)" >&2
  exit 1
fi

workdir="$(mktemp -d)"
trap 'rm -rf "$workdir"' EXIT

find_busybox() {
  local bin="${SKILLGATE_BUSYBOX_BIN:-$(command -v busybox || true)}"
  if [ -z "$bin" ] || [ ! -x "$bin" ]; then
    echo "build.sh: busybox not found (install busybox-static or set SKILLGATE_BUSYBOX_BIN)" >&2
    exit 1
  fi
  echo "$bin"
}

# The distribution's CPython (never a pyenv shim): the newest /usr/bin/python3.N.
find_python() {
  if [ -n "${SKILLGATE_PYTHON_BIN:-}" ]; then
    echo "$SKILLGATE_PYTHON_BIN"
    return
  fi
  local bin
  bin="$(find /usr/bin -maxdepth 1 -regex '.*/python3\.[0-9]+$' -type f | sort -V | tail -n 1)"
  if [ -z "$bin" ]; then
    echo "build.sh: no /usr/bin/python3.N found (install python3 or set SKILLGATE_PYTHON_BIN)" >&2
    exit 1
  fi
  echo "$bin"
}

# The Node binary the repository's npm scripts use (the `node` devDependency), else PATH's node.
find_node() {
  local bin="${SKILLGATE_NODE_BIN:-}"
  if [ -z "$bin" ] && [ -e "$REPO/node_modules/.bin/node" ]; then
    bin="$(readlink -f "$REPO/node_modules/.bin/node")"
  fi
  [ -n "$bin" ] || bin="$(readlink -f "$(command -v node)")"
  if [ ! -x "$bin" ]; then
    echo "build.sh: node binary not found (set SKILLGATE_NODE_BIN)" >&2
    exit 1
  fi
  echo "$bin"
}

build_busybox() {
  local root="$workdir/busybox"
  rootfs_base "$root"
  add_busybox "$root" "$(find_busybox)"
  import_rootfs "$root" "$1"
}

build_python() {
  local root="$workdir/python" py stdlib dynload version
  py="$(find_python)"
  version="$("$py" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
  stdlib="$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')"
  dynload="$("$py" -c 'import sysconfig; print(sysconfig.get_config_var("DESTSHARED") or "")')"
  rootfs_base "$root"
  add_busybox "$root" "$(find_busybox)"
  copy_path "$root" "$py"
  copy_libs "$root" "$py"
  mkdir -p "$root$(dirname "$stdlib")"
  # The standard library without the test suite, site-packages and dangling distribution links.
  tar -C "$(dirname "$stdlib")" --exclude='./*/test' --exclude='./*/site-packages' \
    --exclude='./*/dist-packages' --exclude='./*/idlelib' --exclude='./*/tkinter' \
    -cf - "./$(basename "$stdlib")" | tar -C "$root$(dirname "$stdlib")" -xf -
  find "$root$stdlib" -xtype l -delete
  if [ -n "$dynload" ] && [ -d "$dynload" ]; then
    copy_libs "$root" "$dynload"/*.so
  fi
  ln -sfn "$(basename "$py")" "$root$(dirname "$py")/python3"
  ln -sfn "$(basename "$py")" "$root$(dirname "$py")/python"
  echo "python $version from $py"
  import_rootfs "$root" "$1"
}

build_node() {
  local root="$workdir/node" node addon
  node="$(find_node)"
  rootfs_base "$root"
  add_busybox "$root" "$(find_busybox)"
  cp -f "$node" "$root/usr/local/bin/node"
  chmod 0755 "$root/usr/local/bin/node"
  copy_libs "$root" "$node"
  # The libSQL addon needs a few more glibc libraries than node (librt, ...).
  while IFS= read -r addon; do
    copy_libs "$root" "$addon"
  done < <(find "$REPO/node_modules/@libsql" -name '*.node' -path '*gnu*' 2>/dev/null)
  echo "node $("$node" --version) from $node"
  import_rootfs "$root" "$1"
}

# Debian's Chromium (package `chromium`): the binary and its resources live in /usr/lib/chromium.
find_chromium() {
  local dir="${SKILLGATE_CHROMIUM_DIR:-/usr/lib/chromium}"
  if [ ! -x "$dir/chromium" ]; then
    echo "build.sh: $dir/chromium not found (apt-get install chromium, or set SKILLGATE_CHROMIUM_DIR)" >&2
    exit 1
  fi
  echo "$dir"
}

build_browser() {
  local root="$workdir/browser" node chromium multiarch lib pw
  node="$(find_node)"
  chromium="$(find_chromium)"
  pw="$REPO/node_modules/playwright-core"
  if [ ! -f "$pw/package.json" ]; then
    echo "build.sh: $pw not found (run npm install)" >&2
    exit 1
  fi
  rootfs_base "$root"
  add_busybox "$root" "$(find_busybox)"
  cp -f "$node" "$root/usr/local/bin/node"
  chmod 0755 "$root/usr/local/bin/node"
  copy_libs "$root" "$node"
  # Chromium without the translations it does not need (en-US only).
  mkdir -p "$root$chromium"
  tar -C "$chromium" --exclude='./locales' -cf - . | tar -C "$root$chromium" -xf -
  mkdir -p "$root$chromium/locales"
  cp -f "$chromium/locales/en-US.pak" "$root$chromium/locales/"
  copy_libs "$root" "$chromium/chromium" "$chromium/chrome_crashpad_handler" "$chromium"/*.so*
  # NSS loads its crypto modules with dlopen (TLS fails without them); ldd does not list them.
  multiarch="$(dirname "$(ldd "$chromium/chromium" | awk '/libnss3/ { print $3 }')")"
  for lib in libsoftokn3 libfreebl3 libfreeblpriv3 libnssckbi libnssdbm3; do
    for file in "$multiarch/$lib".so "$multiarch/$lib".chk; do
      [ -e "$file" ] && copy_path "$root" "$file" && copy_libs "$root" "$file"
    done
  done
  # Fonts and the fontconfig configuration, so that text renders in screenshots.
  mkdir -p "$root/usr/share/fonts" "$root/etc"
  cp -a /etc/fonts "$root/etc/fonts"
  for lib in dejavu liberation; do
    [ -d "/usr/share/fonts/truetype/$lib" ] && mkdir -p "$root/usr/share/fonts/truetype" &&
      cp -a "/usr/share/fonts/truetype/$lib" "$root/usr/share/fonts/truetype/"
  done
  # playwright-core (no dependencies of its own) drives Chromium over CDP.
  mkdir -p "$root/opt"
  cp -a "$pw" "$root/opt/playwright-core"
  echo "chromium $("$chromium/chromium" --version 2>/dev/null | head -n 1), playwright-core $(sed -n 's/^ *"version": "\(.*\)",/\1/p' "$pw/package.json")"
  import_rootfs "$root" "$1"
}

for target in "${targets[@]}"; do
  image="skillgate-local/$target:latest"
  built_by="$(docker image inspect -f '{{ index .Config.Labels "org.skillgate.recipe" }}' "$image" 2>/dev/null || true)"
  if [ "$force" != "1" ] && [ "$built_by" = "$SKILLGATE_RECIPE" ]; then
    echo "$image exists (use --force to rebuild)"
    continue
  fi
  [ -z "$built_by" ] || [ "$built_by" = "$SKILLGATE_RECIPE" ] || echo "$image was built by other scripts; rebuilding"
  echo "building $image"
  old_id="$(docker image inspect -f '{{.Id}}' "$image" 2>/dev/null || true)"
  "build_$target" "$image"
  new_id="$(docker image inspect -f '{{.Id}}' "$image")"
  # A forced rebuild leaves the previous image untagged; drop it unless something still uses it.
  if [ -n "$old_id" ] && [ "$old_id" != "$new_id" ]; then
    docker image rm "$old_id" >/dev/null 2>&1 || true
  fi
  echo "built $image ($(docker image inspect -f '{{.Size}}' "$image" | awk '{ printf "%.0f MB", $1 / 1000000 }'))"
done
