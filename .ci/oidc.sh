# Sourced by .ci/run, after services.sh: builds and starts a real OpenID
# Connect provider for the tests of upstream credentials — the example
# server of zitadel/oidc, a maintained OpenID Connect library, built
# outside the repository into a cache folder (once per version) — and
# exports MCPDECL_TEST_OIDC_URL, its issuer. The tests that need it fail
# in CI without it.

oidc_version=v3.52.0
oidc_port=19998

ensure_oidc() {
  build_go_program oidc github.com/zitadel/oidc/v3/example/server "$oidc_version" oidc-server || return 1
  if ! answering 127.0.0.1 "$oidc_port"; then
    echo "starting the OpenID Connect provider on localhost:$oidc_port"
    PORT=$oidc_port "$BUILT" >"$(dirname "$BUILT")/server.log" 2>&1 &
    OIDC_PID=$!
  fi
  wait_for "the OpenID Connect provider" "$oidc_port"
  curl -fsS "http://localhost:$oidc_port/.well-known/openid-configuration" >/dev/null ||
    { echo "FAIL: the OpenID Connect provider does not serve its discovery document" >&2; return 1; }
  export MCPDECL_TEST_OIDC_URL="http://localhost:$oidc_port/"
}
