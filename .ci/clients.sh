#!/usr/bin/env bash
# Real MCP clients against mcpdecl, over stdio and over HTTP: the MCP
# Inspector's CLI lists and calls the tools of an example and reads a
# resource and gets a prompt of another, and scripts on the official
# TypeScript SDK's client check every structured result against its
# outputSchema, read resources, get a prompt and complete an argument, and
# call an imported tool whose inputSchema refers to its $defs.
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/node.sh

work=$(mktemp -d)
trap 'kill "${SYSTEM_PID:-}" "${SHOP_PID:-}" "${SERVER_PID:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/mcpdecl" ./cmd/mcpdecl
start_http "$work/mcpdecl" "$work/serve.log" examples/system.hcl
SYSTEM_PID=$SERVER_PID

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

# Resources, templates, prompts and completions, on the shop example.
start_http "$work/mcpdecl" "$work/shop.log" --var "shop_db=$work/shop.db" examples/shop.hcl
SHOP_PID=$SERVER_PID
shop=(serve --var "shop_db=$work/shop.db" examples/shop.hcl)
out=$(mcp-inspector --cli "$work/mcpdecl" "${shop[@]}" --method resources/read --uri shop://products/KET-010 2>/dev/null)
expect "inspector, stdio, resources/read" 'Gooseneck kettle' "$out"
out=$(mcp-inspector --cli "$work/mcpdecl" "${shop[@]}" --method prompts/get --prompt-name customer_report --prompt-args email=ada@example.com 2>/dev/null)
expect "inspector, stdio, prompts/get" 'ada@example.com' "$out"
out=$(mcp-inspector --cli "$SERVER_URL" --transport http --method resources/list 2>/dev/null)
expect "inspector, http, resources/list" 'shop://catalog' "$out"
out=$(mcp-inspector --cli "$SERVER_URL" --transport http --method prompts/list 2>/dev/null)
expect "inspector, http, prompts/list" 'customer_report' "$out"
cp clients/served.mjs "$NODE_TOOLS/served.mjs"
node "$NODE_TOOLS/served.mjs" "$work/mcpdecl" "$SERVER_URL" "$work/shop.db"
# Confirmation (elicitation): accepted, declined, dismissed, over stdio.
cp clients/confirm.mjs "$NODE_TOOLS/confirm.mjs"
node "$NODE_TOOLS/confirm.mjs" "$work/mcpdecl" "$SERVER_URL" "$work/confirm.db"
# Sampling: the client's model answers classify_feedback over stdio; a
# client without the capability, and one over stateless HTTP, are refused.
cp clients/sample.mjs "$NODE_TOOLS/sample.mjs"
node "$NODE_TOOLS/sample.mjs" "$work/mcpdecl" "$SERVER_URL" "$work/sample.db"

# An imported API whose tools' inputSchema refer to their $defs: the
# Inspector lists them, and the SDK's client validates nested arguments
# against them and calls; an older revision is listed them inlined.
mkdir "$work/pets"
"$work/mcpdecl" import openapi importer/openapi/testdata/petstore.yaml -o "$work/pets/pets.hcl" >/dev/null
start_http "$work/mcpdecl" "$work/pets.log" "$work/pets"
out=$(mcp-inspector --cli "$work/mcpdecl" serve "$work/pets" --method tools/list 2>/dev/null)
expect "inspector, stdio, tools/list with \$defs" '"\$ref": "#/\$defs/Owner"' "$out"
cp clients/defs.mjs "$NODE_TOOLS/defs.mjs"
node "$NODE_TOOLS/defs.mjs" "$work/mcpdecl" "$work/pets" "$SERVER_URL"
