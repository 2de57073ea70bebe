#!/usr/bin/env bash
# Runs mcpdecl against go-httpbin on this machine: no account, no network
# beyond loopback (Go fetches the modules on the first run).
set -euo pipefail
cd "$(dirname "$0")/.."

port=8099
go build -o "${TMPDIR:-/tmp}/mcpdecl-demo" ./cmd/mcpdecl
go build -o "${TMPDIR:-/tmp}/go-httpbin-demo" github.com/mccutchen/go-httpbin/v2/cmd/go-httpbin
"${TMPDIR:-/tmp}/go-httpbin-demo" -host 127.0.0.1 -port "$port" >/dev/null 2>&1 &
httpbin=$!
trap 'kill $httpbin 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done

mcpdecl() { "${TMPDIR:-/tmp}/mcpdecl-demo" "$@"; }
set -x
mcpdecl validate examples/httpbin.hcl
mcpdecl list examples/httpbin.hcl
mcpdecl call examples/httpbin.hcl echo '{"message": "hello/../world", "tags": ["a", "b"]}'
mcpdecl call examples/httpbin.hcl status '{"code": 503}' || echo "(exit code $?: a tool error, as error_if says)"
