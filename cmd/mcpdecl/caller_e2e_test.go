package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeActsForTheCaller serves a configuration whose http_api sends
// the caller's own token (auth { caller_token }), behind the server's auth
// block, as a user would run it: a client signed in with a JWT that names
// the upstream reaches it with that token, which the result never shows; a
// JWT meant for this server alone is refused before anything is sent.
func TestServeActsForTheCaller(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	b64 := func(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pub, _ := key.PublicKey.ECDH()
		raw := pub.Bytes() // 0x04 || X || Y
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []any{map[string]any{
			"kty": "EC", "crv": "P-256", "kid": "k1", "alg": "ES256", "use": "sig",
			"x": b64(raw[1:33]), "y": b64(raw[33:]),
		}}})
	}))
	t.Cleanup(jwks.Close)
	var mu sync.Mutex
	var got []string
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization"))
		mu.Unlock()
		_, _ = w.Write([]byte("orders for " + r.Header.Get("Authorization")))
	}))
	t.Cleanup(upstream.Close)
	config := filepath.Join(t.TempDir(), "tools.hcl")
	if err := os.WriteFile(config, []byte(`
auth {
  oauth {
    jwks_url = "`+jwks.URL+`"
    issuer   = "https://idp.test"
    audience = "https://mcp.test/mcp"
  }
}
http_api "orders" {
  base_url = "`+upstream.URL+`"
  auth {
    caller_token {
      audience = "https://orders.test"
    }
  }
}
tool "orders" {
  description = "The caller's orders, fetched as the caller."
  http {
    api  = http_api.orders
    path = "/orders"
  }
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	endpoint, _, _ := startHTTPEnv(t, nil, config)
	sign := func(aud ...string) string {
		tok := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{
			"iss": "https://idp.test", "sub": "ann", "aud": aud,
			"iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix(),
		})
		tok.Header["kid"] = "k1"
		s, err := tok.SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	call := func(token string) (string, bool) {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "caller-test", Version: "0"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: withToken{token}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "orders"})
		if err != nil {
			t.Fatal(err)
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}

	both := sign("https://mcp.test/mcp", "https://orders.test")
	text, isErr := call(both)
	if isErr || text != "orders for Bearer (sensitive)" {
		t.Errorf("a token meant for the upstream too: %q", text)
	}
	mu.Lock()
	if len(got) != 1 || got[0] != "Bearer "+both {
		t.Errorf("the upstream got %d requests, want one with the caller's token", len(got))
	}
	mu.Unlock()

	text, isErr = call(sign("https://mcp.test/mcp"))
	if !isErr || !strings.Contains(text, `http_api "orders" sends the caller's own token only when it is meant for https://orders.test`) {
		t.Errorf("a token meant for this server alone: %q", text)
	}
	mu.Lock()
	if len(got) != 1 {
		t.Errorf("the upstream was called with a token not meant for it")
	}
	mu.Unlock()
}
