#!/usr/bin/env bash
# Rebuilds third_party/DIR/src, for each DIR given (every one with a
# MODULE file when none is), from the release of the module named in
# DIR/MODULE at the version in DIR/VERSION, keeping only the packages
# listed in DIR/PACKAGES (their .go files, no tests, examples or docs),
# then applies DIR/patches/*.patch in name order. With --check, it
# rebuilds into a temporary directory and fails when src differs: CI runs
# that, so each copy is always exactly the release plus its patches.
#
# With --test, it runs the release's own tests of the PACKAGES against
# DIR/src, in a temporary module outside the tree: the release as the
# module cache holds it (tests and testdata included), with the PACKAGES'
# .go files taken from src, its requirements raised to the versions the
# root go.mod selects, and the other copies here replacing their modules,
# as in mcpdecl's build. DIR/tests.sh, when there is one, says which tests
# are skipped or adapted: those that check what a patch deliberately
# changes, and those that fail on the release too. Fails when a test
# fails. GOTESTFLAGS adds flags to go test (CI: -race -timeout 5m).
#
#   third_party/sync.sh [--check | --test] [DIR...]
set -euo pipefail
cd "$(dirname "$0")"

check=
test=
case "${1:-}" in
  --check) check=1; shift ;;
  --test) test=1; shift ;;
esac
dirs=("$@")
if [ ${#dirs[@]} -eq 0 ]; then
  for f in */MODULE; do dirs+=("$(dirname "$f")"); done
fi

# skip REGEXP (in DIR/tests.sh): go test -skip REGEXP. Entries are joined
# with |, so an entry keeps its own alternatives in parentheses.
skip() { skips+=("$1"); }

# adapt SED-SCRIPT FILE... (in DIR/tests.sh): edits the release's FILEs in
# the temporary module; fails when a FILE is left unchanged, so that an
# adaptation the release no longer needs is noticed and dropped.
adapt() {
  local script=$1 f
  shift
  for f in "$@"; do
    cp "$mod/$f" "$tmp/before"
    sed -i -e "$script" "$mod/$f"
    if cmp -s "$tmp/before" "$mod/$f"; then
      echo "FAIL: third_party/$dir/tests.sh: '$script' changes nothing in $f; drop or fix that line" >&2
      exit 1
    fi
  done
}

# run_tests DIR MODULE VERSION PACKAGE...: see --test above.
run_tests() {
  local dir=$1 module=$2 version=$3
  shift 3
  local root mod orig p d reqs skips=() edits=() pkgs=()
  root=$(cd .. && pwd)
  mod=$tmp/test/$dir
  orig=$(GOFLAGS=-mod=mod go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -d "$orig" ] || { echo "FAIL: cannot download $module@$version" >&2; exit 1; }
  mkdir -p "$mod"
  cp -R "$orig/." "$mod/"
  chmod -R u+w "$mod"
  cp "$dir/src/go.mod" "$mod/go.mod"
  for p in "$@"; do
    [ -n "$p" ] || continue
    find "$mod/$p" -maxdepth 1 -name '*.go' ! -name '*_test.go' -delete
    cp "$dir/src/$p"/*.go "$mod/$p/"
    pkgs+=("./$p")
  done
  reqs=$(cd "$mod" && go mod edit -json | sed -n 's/^\t\t\t"Path": "\(.*\)",$/\1/p')
  mapfile -t edits < <(cd .. && go list -m -e -f '{{if .Version}}-require={{.Path}}@{{.Version}}{{end}}' $reqs)
  for d in */MODULE; do
    d=$(dirname "$d")
    [ "$d" = "$dir" ] || edits+=("-replace=$(cat "$d/MODULE")=$root/third_party/$d/src")
  done
  (cd "$mod" && go mod edit "${edits[@]}")
  cat ../go.sum >> "$mod/go.sum"
  sort -u -o "$mod/go.sum" "$mod/go.sum"
  if [ -f "$dir/tests.sh" ]; then
    source "$dir/tests.sh"
  fi
  echo "== $module@$version's own tests against third_party/$dir/src (skipping ${#skips[@]} pattern(s) of $dir/tests.sh)"
  (
    cd "$mod"
    export GOFLAGS="${GOFLAGS:-} -mod=mod"
    # shellcheck disable=SC2086 # GOTESTFLAGS is a list of flags
    go test -count=1 ${GOTESTFLAGS:-} ${skips:+-skip "$(IFS='|'; echo "${skips[*]}")"} "${pkgs[@]}"
  )
}

tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
for dir in "${dirs[@]}"; do
  dir=${dir%/}
  module=$(cat "$dir/MODULE")
  version=$(cat "$dir/VERSION")
  mapfile -t packages < "$dir/PACKAGES"

  if [ -n "$test" ]; then
    run_tests "$dir" "$module" "$version" "${packages[@]}"
    continue
  fi

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
