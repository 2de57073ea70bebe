package httpaction_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	httpaction "github.com/mcpdecl/mcpdecl/adapters/http"
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/engine/text"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// tokenServer is an OAuth2 token endpoint for the client credentials
// grant: it checks the client's id, secret, scope and audience, and issues
// tok-1, tok-2… living expiresIn seconds.
type tokenServer struct {
	srv       *httptest.Server
	fetches   atomic.Int32
	expiresIn int
	refuse    bool // answer invalid_client
}

func newTokenServer(t *testing.T, expiresIn int) *tokenServer {
	ts := &tokenServer{expiresIn: expiresIn}
	ts.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		id, secret, ok := r.BasicAuth()
		if !ok {
			id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		}
		w.Header().Set("Content-Type", "application/json")
		if ts.refuse || id != "mcp-client" || secret != "c1ient-s3cret" {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":"invalid_client","error_description":"unknown client or bad secret"}`))
			return
		}
		if r.PostForm.Get("grant_type") != "client_credentials" || r.PostForm.Get("scope") != "read write" || r.PostForm.Get("audience") != "https://api.example.com" {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = fmt.Fprintf(w, `{"error":"invalid_request","error_description":"unexpected form %s"}`, r.PostForm.Encode())
			return
		}
		n := ts.fetches.Add(1)
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": fmt.Sprintf("tok-%d", n), "token_type": "Bearer", "expires_in": ts.expiresIn})
	}))
	t.Cleanup(ts.srv.Close)
	return ts
}

// oauthUpstream answers with the Authorization header it got, and refuses
// the tokens in revoked with 401.
type oauthUpstream struct {
	srv     *httptest.Server
	mu      sync.Mutex
	revoked map[string]bool
	hits    atomic.Int32
}

func newOAuthUpstream(t *testing.T) *oauthUpstream {
	u := &oauthUpstream{revoked: map[string]bool{}}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.hits.Add(1)
		auth := r.Header.Get("Authorization")
		u.mu.Lock()
		refused := u.revoked[strings.TrimPrefix(auth, "Bearer ")] || !strings.HasPrefix(auth, "Bearer tok-")
		u.mu.Unlock()
		if refused {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte("bad token " + auth))
			return
		}
		_, _ = w.Write([]byte("got " + auth))
	}))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *oauthUpstream) revoke(tok string) {
	u.mu.Lock()
	u.revoked[tok] = true
	u.mu.Unlock()
}

// loadOAuth loads a tool "get" on an http_api whose auth is the oauth2
// block body, with env as the environment.
func loadOAuth(t *testing.T, upstream, body string, env map[string]string) (*engine.Tool, string) {
	t.Helper()
	src := `
variable "client_secret" {
  type      = string
  sensitive = true
  default   = env("CLIENT_SECRET")
}
http_api "api" {
  base_url = "` + upstream + `"
  auth {
    oauth2 {
` + body + `
    }
  }
}
tool "get" {
  description = "Gets."
  http {
    api  = http_api.api
    path = "/"
  }
}
`
	cfg, diags := loadSource(t, src, env)
	if diags.HasErrors() {
		return nil, diags.Error()
	}
	tool, _ := cfg.Tool("get")
	return tool, ""
}

func oauthBody(tokenURL string) string {
	return `      token_url     = "` + tokenURL + `"
      client_id     = "mcp-client"
      client_secret = var.client_secret
      scopes        = ["read", "write"]
      audience      = "https://api.example.com"`
}

var secretEnv = map[string]string{"CLIENT_SECRET": "c1ient-s3cret"}

