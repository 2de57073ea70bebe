#!/usr/bin/env bash
# Run by .ci/run: the Windows build under Wine (Debian's package). It runs
# the exec adapter's Windows tests (arguments reach the program one by one;
# the Job Object kills the whole tree on timeout and on exit; batch files
# are refused), then the Windows mcpdecl.exe: version, validate, call of an
# HTTP tool against go-httpbin on this machine, and serve over stdio
# answering tools/list and tools/call of an HTTP and an exec tool.
#
# Debian 12's Wine 8 has no bcryptprimitives.dll, which Go's runtime needs
# to start: .ci/wine/bcryptprimitives.c stands in for it, built here with
# MinGW-w64. What Wine cannot show: that a Windows Job Object behaves
# like Windows' own (Wine implements jobs in its own server), Windows'
# console control events, and the Windows file system's rules (removing
# an open file, which Wine refuses as Windows does, but by another path).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v wine >/dev/null || ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
  echo "installing wine and MinGW-w64 (Debian's packages)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends wine wine64 gcc-mingw-w64-x86-64-win32 >/dev/null 2>&1 ||
    { apt-get update >/dev/null 2>&1 && apt-get install -y --no-install-recommends wine wine64 gcc-mingw-w64-x86-64-win32 >/dev/null 2>&1; } ||
    { echo "FAIL: could not install wine and MinGW-w64" >&2; exit 1; }
fi

work=$(mktemp -d)
upstream=
trap '[ -n "$upstream" ] && kill "$upstream" 2>/dev/null; wineserver -k 2>/dev/null || true; rm -rf "$work"' EXIT
export WINEPREFIX="$work/prefix" WINEDEBUG=-all WINEARCH=win64
fail() { echo "FAIL: $*" >&2; exit 1; }

x86_64-w64-mingw32-gcc -shared -O2 -o "$work/bcryptprimitives.dll" \
  .ci/wine/bcryptprimitives.c .ci/wine/bcryptprimitives.def -ladvapi32
GOOS=windows GOARCH=amd64 go test -c -o "$work/exec.test.exe" ./adapters/exec/
GOOS=windows GOARCH=amd64 go build -o "$work/mcpdecl.exe" ./cmd/mcpdecl
timeout 300 wineboot -i >/dev/null 2>&1 || fail "wineboot could not make a Wine prefix"
cp "$work/bcryptprimitives.dll" "$WINEPREFIX/drive_c/windows/system32/"

echo "exec's Windows tests under Wine"
(cd "$work" && timeout 300 wine ./exec.test.exe -test.v -test.run Windows) >"$work/exec.log" 2>&1 ||
  { cat "$work/exec.log"; fail "the exec adapter's Windows tests"; }
grep -E '^(--- |ok|PASS)' "$work/exec.log"

go build -o "$work/upstream" ./examples/upstream
"$work/upstream" -addr 127.0.0.1:0 >"$work/upstream.url" 2>"$work/upstream.log" &
upstream=$!
for _ in $(seq 40); do [ -s "$work/upstream.url" ] && break; sleep 0.25; done
url=$(head -1 "$work/upstream.url")
[ -n "$url" ] || fail "go-httpbin did not start: $(cat "$work/upstream.log")"

cp examples/httpbin.hcl "$work/httpbin.hcl"
cat >"$work/wine.hcl" <<'HCL'
tool "say" {
  description = "Echoes its text through cmd.exe, with fixed arguments only."
  exec {
    command = ["cmd.exe", "/c", "echo", "hello from cmd"]
  }
}
HCL
cd "$work"
timeout 120 wine ./mcpdecl.exe version | grep -q '^protocol revisions: ' || fail "mcpdecl.exe version"
timeout 120 wine ./mcpdecl.exe validate httpbin.hcl wine.hcl | grep -q 'The configuration is valid: 4 tools.' ||
  fail "mcpdecl.exe validate"
timeout 120 wine ./mcpdecl.exe call httpbin.hcl echo '{"message":"from wine"}' --var base_url="$url" |
  grep -q '"message": "from wine"' || fail "mcpdecl.exe call of an HTTP tool"
printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"ci","version":"1"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"over stdio"}}}' \
  '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"say","arguments":{}}}' >requests.jsonl
# stdin stays open until the answers are in: the server stops at its end.
(cat requests.jsonl; for _ in $(seq 60); do [ "$(wc -l <answers.jsonl 2>/dev/null || echo 0)" -ge 4 ] && break; sleep 0.5; done) |
  timeout 120 wine ./mcpdecl.exe serve httpbin.hcl wine.hcl --var base_url="$url" >answers.jsonl 2>serve.log || true
grep -q '"id":2,"result":{"tools":\[' answers.jsonl || { cat serve.log answers.jsonl; fail "serve over stdio did not answer tools/list"; }
grep -q '"id":3,"result":{"content":\[{"type":"text","text":"{\\"message\\":\\"over stdio\\"' answers.jsonl ||
  { cat serve.log answers.jsonl; fail "serve over stdio: tools/call of an HTTP tool"; }
grep -q '"id":4,"result":{"content":\[{"type":"text","text":"\\"hello from cmd\\"' answers.jsonl ||
  { cat serve.log answers.jsonl; fail "serve over stdio: tools/call of an exec tool"; }
echo "ok: mcpdecl.exe under Wine: version, validate, an HTTP call, serve over stdio (tools/list, an HTTP and an exec tools/call)"
