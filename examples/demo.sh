#!/usr/bin/env bash
# Runs mcpdecl against go-httpbin on this machine, and against the SQLite
# shop example: no account, no network beyond loopback (Go fetches the
# modules on the first run).
set -euo pipefail
cd "$(dirname "$0")/.."

bin=$(mktemp -d)
trap 'kill "${upstream:-}" 2>/dev/null || true; rm -rf "$bin"' EXIT
go build -o "$bin/mcpdecl" ./cmd/mcpdecl
go build -o "$bin/upstream" ./examples/upstream
# go-httpbin on a free port: the upstream prints its URL once it listens, and
# the demo talks to that URL only, never to whatever else listens here.
"$bin/upstream" >"$bin/upstream.url" 2>"$bin/upstream.log" &
upstream=$!
url=
for _ in $(seq 100); do
  url=$(head -n 1 "$bin/upstream.url")
  [ -n "$url" ] && break
  kill -0 "$upstream" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$url" ]; then
  echo "FAIL: the local go-httpbin upstream did not start:" >&2
  cat "$bin/upstream.log" >&2
  exit 1
fi

export PATH="$bin:$PATH"
set -x
mcpdecl validate examples/httpbin.hcl --var base_url="$url"
mcpdecl list examples/httpbin.hcl --var base_url="$url"
mcpdecl call examples/httpbin.hcl echo '{"message": "hello/../world", "tags": ["a", "b"]}' --var base_url="$url"
mcpdecl call examples/httpbin.hcl status '{"code": 503}' --var base_url="$url" || echo "(exit code $?: a tool error, as error_if says)"
mcpdecl call examples/shop.hcl top_products '{"limit": 3}' --var shop_db="$bin/shop.db"
