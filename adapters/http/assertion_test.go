package httpaction_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// TestPrivateKeyJWT checks oauth2 { private_key_file } (private_key_jwt,
// RFC 7523): the client proves who it is with a JWT it signs for the token
// endpoint, new for each request (its own jti), and sends no secret; the
// endpoint checks the signature with the client's public key.
func TestPrivateKeyJWT(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "client-key.pem")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]bool{}
	var issued []string
	var endpoint *httptest.Server
	endpoint = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		w.Header().Set("Content-Type", "application/json")
		refuse := func(why string) {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = fmt.Fprintf(w, `{"error":"invalid_client","error_description":%q}`, why)
		}
		f := r.PostForm
		if _, _, basic := r.BasicAuth(); basic || f.Has("client_secret") {
			refuse("a secret was sent")
			return
		}
		if f.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" || f.Get("client_id") != "mcp-client" {
			refuse("not a JWT client assertion of mcp-client: " + f.Encode())
			return
		}
		var claims jwt.RegisteredClaims
		_, err := jwt.ParseWithClaims(f.Get("client_assertion"), &claims, func(tk *jwt.Token) (any, error) {
			if tk.Header["kid"] != "k1" {
				return nil, fmt.Errorf("kid %v", tk.Header["kid"])
			}
			return &key.PublicKey, nil
		}, jwt.WithValidMethods([]string{"ES256"}), jwt.WithAudience(endpoint.URL+"/token"), jwt.WithIssuer("mcp-client"), jwt.WithExpirationRequired())
		if err != nil || claims.Subject != "mcp-client" || claims.ID == "" || claims.ExpiresAt.After(time.Now().Add(5*time.Minute)) {
			refuse(fmt.Sprintf("bad assertion: %v", err))
			return
		}
		mu.Lock()
		replay := seen[claims.ID]
		seen[claims.ID] = true
		mu.Unlock()
		if replay {
			refuse("assertion replayed")
			return
		}
		mu.Lock()
		issued = append(issued, "tok-"+claims.ID[:8])
		mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "tok-" + claims.ID[:8], "token_type": "Bearer", "expires_in": 3600})
	}))
	t.Cleanup(endpoint.Close)
	up := newOAuthUpstream(t)
	tool, errs := loadOAuth(t, up.srv.URL, `token_url = "`+endpoint.URL+`/token"
      client_id = "mcp-client"
      private_key_file = "`+keyFile+`"
      private_key_id = "k1"`, nil)
	if errs != "" {
		t.Fatal(errs)
	}
	res := tool.Call(t.Context(), nil)
	if res.IsError || res.Text() != "got Bearer (sensitive)" {
		t.Fatalf("first call: %q", res.Text())
	}
	// The upstream refuses the token: a new one, with a new assertion.
	up.mu.Lock()
	up.revoked[issued[0]] = true
	up.mu.Unlock()
	if res := tool.Call(t.Context(), nil); res.IsError {
		t.Errorf("after a refusal: %q", res.Text())
	}
	if len(seen) != 2 {
		t.Errorf("%d assertions, want 2", len(seen))
	}
}