// TestOAuth2ClientCredentials checks an http_api authenticated with the
// client credentials grant against a real token endpoint: the token is
// fetched once and shared, also by concurrent first calls; fetched again
// when the upstream refuses it, once; fetched again when it expires; and
// redacted from results like any secret.
func TestOAuth2ClientCredentials(t *testing.T) {
	ctx := context.Background()

	t.Run("fetched once and shared", func(t *testing.T) {
		ts, up := newTokenServer(t, 3600), newOAuthUpstream(t)
		tool, errs := loadOAuth(t, up.srv.URL, oauthBody(ts.srv.URL+"/token"), secretEnv)
		if errs != "" {
			t.Fatal(errs)
		}
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				if res := tool.Call(ctx, nil); res.IsError || res.Text() != "got Bearer "+text.Mask {
					t.Errorf("result: %v %q (the token must be sent, and redacted from the result)", res.IsError, res.Text())
				}
			})
		}
		wg.Wait()
		if n := ts.fetches.Load(); n != 1 {
			t.Errorf("the token endpoint was asked %d times for 20 calls; want once", n)
		}
	})

	t.Run("refused token fetched anew once", func(t *testing.T) {
		ts, up := newTokenServer(t, 3600), newOAuthUpstream(t)
		tool, errs := loadOAuth(t, up.srv.URL, oauthBody(ts.srv.URL+"/token"), secretEnv)
		if errs != "" {
			t.Fatal(errs)
		}
		if res := tool.Call(ctx, nil); res.IsError {
			t.Fatal(res.Text())
		}
		up.revoke("tok-1")
		if res := tool.Call(ctx, nil); res.IsError {
			t.Errorf("after the upstream refused tok-1: %q", res.Text())
		}
		if n := ts.fetches.Load(); n != 2 {
			t.Errorf("%d token fetches; want 2", n)
		}

		// An upstream that refuses every token is asked twice, not more.
		up.revoke("tok-2")
		up.revoke("tok-3")
		up.hits.Store(0)
		res := tool.Call(ctx, nil)
		if !res.IsError || !strings.Contains(res.Text(), "401") {
			t.Errorf("result: %v %q; want the upstream's 401", res.IsError, res.Text())
		}
		if n := up.hits.Load(); n != 2 {
			t.Errorf("the upstream was asked %d times; want 2 (one retry with a new token)", n)
		}
	})

	t.Run("expired token fetched anew", func(t *testing.T) {
		// A token living 1 s, asked for again once that second is over.
		ts, up := newTokenServer(t, 1), newOAuthUpstream(t)
		tool, errs := loadOAuth(t, up.srv.URL, oauthBody(ts.srv.URL+"/token"), secretEnv)
		if errs != "" {
			t.Fatal(errs)
		}
		for i := range 2 {
			if i > 0 {
				time.Sleep(1100 * time.Millisecond)
			}
			if res := tool.Call(ctx, nil); res.IsError {
				t.Fatal(res.Text())
			}
		}
		if n := ts.fetches.Load(); n != 2 {
			t.Errorf("%d token fetches for 2 calls with an expiring token; want 2", n)
		}
	})

	t.Run("refused credentials", func(t *testing.T) {
		ts, up := newTokenServer(t, 3600), newOAuthUpstream(t)
		ts.refuse = true
		tool, errs := loadOAuth(t, up.srv.URL, oauthBody(ts.srv.URL+"/token"), secretEnv)
		if errs != "" {
			t.Fatal(errs)
		}
		res := tool.Call(ctx, nil)
		want := `could not get an OAuth2 token for http_api "api" from ` + ts.srv.URL + `/token: it answered 401, invalid_client: unknown client or bad secret; check client_id, client_secret and scopes`
		if !res.IsError || res.Text() != want {
			t.Errorf("result: %v %q\nwant %q", res.IsError, res.Text(), want)
		}
		if up.hits.Load() != 0 {
			t.Error("the upstream was called without a token")
		}
	})

	t.Run("secret not set", func(t *testing.T) {
		ts, up := newTokenServer(t, 3600), newOAuthUpstream(t)
		tool, errs := loadOAuth(t, up.srv.URL, oauthBody(ts.srv.URL+"/token"), nil)
		if errs != "" {
			t.Fatal(errs)
		}
		res := tool.Call(ctx, nil)
		want := `the client secret of http_api "api" is empty: set the environment variable CLIENT_SECRET`
		if !res.IsError || res.Text() != want {
			t.Errorf("result: %v %q\nwant %q", res.IsError, res.Text(), want)
		}
		if ts.fetches.Load() != 0 || up.hits.Load() != 0 {
			t.Error("something was called without a secret")
		}
	})
}

