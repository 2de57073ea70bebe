#!/usr/bin/env bash
# Run by .ci/run: builds the container image of the Dockerfile with podman
# and smoke-tests it: the container serves a configuration over HTTP,
# /healthz answers, a tool call succeeds, it runs as a non-root user, and
# the image's size is reported. This machine reaches no image registry, so
# the runtime stage is built on scratch from an executable built here
# (--build-context build=DIR), the way the Dockerfile's comment says: the
# release build's when MCPDECL_BINARY names it, else one built here;
# podman runs it with runc (crun refuses this machine's hybrid cgroups).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v podman >/dev/null || ! command -v runc >/dev/null; then
  echo "installing podman and runc (Debian's packages)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends podman runc >/dev/null 2>&1 ||
    { apt-get update >/dev/null 2>&1 && apt-get install -y --no-install-recommends podman runc >/dev/null 2>&1; } ||
    { echo "FAIL: could not install podman and runc" >&2; exit 1; }
fi

work=$(mktemp -d)
image=localhost/mcpdecl-ci:$$
name=mcpdecl-ci-$$
trap 'podman rm -f "$name" >/dev/null 2>&1 || true; podman rmi -f "$image" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

mkdir -p "$work/out" "$work/config"
if [ -n "${MCPDECL_BINARY:-}" ]; then
  # The linux/amd64 executable of the release build (.ci/release.sh): the
  # image holds the same bytes as the archive.
  cp "$MCPDECL_BINARY" "$work/out/mcpdecl"
  echo "image from the release build's $MCPDECL_BINARY"
else
  CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$work/out/mcpdecl" ./cmd/mcpdecl
fi
podman build --runtime runc --build-context build="$work" --build-arg BASE_IMAGE=scratch \
  -t "$image" -f Dockerfile "$work" >"$work/build.log" 2>&1 ||
  { cat "$work/build.log"; echo "FAIL: podman build" >&2; exit 1; }
size=$(podman image inspect --format '{{.Size}}' "$image")
echo "image built: $((size / 1024 / 1024)) MiB"

cat >"$work/config/tools.hcl" <<'HCL'
server {
  name = "container"
}
tool "shout" {
  description = "Returns the text in capitals."
  arg "text" {
    type = string
  }
  text = expr("upper(args.text)")
}
HCL
chmod -R a+rX "$work/config"
port=18089
podman run --runtime runc -d --name "$name" --ulimit nofile=4096:4096 --ulimit nproc=4096:4096 \
  -p "127.0.0.1:$port:8080" -v "$work/config:/config:ro" "$image" >/dev/null ||
  { echo "FAIL: podman run" >&2; exit 1; }
for _ in $(seq 40); do
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  sleep 0.25
done
curl -fsS "http://127.0.0.1:$port/healthz" | grep -qx ok ||
  { podman logs "$name"; echo "FAIL: /healthz does not answer ok" >&2; exit 1; }
answer=$(curl -fsS "http://127.0.0.1:$port/mcp" -H 'Content-Type: application/json' \
  -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2025-06-18' \
  -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shout","arguments":{"text":"from a container"}}}')
echo "$answer" | grep -q 'FROM A CONTAINER' ||
  { podman logs "$name"; echo "FAIL: the tool call answered: $answer" >&2; exit 1; }
user=$(podman inspect --format '{{.Config.User}}' "$name")
[ "$user" = "65532:65532" ] || { echo "FAIL: the container runs as $user, not 65532:65532" >&2; exit 1; }
echo "ok: the container serves over HTTP, /healthz answers, a call succeeds, as user $user"

# The README's example as written: examples/httpbin.hcl in the container,
# calling go-httpbin on this machine through host.containers.internal.
upport=18099
go build -o "$work/upstream" ./examples/upstream
"$work/upstream" -addr "0.0.0.0:$upport" >"$work/upstream.url" 2>"$work/upstream.log" &
upstream=$!
trap 'kill "$upstream" 2>/dev/null; podman rm -f "$name" "$name-ex" >/dev/null 2>&1 || true; podman rmi -f "$image" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
port=18090
podman run --runtime runc -d --name "$name-ex" --ulimit nofile=4096:4096 --ulimit nproc=4096:4096 \
  -p "127.0.0.1:$port:8080" -v "$PWD/examples:/config:ro" "$image" /config/httpbin.hcl \
  --var base_url="http://host.containers.internal:$upport" >/dev/null ||
  { echo "FAIL: podman run of the README's example" >&2; exit 1; }
for _ in $(seq 40); do
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  sleep 0.25
done
answer=$(curl -fsS "http://127.0.0.1:$port/mcp" -H 'Content-Type: application/json' \
  -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2025-06-18' \
  -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"from the README"}}}') || true
echo "$answer" | grep -q '"message":"from the README"' ||
  { podman logs "$name-ex"; cat "$work/upstream.log"; echo "FAIL: the README's container example answered: $answer" >&2; exit 1; }
echo "ok: the README's container example reaches its upstream on the host"
