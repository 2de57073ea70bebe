# Sourced by .ci/run, after services.sh: builds and starts a real OpenID
# Connect provider for the tests of upstream credentials — the example
# server of zitadel/oidc, a maintained OpenID Connect library, built
# outside the repository into a cache folder (once per version) — and
# exports MCPDECL_TEST_OIDC_URL, its issuer. The tests that need it fail
# in CI without it.

oidc_version=v3.52.0
oidc_port=19998

ensure_oidc() {
  local dir="${MCPDECL_CI_CACHE:-$HOME/.cache/mcpdecl-ci}/oidc-$oidc_version"
  if [ ! -x "$dir/oidc-server" ]; then
    echo "building the zitadel/oidc $oidc_version example server into $dir"
    rm -rf "$dir" && mkdir -p "$dir"
    (cd "$dir" && go mod init oidc-ci >/dev/null 2>&1 &&
      GOFLAGS=-mod=mod go get "github.com/zitadel/oidc/v3/example/server@$oidc_version" >/dev/null 2>&1 &&
      GOFLAGS=-mod=mod go build -o oidc-server github.com/zitadel/oidc/v3/example/server) ||
      { echo "FAIL: could not build the zitadel/oidc example server" >&2; return 1; }
  fi
  if ! answering 127.0.0.1 "$oidc_port"; then
    echo "starting the OpenID Connect provider on localhost:$oidc_port"
    PORT=$oidc_port "$dir/oidc-server" >"$dir/server.log" 2>&1 &
    OIDC_PID=$!
  fi
  wait_for "the OpenID Connect provider" "$oidc_port"
  curl -fsS "http://localhost:$oidc_port/.well-known/openid-configuration" >/dev/null ||
    { echo "FAIL: the OpenID Connect provider does not serve its discovery document" >&2; return 1; }
  export MCPDECL_TEST_OIDC_URL="http://localhost:$oidc_port/"
}
