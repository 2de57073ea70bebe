#!/usr/bin/env bash
# Real MCP clients against mcpdecl, over stdio and over HTTP: the MCP
# Inspector's CLI lists and calls the tools of an example, and a script on
# the official TypeScript SDK's client checks every structured result
# against its outputSchema.
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/node.sh

work=$(mktemp -d)
trap 'kill "${SERVER_PID:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/mcpdecl" ./cmd/mcpdecl
start_http "$work/mcpdecl" "$work/serve.log" examples/system.hcl

expect() { # what, pattern, output
  if grep -q "$2" <<<"$3"; then echo "ok: $1"; else echo "FAIL: $1: no $2 in:" >&2; echo "$3" >&2; exit 1; fi
}
out=$(mcp-inspector --cli "$work/mcpdecl" serve examples/system.hcl --method tools/list 2>/dev/null)
expect "inspector, stdio, tools/list" '"name": "system_info"' "$out"
out=$(mcp-inspector --cli "$work/mcpdecl" serve examples/system.hcl --method tools/call --tool-name system_info 2>/dev/null)
expect "inspector, stdio, tools/call" '"kernel": "Linux"' "$out"
out=$(mcp-inspector --cli "$SERVER_URL" --transport http --method tools/list 2>/dev/null)
expect "inspector, http, tools/list" '"name": "disk_usage"' "$out"
out=$(mcp-inspector --cli "$SERVER_URL" --transport http --method tools/call --tool-name current_time 2>/dev/null)
expect "inspector, http, tools/call" '"structuredContent"' "$out"

cp clients/check.mjs "$NODE_TOOLS/check.mjs"
node "$NODE_TOOLS/check.mjs" "$work/mcpdecl" "$SERVER_URL"
