#!/usr/bin/env bash
# Helpers that assemble a minimal root filesystem out of binaries already installed on this
# machine (docs/deployment.md#sandbox-images: no image registry is needed, images are built with
# `docker import`). Sourced by build.sh; every function takes the rootfs directory first.
set -euo pipefail

# rootfs_base ROOT — directory skeleton, an unprivileged `nobody` user (uid/gid 65534, the user the
# sandbox host runs code as) and empty mount points for the tmpfs mounts (/tmp, /workspace).
rootfs_base() {
  local root="$1"
  mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,lib,lib64,etc,tmp,workspace,proc,sys,dev}
  chmod 1777 "$root/tmp"
  chmod 0777 "$root/workspace"
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/workspace:/bin/sh\n' >"$root/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
  # Names resolve from /etc/hosts, then DNS (glibc ≥ 2.34 has the DNS module built in): the
  # engine's resolver on user-defined networks, e.g. a compose service name.
  printf 'hosts: files dns\n' >"$root/etc/nsswitch.conf"
  printf '127.0.0.1 localhost\n' >"$root/etc/hosts"
}

# copy_path ROOT PATH — copies PATH into ROOT at the same location, resolving symlinks for the
# file itself but recreating the symlink chain so the original name keeps working.
copy_path() {
  local root="$1" path="$2"
  local real
  real="$(readlink -f "$path")"
  mkdir -p "$root$(dirname "$real")"
  cp -f "$real" "$root$real"
  if [ "$real" != "$path" ]; then
    mkdir -p "$root$(dirname "$path")"
    ln -sfn "$real" "$root$path"
  fi
}

# copy_libs ROOT FILE... — copies the shared libraries `ldd` lists for each FILE (plus the dynamic
# loader) into ROOT. Static binaries have no libraries and are skipped.
copy_libs() {
  local root="$1"
  shift
  local lib
  for file in "$@"; do
    if ! ldd "$file" >/dev/null 2>&1; then
      continue
    fi
    while read -r lib; do
      [ -n "$lib" ] && [ -e "$lib" ] && copy_path "$root" "$lib"
    done < <(ldd "$file" 2>/dev/null | awk '/=>/ { print $3 } /^[[:space:]]*\/[^ ]*ld-linux/ { print $1 }')
  done
}

# add_busybox ROOT BUSYBOX — installs a busybox binary as /bin/busybox with one symlink per applet
# in /bin (sh, ls, cat, sleep, ...), without overwriting files already present.
add_busybox() {
  local root="$1" busybox="$2"
  cp -f "$(readlink -f "$busybox")" "$root/bin/busybox"
  chmod 0755 "$root/bin/busybox"
  copy_libs "$root" "$root/bin/busybox"
  local applet
  for applet in $("$busybox" --list); do
    case "$applet" in
      busybox | */*) continue ;;
    esac
    [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
  done
}

# Version of these image scripts (a digest of build.sh and this file): images carry it as the label
# org.skillgate.recipe, and build.sh rebuilds an image built by another version.
SKILLGATE_RECIPE="$(cat "$(dirname "${BASH_SOURCE[0]}")/build.sh" "${BASH_SOURCE[0]}" | sha256sum | cut -c1-16)"

# import_rootfs ROOT IMAGE — packs ROOT (owned by root, readable by everyone) and imports it as
# IMAGE with a PATH and a working directory; labels it as a Skillgate local image.
import_rootfs() {
  local root="$1" image="$2"
  chmod -R a+rX "$root"
  tar --numeric-owner --owner=0 --group=0 -C "$root" -cf - . |
    docker import \
      --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      --change 'WORKDIR /workspace' \
      --change 'LABEL org.skillgate.local-image=1' \
      --change "LABEL org.skillgate.recipe=$SKILLGATE_RECIPE" \
      - "$image" >/dev/null
}
