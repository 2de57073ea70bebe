package httpaction_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
)

// TestTokenExchange checks auth { token_exchange { … } } (RFC 8693): each
// caller's JWT is exchanged for a token meant for the upstream, once per
// caller however many calls run at once, kept until it expires, exchanged
// again when the upstream refuses it; a call without a caller's token is
// refused, a refused exchange says what the endpoint answered, and neither
// the client secret nor a token ever shows.
func TestTokenExchange(t *testing.T) {
	var exchanges atomic.Int32
	refuse := atomic.Bool{}
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		id, secret, ok := r.BasicAuth()
		if !ok {
			id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		}
		w.Header().Set("Content-Type", "application/json")
		f := r.PostForm
		switch {
		case id != "mcp-client" || secret != "c1ient-s3cret" || refuse.Load():
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":"invalid_client","error_description":"unknown client or bad secret"}`))
			return
		case f.Get("grant_type") != "urn:ietf:params:oauth:grant-type:token-exchange" ||
			f.Get("subject_token_type") != "urn:ietf:params:oauth:token-type:access_token" ||
			f.Get("requested_token_type") != "urn:ietf:params:oauth:token-type:access_token" ||
			f.Get("audience") != "https://orders.example.com" || f.Get("scope") != "orders:read":
			w.WriteHeader(http.StatusBadRequest)
			_, _ = fmt.Fprintf(w, `{"error":"invalid_request","error_description":"unexpected form %s"}`, f.Encode())
			return
		}
		n := exchanges.Add(1)
		// The new token names the caller it acts for.
		sub := strings.TrimPrefix(f.Get("subject_token"), "jwt-of-")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"access_token": fmt.Sprintf("xch-%s-%d", sub, n), "issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
			"token_type": "Bearer", "expires_in": 3600,
		})
	}))
	t.Cleanup(endpoint.Close)
	var mu sync.Mutex
	revoked := map[string]bool{}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		mu.Lock()
		bad := revoked[tok] || !strings.HasPrefix(tok, "xch-")
		mu.Unlock()
		if bad {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte("orders of " + strings.Split(tok, "-")[1] + ", token " + tok))
	}))
	t.Cleanup(upstream.Close)
	cfg, diags := loadSource(t, `
http_api "orders" {
  base_url = "`+upstream.URL+`"
  auth {
    token_exchange {
      token_url     = "`+endpoint.URL+`"
      client_id     = "mcp-client"
      client_secret = "c1ient-s3cret"
      audience      = "https://orders.example.com"
      scopes        = ["orders:read"]
    }
  }
}
tool "orders" {
  description = "The caller's orders, fetched on the caller's behalf."
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
	as := func(sub string) context.Context {
		return engine.WithCaller(context.Background(), engine.Caller{ID: "jwt:" + sub, Authenticated: true, Subject: sub, Token: "jwt-of-" + sub})
	}

	// Eight calls of ann at once: one exchange.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if res := tool.Call(as("ann"), nil); res.IsError || !strings.HasPrefix(res.Text(), "orders of ann, token ") {
				t.Errorf("ann: %q", res.Text())
			}
		})
	}
	wg.Wait()
	if n := exchanges.Load(); n != 1 {
		t.Errorf("%d exchanges for one caller's concurrent calls, want 1", n)
	}
	if res := tool.Call(as("bob"), nil); !strings.HasPrefix(res.Text(), "orders of bob") || exchanges.Load() != 2 {
		t.Errorf("bob: %q after %d exchanges", res.Text(), exchanges.Load())
	}
	// The exchanged tokens are secrets: the upstream's echo is redacted.
	if res := tool.Call(as("ann"), nil); strings.Contains(res.Text(), "xch-ann") {
		t.Errorf("the exchanged token shows: %q", res.Text())
	}

	// The upstream refuses ann's token: it is exchanged again, once.
	mu.Lock()
	revoked["xch-ann-1"] = true
	mu.Unlock()
	if res := tool.Call(as("ann"), nil); res.IsError || exchanges.Load() != 3 {
		t.Errorf("after a refusal: %q, %d exchanges, want 3", res.Text(), exchanges.Load())
	}

	if res := tool.Call(context.Background(), nil); !res.IsError || !strings.Contains(res.Text(), `http_api "orders" acts on behalf of the caller (token_exchange), and this call has no caller's token to exchange`) {
		t.Errorf("without a caller: %q", res.Text())
	}
	refuse.Store(true)
	res := tool.Call(as("cy"), nil)
	if !res.IsError || !strings.Contains(res.Text(), "could not exchange the caller's token for one for http_api \"orders\"") ||
		!strings.Contains(res.Text(), "invalid_client: unknown client or bad secret") || strings.Contains(res.Text(), "c1ient-s3cret") {
		t.Errorf("a refused exchange: %q", res.Text())
	}

	_, diags = loadSource(t, `
http_api "x" {
  base_url = "http://127.0.0.1:1"
  auth {
    token_exchange {
      token_url     = "https://idp.example.com/token"
      client_id     = "c"
      client_secret = "s3cret-value"
    }
  }
}
`, nil)
	if !strings.Contains(diags.Error(), "Missing audience") {
		t.Errorf("without an audience: %s", diags.Error())
	}
}
