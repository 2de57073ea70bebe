#!/usr/bin/env bash
# Runs mcpdecl against go-httpbin on this machine, and against the SQLite
# shop example: no account, no network beyond loopback (Go fetches the
# modules on the first run).
set -euo pipefail
cd "$(dirname "$0")/.."

port=8099
bin=$(mktemp -d)
trap 'kill "${httpbin:-}" 2>/dev/null || true; rm -rf "$bin"' EXIT
go build -o "$bin/mcpdecl" ./cmd/mcpdecl
go build -o "$bin/go-httpbin" github.com/mccutchen/go-httpbin/v2/cmd/go-httpbin
"$bin/go-httpbin" -host 127.0.0.1 -port "$port" >/dev/null 2>&1 &
httpbin=$!
for _ in $(seq 50); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done

export PATH="$bin:$PATH"
set -x
mcpdecl validate examples/httpbin.hcl
mcpdecl list examples/httpbin.hcl
mcpdecl call examples/httpbin.hcl echo '{"message": "hello/../world", "tags": ["a", "b"]}'
mcpdecl call examples/httpbin.hcl status '{"code": 503}' || echo "(exit code $?: a tool error, as error_if says)"
mcpdecl call examples/shop.hcl top_products '{"limit": 3}' --var shop_db="$bin/shop.db"