// TestOAuth2Config checks the load errors of an oauth2 block.
func TestOAuth2Config(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"plain http", `token_url = "http://auth.example.com/token"
      client_id = "a"
      client_secret = "b-secret"`, `Invalid token_url; "http://auth.example.com/token" is not https: the client secret is sent to it`},
		{"not a URL", `token_url = "auth.example.com/token"
      client_id = "a"
      client_secret = "b-secret"`, `Invalid token_url; "auth.example.com/token" must be an absolute URL`},
		{"auth style", `token_url = "https://auth.example.com/token"
      client_id = "a"
      client_secret = "b-secret"
      auth_style = "cookie"`, `Invalid auth_style; auth_style is how the client credentials reach the token endpoint`},
		{"scopes", `token_url = "https://auth.example.com/token"
      client_id = "a"
      client_secret = "b-secret"
      scopes = "read write"`, `Invalid scopes; scopes must be a list of strings without spaces`},
		{"missing secret", `token_url = "https://auth.example.com/token"
      client_id = "a"`, `Missing client credential; The client proves who it is to the token endpoint: add client_secret = var.client_secret, or private_key_file = "client-key.pem" to sign a JWT instead (private_key_jwt).`},
		{"secret and key", `token_url = "https://auth.example.com/token"
      client_id = "a"
      client_secret = "b-secret"
      private_key_file = "key.pem"`, `Conflicting client credentials; The client proves who it is with client_secret or with private_key_file`},
		{"no key file", `token_url = "https://auth.example.com/token"
      client_id = "a"
      private_key_file = "/nonexistent/key.pem"`, `Cannot read private_key_file`},
		{"not a key", `token_url = "https://auth.example.com/token"
      client_id = "a"
      private_key_file = "/etc/hostname"`, `Invalid private_key_file; /etc/hostname: it is not a PEM-encoded RSA or ECDSA private key`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errs := loadOAuth(t, "https://api.example.com", tt.body, nil)
			if !strings.Contains(errs, tt.want) {
				t.Errorf("errors:\n%s\nwant one containing:\n%s", errs, tt.want)
			}
		})
	}
}

// TestTokenEndpointFailures checks what a call says when the token endpoint
// is down, slow or answers garbage, for oauth2 and token_exchange: a tool
// error within the http_api's timeout that says what happened, and never
// the client secret.
func TestTokenEndpointFailures(t *testing.T) {
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(enginetest.Patience):
		}
	}))
	t.Cleanup(slow.Close)
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`<html>not a token</html>`))
	}))
	t.Cleanup(garbage.Close)
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()
	up := newOAuthUpstream(t)
	for _, kind := range []string{"oauth2", "token_exchange"} {
		for _, tt := range []struct{ name, url, want string }{
			{"down", downURL + "/token", "connection refused"},
			{"slow", slow.URL + "/token", "timed out"},
			{"garbage", garbage.URL + "/token", "could not"},
		} {
			t.Run(kind+"/"+tt.name, func(t *testing.T) {
				cfg, diags := loadSource(t, `
http_api "api" {
  base_url = "`+up.srv.URL+`"
  timeout  = "1s"
  auth {
    `+kind+` {
      token_url     = "`+tt.url+`"
      client_id     = "mcp-client"
      client_secret = "c1ient-s3cret"
      audience      = "https://api.example.com"
    }
  }
}
tool "get" {
  description = "Gets."
  http {
    api  = http_api.api
    path = "/"
  }
}
`, nil)
				if diags.HasErrors() {
					t.Fatal(diags.Error())
				}
				tool, _ := cfg.Tool("get")
				ctx := engine.WithCaller(context.Background(), engine.Caller{ID: "jwt:ann", Authenticated: true, Token: "jwt-of-ann"})
				start := time.Now()
				res := tool.Call(ctx, nil)
				took := time.Since(start)
				if !res.IsError || !strings.Contains(strings.ToLower(res.Text()), tt.want) || strings.Contains(res.Text(), "c1ient-s3cret") {
					t.Errorf("result: %q, want an error with %q", res.Text(), tt.want)
				}
				// Well short of the server's 30s, which a lost api
				// timeout would fall back to.
				if took > 15*time.Second {
					t.Errorf("took %s; the http_api's timeout is 1s", took)
				}
			})
		}
	}
}

