package httpaction_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/internal/testservice"
)

// oidcProvider is the issuer of the real OpenID Connect provider that
// .ci/run starts (zitadel/oidc's example server, see .ci/oidc.sh): the
// test fails in CI without it, and is skipped elsewhere.
func oidcProvider(t *testing.T) string {
	t.Helper()
	return strings.TrimSuffix(testservice.FromEnv(t, "MCPDECL_TEST_OIDC_URL",
		"set it to the issuer of zitadel/oidc's example server, which .ci/run starts (bash -c 'source .ci/services.sh; source .ci/oidc.sh; ensure_oidc')"), "/")
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

// userToken signs in the provider's example user (an administrator, who
// may be acted for) through the authorization code flow, as a browser
// would, and returns the access token the provider gives the client "web".
func userToken(t *testing.T, issuer string) string {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	const callback = "http://localhost:9999/auth/callback"
	next := func(resp *http.Response, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		loc := resp.Header.Get("Location")
		if loc == "" {
			t.Fatalf("%s answered %s without a redirect", resp.Request.URL.Path, resp.Status)
		}
		u, err := url.Parse(loc)
		if err != nil {
			t.Fatal(err)
		}
		return resp.Request.URL.ResolveReference(u).String()
	}
	login := next(client.Get(issuer + "/auth?" + url.Values{"client_id": {"web"}, "redirect_uri": {callback}, "response_type": {"code"}, "scope": {"openid"}, "state": {"s"}}.Encode()))
	u, _ := url.Parse(login)
	back := next(client.PostForm(issuer+"/login/username", url.Values{"id": {u.Query().Get("authRequestID")}, "username": {"test-user@localhost"}, "password": {"verysecure"}}))
	done, _ := url.Parse(next(client.Get(back)))
	req, _ := http.NewRequest(http.MethodPost, issuer+"/oauth/token", strings.NewReader(url.Values{
		"grant_type": {"authorization_code"}, "code": {done.Query().Get("code")}, "redirect_uri": {callback},
	}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("web", "secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || tok.AccessToken == "" {
		t.Fatalf("no access token for the user: %s, %v", resp.Status, err)
	}
	return tok.AccessToken
}

// TestTokenExchangeWithRealProvider exchanges a signed-in user's token at
// a real OpenID Connect provider for a token meant for the upstream
// (audience "api"), which the upstream checks by introspection at the same
// provider: active, for the same user.
func TestTokenExchangeWithRealProvider(t *testing.T) {
	issuer := oidcProvider(t)
	subject := userToken(t, issuer)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if tok == subject {
			http.Error(w, "the user's own token, not one for this API", http.StatusUnauthorized)
			return
		}
		req, _ := http.NewRequest(http.MethodPost, issuer+"/oauth/introspect", strings.NewReader(url.Values{"token": {tok}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth("api", "secret")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		var in struct {
			Active bool   `json:"active"`
			Sub    string `json:"sub"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&in)
		if !in.Active {
			http.Error(w, "inactive token", http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte("orders of " + in.Sub))
	}))
	t.Cleanup(upstream.Close)
	cfg, diags := loadSource(t, `
http_api "orders" {
  base_url = "`+upstream.URL+`"
  auth {
    token_exchange {
      token_url     = "`+issuer+`/oauth/token"
      client_id     = "web"
      client_secret = "secret"
      audience      = "api"
      scopes        = ["openid"]
    }
  }
}
tool "orders" {
  description = "The caller's orders, on the caller's behalf."
  http {
    api  = http_api.orders
    path = "/orders"
  }
}
`, nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	tool, _ := cfg.Tool("orders")
	ctx := engine.WithCaller(t.Context(), engine.Caller{ID: "jwt:id1", Authenticated: true, Subject: "id1", Token: subject})
	for range 2 {
		if res := tool.Call(ctx, nil); res.IsError || res.Text() != "orders of id1" {
			t.Fatalf("a call on behalf of the user: %q", res.Text())
		}
	}
	// A token the provider does not know is refused by it.
	bad := engine.WithCaller(t.Context(), engine.Caller{ID: "jwt:x", Authenticated: true, Token: "not-a-token-of-this-provider"})
	if res := tool.Call(bad, nil); !res.IsError || !strings.Contains(res.Text(), `could not exchange the caller's token for one for http_api "orders"`) {
		t.Errorf("an unknown subject token: %q", res.Text())
	}
}
