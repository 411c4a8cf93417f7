#!/usr/bin/env bash
# Build wdgate's container image with podman, with or without a container registry.
#
#   bash scripts/build-image.sh [--tag wdgate:0.1.0] [--base-only] [--new-base]
#
# The Dockerfile starts FROM the official Node image (docker.io/library/node:20-bookworm-slim).
# Where it is already in local storage (pulled, or made by an earlier run) the build uses it and
# never asks a registry (--pull=never). Where it is not, this script makes a stand-in of it from
# Debian's packages and this machine's Node, and stores it under the same name:
#   - Debian 12 (bookworm, with its updates and security archives) as mmdebstrap's minbase, slimmed
#     as Debian's official images are (no manuals, no documentation but copyrights, no locales);
#   - Node in /usr/local (node, npm, npx), as the official image installs it: this machine's own
#     Node, which must be 20.x (the name says 20) and at least 20.15 (package.json's engines);
#   - the official image's user `node` (uid 1000), its PATH and its CMD ["node"].
# It has no yarn (the official image has; wdgate does not use it). The stand-in is labelled
# wdgate.stand-in=true; `podman rmi docker.io/library/node:20-bookworm-slim` lets a later run
# (or a pull) replace it. Needs root, podman, mmdebstrap and Debian's archive (scripts/setup.sh
# installs them). --base-only stops after the base; --new-base makes the stand-in again.
set -euo pipefail
cd "$(dirname "$0")/.."

TAG="wdgate:$(node -p 'require("./package.json").version')"
BASE_ONLY=""
NEW_BASE=""
while [ $# -gt 0 ]; do
  case "$1" in
    --tag) TAG="$2"; shift 2 ;;
    --base-only) BASE_ONLY=1; shift ;;
    --new-base) NEW_BASE=1; shift ;;
    *) echo "usage: $0 [--tag name:version] [--base-only] [--new-base]" >&2; exit 2 ;;
  esac
done

BASE="$(sed -n 's/^FROM \([^ ]*\).*/\1/p' Dockerfile | head -n 1)"
case "$BASE" in
  docker.io/library/node:20-bookworm-slim) ;;
  *) echo "build-image: the Dockerfile's base is $BASE; this script knows how to stand in for docker.io/library/node:20-bookworm-slim only" >&2; exit 1 ;;
esac

make_base() {
  command -v mmdebstrap >/dev/null || { echo "build-image: mmdebstrap is missing (bash scripts/setup.sh installs it)" >&2; exit 1; }
  local node npm_dir version work
  node="$(readlink -f "$(command -v node)")"
  version="$("$node" -p 'process.versions.node')"
  if ! "$node" -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a === 20 && b >= 15 ? 0 : 1)'; then
    echo "build-image: $BASE stands for Node 20 (at least 20.15); this machine's Node is $version: install Node 20 (scripts/setup.sh says how) or pull the official image" >&2
    exit 1
  fi
  npm_dir="$(npm root -g)/npm"
  [ -f "$npm_dir/bin/npm-cli.js" ] || { echo "build-image: npm is not at $npm_dir" >&2; exit 1; }
  work="$(mktemp -d /var/tmp/wdgate-base.XXXXXX)"
  trap 'rm -rf "$work"' RETURN
  echo "build-image: making a stand-in of $BASE: Debian bookworm (mmdebstrap minbase) with this machine's Node $version"
  mmdebstrap --variant=minbase --quiet \
    --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-include=/usr/share/locale/locale.alias' \
    --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/lintian/*' \
    --customize-hook="copy-in $node /usr/local/bin" \
    --customize-hook="mkdir -p \"\$1/usr/local/lib/node_modules/npm\"" \
    --customize-hook="sync-in $npm_dir /usr/local/lib/node_modules/npm" \
    --customize-hook='ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm"' \
    --customize-hook='ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"' \
    --customize-hook='chroot "$1" groupadd --gid 1000 node' \
    --customize-hook='chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node' \
    --customize-hook='chroot "$1" node --version' \
    bookworm "$work/rootfs.tar" \
    'deb http://deb.debian.org/debian bookworm main' \
    'deb http://deb.debian.org/debian bookworm-updates main' \
    'deb http://deb.debian.org/debian-security bookworm-security main'
  podman rmi --force "$BASE" >/dev/null 2>&1 || true
  podman import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "ENV NODE_VERSION=$version" \
    --change 'CMD ["node"]' \
    --change 'LABEL wdgate.stand-in=true' \
    --message "stand-in of $BASE: Debian bookworm minbase and Node $version (scripts/build-image.sh)" \
    "$work/rootfs.tar" "$BASE" >/dev/null
}

if [ -n "$NEW_BASE" ] || ! podman image exists "$BASE"; then
  make_base
else
  echo "build-image: using $BASE from local storage$(podman image inspect --format '{{if index .Labels "wdgate.stand-in"}} (the stand-in made from Debian'"'"'s packages){{end}}' "$BASE")"
fi
[ -n "$BASE_ONLY" ] && exit 0

# Layers are cached by podman: a rebuild with the same Dockerfile, setup.sh and package-lock.json
# reuses the browsers' and the npm packages' layers and copies only the sources again.
# --format docker keeps the HEALTHCHECK (the OCI format has none).
# npm inside the build trusts what npm trusts here: a registry reached through a proxy that signs
# with its own CA (npm's cafile, or NODE_EXTRA_CA_CERTS) has that list mounted for the build only.
mounts=()
cafile="$(npm config get cafile 2>/dev/null || true)"
[ -n "$cafile" ] && [ "$cafile" != "null" ] && [ "$cafile" != "undefined" ] || cafile="${NODE_EXTRA_CA_CERTS:-}"
if [ -n "$cafile" ] && [ -f "$cafile" ]; then
  mounts=(--volume "$(readlink -f "$cafile"):/run/wdgate-build/ca.crt:ro" --build-arg NODE_EXTRA_CA_CERTS=/run/wdgate-build/ca.crt)
fi
# What this machine already fetched is read from its caches, through overlays the build cannot
# change: Debian's packages (setup.sh installed the same browsers from the same archive) and npm's.
# apt takes a cached file only if it matches the archive's signed index, npm only if it matches
# package-lock.json's integrity hash; anything else is downloaded as without them. (Here: the
# packages' layer in 2 minutes instead of 3.)
if compgen -G '/var/cache/apt/archives/*.deb' >/dev/null; then mounts+=(--volume /var/cache/apt/archives:/var/cache/apt/archives:O); fi
npm_cache="$(npm config get cache 2>/dev/null || true)"
if [ -n "$npm_cache" ] && [ -d "$npm_cache/_cacache" ]; then mounts+=(--volume "$npm_cache:/root/.npm:O"); fi
previous="$(podman image inspect --format '{{.Id}}' "$TAG" 2>/dev/null || true)"
podman build --pull=never --format docker "${mounts[@]}" --tag "$TAG" .
current="$(podman image inspect --format '{{.Id}}' "$TAG")"
# The image this tag named before (and its layers no other image uses) goes.
if [ -n "$previous" ] && [ "$previous" != "$current" ]; then podman rmi "$previous" >/dev/null 2>&1 || true; fi
echo "build-image: built $TAG ($(podman image inspect --format '{{.Size}}' "$TAG" | awk '{ printf "%d MB", $1 / 1e6 }'))"
