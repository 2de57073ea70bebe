#!/usr/bin/env bash
# Runs the official MCP conformance suite against `mcpdecl serve --http` on
# conformance/tools.hcl, for each required revision, with the baselines in
# conformance/. Node 22 and the suite come from npm (see node.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

source .ci/node.sh

work=$(mktemp -d)
trap 'kill "${server:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/mcpdecl" ./cmd/mcpdecl
start_http "$work/mcpdecl" "$work/serve.log" conformance/tools.hcl
server=$SERVER_PID
url=$SERVER_URL

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
