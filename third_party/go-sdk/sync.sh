#!/usr/bin/env bash
# Rebuilds third_party/go-sdk/src from the official go-sdk release named in
# VERSION, keeping only the packages mcpdecl builds with (no tests, examples
# or docs), then applies patches/*.patch in name order. With --check, it
# rebuilds into a temporary directory and fails when src differs: CI runs
# that, so the copy is always exactly the release plus the patches.
set -euo pipefail
cd "$(dirname "$0")"
version=$(cat VERSION)
module=github.com/modelcontextprotocol/go-sdk
packages=(auth internal/authutil internal/json internal/jsonrpc2 internal/mcpgodebug internal/util internal/xcontext jsonrpc mcp oauthex)

dest=src
if [ "${1:-}" = --check ]; then
  dest=$(mktemp -d)/src
  trap 'rm -rf "$(dirname "$dest")"' EXIT
fi

orig=$(GOFLAGS=-mod=mod go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$orig" ] || { echo "FAIL: cannot download $module@$version" >&2; exit 1; }

rm -rf "$dest"
mkdir -p "$dest"
cp "$orig/go.mod" "$orig/LICENSE" "$dest/"
for p in "${packages[@]}"; do
  mkdir -p "$dest/$p"
  for f in "$orig/$p"/*.go; do
    case "$f" in *_test.go) continue ;; esac
    cp "$f" "$dest/$p/"
  done
done
chmod -R u+w "$dest"
for patch in patches/*.patch; do
  patch --quiet -d "$dest" -p1 < "$patch"
done

if [ "${1:-}" = --check ]; then
  if ! diff -r src "$dest" >/dev/null; then
    echo "FAIL: third_party/go-sdk/src is not $module@$version plus patches/; run third_party/go-sdk/sync.sh" >&2
    diff -r src "$dest" | head -20 >&2
    exit 1
  fi
  echo "third_party/go-sdk/src is $module@$version plus $(ls patches/*.patch | wc -l) patch(es)"
fi