// TestOAuth2ShortLivedToken checks that a token living 10 s or less is
// reused while it lives: renewed a tenth of its lifetime before it
// expires, not x/oauth2's fixed 10 s, which made every call fetch one.
// Both grants: client credentials and the token exchange.
func TestOAuth2ShortLivedToken(t *testing.T) {
	const calls = 5
	for _, kind := range []string{"oauth2", "token_exchange"} {
		t.Run(kind, func(t *testing.T) {
			var fetches atomic.Int32
			endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := fetches.Add(1)
				w.Header().Set("Content-Type", "application/json")
				_ = json.NewEncoder(w).Encode(map[string]any{"access_token": fmt.Sprintf("tok-%d", n), "token_type": "Bearer", "expires_in": 5})
			}))
			t.Cleanup(endpoint.Close)
			up := newOAuthUpstream(t)
			cfg, diags := loadSource(t, `
http_api "api" {
  base_url = "`+up.srv.URL+`"
  auth {
    `+kind+` {
      token_url     = "`+endpoint.URL+`"
      client_id     = "mcp-client"
      client_secret = "c1ient-s3cret"
      audience      = "https://api.example.com"
    }
  }
}
tool "get" {
  description = "Gets."
  http {
    api  = http_api.api
    path = "/"
  }
}
`, nil)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			tool, _ := cfg.Tool("get")
			ctx := engine.WithCaller(context.Background(), engine.Caller{ID: "jwt:ann", Authenticated: true, Token: "jwt-of-ann"})
			for range calls {
				if res := tool.Call(ctx, nil); res.IsError {
					t.Fatal(res.Text())
				}
			}
			if n := fetches.Load(); n != 1 {
				t.Errorf("%d tokens fetched for %d calls within the 5 s a token lives; want 1", n, calls)
			}
		})
	}
}

// TestOAuth2AuthStyle checks an oauth2 block without auth_style against
// token endpoints that take the client's credentials in one place only:
// the basic auth header is tried first, then the form's body; the style
// that worked is logged, once, and used for every later token.
func TestOAuth2AuthStyle(t *testing.T) {
	for _, style := range []string{"header", "body"} {
		t.Run(style, func(t *testing.T) {
			var requests atomic.Int32
			endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := requests.Add(1)
				_ = r.ParseForm()
				_, _, inHeader := r.BasicAuth()
				w.Header().Set("Content-Type", "application/json")
				if inHeader != (style == "header") {
					w.WriteHeader(http.StatusUnauthorized)
					_, _ = w.Write([]byte(`{"error":"invalid_client"}`))
					return
				}
				_ = json.NewEncoder(w).Encode(map[string]any{"access_token": fmt.Sprintf("tok-%d", n), "token_type": "Bearer", "expires_in": 3600})
			}))
			t.Cleanup(endpoint.Close)
			up := newOAuthUpstream(t)
			var logs syncBuffer
			path := filepath.Join(t.TempDir(), "tools.hcl")
			src := `
http_api "api" {
  base_url = "` + up.srv.URL + `"
  auth {
    oauth2 {
      token_url     = "` + endpoint.URL + `"
      client_id     = "mcp-client"
      client_secret = "c1ient-s3cret"
    }
  }
}
tool "get" {
  description = "Gets."
  http {
    api  = http_api.api
    path = "/"
  }
}
`
			if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg, _, diags := load.Load(load.Options{
				Registry: engine.NewRegistry(httpaction.New()),
				Logger:   slog.New(slog.NewTextHandler(&logs, nil)),
			}, path)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			t.Cleanup(func() { _ = cfg.Close() })
			tool, _ := cfg.Tool("get")
			first := requests.Load()
			if res := tool.Call(context.Background(), nil); res.IsError {
				t.Fatal(res.Text())
			}
			want := map[string]int32{"header": 1, "body": 2}[style]
			if n := requests.Load() - first; n != want {
				t.Errorf("%d requests to the token endpoint for the first token; want %d", n, want)
			}
			// The upstream refuses the token: the next is asked for in
			// the style found, at once.
			up.revoke(fmt.Sprintf("tok-%d", requests.Load()))
			before := requests.Load()
			if res := tool.Call(context.Background(), nil); res.IsError {
				t.Fatal(res.Text())
			}
			if n := requests.Load() - before; n != 1 {
				t.Errorf("%d requests to the token endpoint for the second token; want 1", n)
			}
			line := `msg="OAuth2 client authentication found" http_api=api auth_style=` + style
			if got := logs.String(); strings.Count(got, line) != 1 || strings.Contains(got, "c1ient-s3cret") {
				t.Errorf("the log, want one line with %q:\n%s", line, got)
			}
		})
	}
}
