package httpaction_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
)

// oidcProvider is the issuer of the real OpenID Connect provider that
// .ci/run starts (zitadel/oidc's example server, see .ci/oidc.sh): the
// test fails in CI without it, and is skipped elsewhere.
func oidcProvider(t *testing.T) string {
	t.Helper()
	u := os.Getenv("MCPDECL_TEST_OIDC_URL")
	if u == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("MCPDECL_TEST_OIDC_URL is not set: .ci/run starts the provider (.ci/oidc.sh)")
		}
		t.Skip("set MCPDECL_TEST_OIDC_URL to the issuer of zitadel/oidc's example server (bash -c 'source .ci/services.sh; source .ci/oidc.sh; ensure_oidc')")
	}
	return strings.TrimSuffix(u, "/")
}

// TestOAuth2WithRealProvider runs the client credentials grant against a
// real OpenID Connect provider: its token reaches the upstream; a token the
// upstream refuses is replaced by a new one from the provider; a wrong
// secret fails the call with what the provider answered, and the secret
// never shows.
func TestOAuth2WithRealProvider(t *testing.T) {
	issuer := oidcProvider(t)
	var mu sync.Mutex
	var seen []string
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		mu.Lock()
		first := len(seen) == 0
		seen = append(seen, tok)
		mu.Unlock()
		if first || len(tok) < 20 {
			// Refuse the first token, as if it had been revoked.
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte("ok"))
	}))
	t.Cleanup(upstream.Close)
	body := func(secret string) string {
		return `token_url     = "` + issuer + `/oauth/token"
      client_id     = "sid1"
      client_secret = "` + secret + `"
      scopes        = ["openid"]`
	}
	tool, errs := loadOAuth(t, upstream.URL, body("verysecret"), nil)
	if errs != "" {
		t.Fatal(errs)
	}
	res := tool.Call(t.Context(), nil)
	if res.IsError || res.Text() != "ok" {
		t.Fatalf("a call: %q", res.Text())
	}
	mu.Lock()
	if len(seen) != 2 || seen[0] == seen[1] || seen[0] == "" {
		t.Errorf("the upstream saw %d tokens, want the provider's first and, after the 401, a new one", len(seen))
	}
	mu.Unlock()
	if res := tool.Call(t.Context(), nil); res.IsError {
		t.Errorf("a call with the token held: %q", res.Text())
	}

	tool, errs = loadOAuth(t, upstream.URL, body("wr0ng-secret-value"), nil)
	if errs != "" {
		t.Fatal(errs)
	}
	res = tool.Call(t.Context(), nil)
	if !res.IsError || !strings.Contains(res.Text(), `could not get an OAuth2 token for http_api "api" from `+issuer+`/oauth/token: it answered 401, invalid_client`) || strings.Contains(res.Text(), "wr0ng") {
		t.Errorf("a wrong secret: %q", res.Text())
	}
}
