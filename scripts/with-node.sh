#!/usr/bin/env bash
# Runs a command under a Node.js this project supports (package.json engines: 22.15 or newer).
# The machine's own node when it is new enough; otherwise Node 22 from the npm registry — the `node`
# package, which installs the official binary for this platform — kept once under
# $WSA_NODE_HOME (default ~/.cache/wsa-node22) and put first on PATH, so npm and everything it
# starts run on it. With no command it prints the directory of the node it chose (for PATH).
#
#   scripts/with-node.sh npm install && scripts/with-node.sh npm start
set -euo pipefail

NODE_PACKAGE_VERSION=22.23.3
home="${WSA_NODE_HOME:-$HOME/.cache/wsa-node22}"
bin="$home/node_modules/node/bin"

# Whether the given node runs here and is 22.15 or newer.
supported() {
  "$1" -e 'const [major, minor] = process.versions.node.split(".").map(Number); process.exit(major > 22 || (major === 22 && minor >= 15) ? 0 : 1)' \
    >/dev/null 2>&1
}

if ! { command -v node >/dev/null 2>&1 && supported node; }; then
  if ! supported "$bin/node"; then
    echo "with-node: node $(node --version 2>/dev/null || echo 'is missing'); installing Node $NODE_PACKAGE_VERSION from the npm registry into $home" >&2
    npm install --prefix "$home" --no-save --no-audit --no-fund --loglevel=error "node@$NODE_PACKAGE_VERSION" >&2
    supported "$bin/node" || { echo "with-node: the downloaded $bin/node does not run on this machine" >&2; exit 1; }
  fi
  export PATH="$bin:$PATH"
fi

if [ $# -eq 0 ]; then
  dirname "$(command -v node)"
else
  exec "$@"
fi
