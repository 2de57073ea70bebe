#!/usr/bin/env bash
# Rebuilds third_party/DIR/src, for each DIR given (every one with a
# MODULE file when none is), from the release of the module named in
# DIR/MODULE at the version in DIR/VERSION, keeping only the packages
# listed in DIR/PACKAGES (their .go files, no tests, examples or docs),
# then applies DIR/patches/*.patch in name order. With --check, it
# rebuilds into a temporary directory and fails when src differs: CI runs
# that, so each copy is always exactly the release plus its patches.
#
#   third_party/sync.sh [--check] [DIR...]
set -euo pipefail
cd "$(dirname "$0")"

check=
if [ "${1:-}" = --check ]; then
  check=1
  shift
fi
dirs=("$@")
if [ ${#dirs[@]} -eq 0 ]; then
  for f in */MODULE; do dirs+=("$(dirname "$f")"); done
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for dir in "${dirs[@]}"; do
  dir=${dir%/}
  module=$(cat "$dir/MODULE")
  version=$(cat "$dir/VERSION")
  mapfile -t packages < "$dir/PACKAGES"

  dest=$dir/src
  if [ -n "$check" ]; then
    dest=$tmp/$dir/src
  fi
  orig=$(GOFLAGS=-mod=mod go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -d "$orig" ] || { echo "FAIL: cannot download $module@$version" >&2; exit 1; }

  rm -rf "$dest"
  mkdir -p "$dest"
  cp "$orig/go.mod" "$orig/LICENSE" "$dest/"
  for p in "${packages[@]}"; do
    [ -n "$p" ] || continue
    mkdir -p "$dest/$p"
    for f in "$orig/$p"/*.go; do
      case "$f" in *_test.go) continue ;; esac
      cp "$f" "$dest/$p/"
    done
  done
  chmod -R u+w "$dest"
  for patch in "$dir"/patches/*.patch; do
    [ -e "$patch" ] || continue
    patch --quiet -d "$dest" -p1 < "$patch"
  done

  if [ -n "$check" ]; then
    if ! diff -r "$dir/src" "$dest" >/dev/null; then
      echo "FAIL: third_party/$dir/src is not $module@$version plus $dir/patches/; run third_party/sync.sh $dir" >&2
      diff -r "$dir/src" "$dest" | head -20 >&2
      exit 1
    fi
    echo "third_party/$dir/src is $module@$version plus $(find "$dir/patches" -name '*.patch' | wc -l) patch(es)"
  fi
done
