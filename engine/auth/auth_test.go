package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jwt"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/server"
)

var _ server.Authenticator = (*Authenticator)(nil)

// idp is an authorization server for tests: it signs tokens and serves the
// public half of its keys as a JWKS, counting the fetches.
type idp struct {
	t       *testing.T
	mu      sync.Mutex
	private map[string]any // by kid
	public  jwk.Set
	fetches atomic.Int32
	srv     *httptest.Server
}

func newIDP(t *testing.T) *idp {
	p := &idp{t: t, private: map[string]any{}, public: jwk.NewSet()}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		p.fetches.Add(1)
		p.mu.Lock()
		defer p.mu.Unlock()
		_ = json.NewEncoder(w).Encode(p.public)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// addKey makes a key, RSA or EC, and publishes it under kid.
func (p *idp) addKey(kid, kind string) {
	p.t.Helper()
	var priv, pub any
	switch kind {
	case "rsa":
		k, _ := rsa.GenerateKey(rand.Reader, 2048)
		priv, pub = k, &k.PublicKey
	case "ec":
		k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		priv, pub = k, &k.PublicKey
	}
	jpub, err := jwk.Import(pub)
	if err != nil {
		p.t.Fatal(err)
	}
	_ = jpub.Set(jwk.KeyIDKey, kid)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.private[kid] = priv
	_ = p.public.AddKey(jpub)
}

// claims are a token's claims; a nil value leaves the claim out.
type claims map[string]any

// sign makes a token signed by kid's key, with standard claims that edit
// may change.
func (p *idp) sign(kid string, alg jwa.SignatureAlgorithm, edit func(claims)) string {
	p.t.Helper()
	now := time.Now()
	c := claims{
		"iss": "https://idp.test", "aud": []string{"https://mcp.test/mcp"}, "sub": "alice",
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "scope": "tickets:read tickets:write",
	}
	if edit != nil {
		edit(c)
	}
	b := jwt.NewBuilder()
	for k, v := range c {
		if v != nil {
			b.Claim(k, v)
		}
	}
	tok, err := b.Build()
	if err != nil {
		p.t.Fatal(err)
	}
	p.mu.Lock()
	priv := p.private[kid]
	p.mu.Unlock()
	key, _ := jwk.Import(priv)
	_ = key.Set(jwk.KeyIDKey, kid)
	signed, err := jwt.Sign(tok, jwt.WithKey(alg, key))
	if err != nil {
		p.t.Fatal(err)
	}
	return string(signed)
}

func (p *idp) config() *Config {
	return &Config{
		Tokens: []Token{{Subject: "ci-bot", Value: "static-token-0123456789", Scopes: []string{"deploy"}}},
		OAuth: &OAuth{
			JWKSURL: p.srv.URL, Issuer: "https://idp.test", Audience: "https://mcp.test/mcp",
			Resource: "https://mcp.test/mcp", AuthorizationServers: []string{"https://idp.test"}, Leeway: 30 * time.Second,
		},
	}
}

// serve puts an echo of the caller behind a's token check.
func serve(t *testing.T, a *Authenticator) *httptest.Server {
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := sdkauth.TokenInfoFromContext(r.Context())
		fmt.Fprintf(w, "%s %s", info.UserID, strings.Join(info.Scopes, ","))
	})
	srv := httptest.NewServer(a.Wrap(echo))
	t.Cleanup(srv.Close)
	return srv
}

func do(t *testing.T, url, authorization string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, nil)
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b)), resp.Header.Get("WWW-Authenticate")
}

// hs256 signs claims with HMAC, the way an attacker would with a public key
// as the secret.
func hs256(secret []byte, kid string) string {
	enc := base64.RawURLEncoding
	head := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT","kid":"` + kid + `"}`))
	body := enc.EncodeToString(fmt.Appendf(nil, `{"iss":"https://idp.test","aud":"https://mcp.test/mcp","sub":"mallory","exp":%d}`, time.Now().Add(time.Hour).Unix()))
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(head + "." + body))
	return head + "." + body + "." + enc.EncodeToString(mac.Sum(nil))
}

func TestTokens(t *testing.T) {
	p := newIDP(t)
	p.addKey("k1", "rsa")
	p.addKey("e1", "ec")
	a, err := New(p.config(), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, a)
	rsaPub := p.private["k1"].(*rsa.PrivateKey).PublicKey
	pubDER, _ := x509.MarshalPKIXPublicKey(&rsaPub)
	const meta = `Bearer resource_metadata="https://mcp.test/.well-known/oauth-protected-resource/mcp"`

	tests := []struct {
		name, auth string
		code       int
		body       string // for 200: subject and scopes
	}{
		{"valid RSA", "Bearer " + p.sign("k1", jwa.RS256(), nil), 200, "alice tickets:read,tickets:write"},
		{"valid EC", "Bearer " + p.sign("e1", jwa.ES256(), nil), 200, "alice tickets:read,tickets:write"},
		{"scp list", "Bearer " + p.sign("k1", jwa.PS256(), func(c claims) { c["scope"], c["scp"] = nil, []string{"a", "b"} }), 200, "alice a,b"},
		{"static token", "Bearer static-token-0123456789", 200, "ci-bot deploy"},
		{"lower-case scheme", "bearer static-token-0123456789", 200, "ci-bot deploy"},
		{"no header", "", 401, ""},
		{"not bearer", "Basic YWxhZGRpbjpvcGVuc2VzYW1l", 401, ""},
		{"static prefix", "Bearer static-token-012345678", 401, ""},
		{"garbage", "Bearer not.a.jwt", 401, ""},
		{"wrong issuer", "Bearer " + p.sign("k1", jwa.RS256(), func(c claims) { c["iss"] = "https://evil.test" }), 401, ""},
		{"wrong audience", "Bearer " + p.sign("k1", jwa.RS256(), func(c claims) { c["aud"] = []string{"https://other.test"} }), 401, ""},
		{"expired", "Bearer " + p.sign("k1", jwa.RS256(), func(c claims) { c["exp"] = time.Now().Add(-time.Minute).Unix() }), 401, ""},
		{"expired within leeway", "Bearer " + p.sign("k1", jwa.RS256(), func(c claims) { c["exp"] = time.Now().Add(-10 * time.Second).Unix() }), 200, "alice tickets:read,tickets:write"},
		{"not yet valid", "Bearer " + p.sign("k1", jwa.RS256(), func(c claims) { c["nbf"] = time.Now().Add(time.Hour).Unix() }), 401, ""},
		{"no expiry", "Bearer " + p.sign("k1", jwa.RS256(), func(c claims) { c["exp"] = nil }), 401, ""},
		{"no subject", "Bearer " + p.sign("k1", jwa.RS256(), func(c claims) { c["sub"] = nil }), 401, ""},
		{"alg none", "Bearer " + base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","kid":"k1"}`)) + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"iss":"https://idp.test","aud":"https://mcp.test/mcp","sub":"mallory","exp":9999999999}`)) + ".", 401, ""},
		{"HS256 with the public key", "Bearer " + hs256(pubDER, "k1"), 401, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body, challenge := do(t, srv.URL, tt.auth)
			if code != tt.code {
				t.Fatalf("status %d (%s), want %d", code, body, tt.code)
			}
			if code == 200 && body != tt.body {
				t.Errorf("caller %q, want %q", body, tt.body)
			}
			if code == 401 {
				want := meta
				if tt.auth != "" {
					want += `, error="invalid_token"`
				}
				if challenge != want {
					t.Errorf("WWW-Authenticate %q, want %q", challenge, want)
				}
				if strings.Contains(body, "static-token") {
					t.Errorf("the answer echoes a token: %q", body)
				}
			}
		})
	}
}

func TestKeyRotation(t *testing.T) {
	p := newIDP(t)
	p.addKey("k1", "rsa")
	a, _ := New(p.config(), nil)
	a.keys.minRefresh = 200 * time.Millisecond
	srv := serve(t, a)
	if code, body, _ := do(t, srv.URL, "Bearer "+p.sign("k1", jwa.RS256(), nil)); code != 200 {
		t.Fatalf("k1: %d %s", code, body)
	}
	time.Sleep(250 * time.Millisecond)
	// The IdP rotates to k2: the first token signed with it makes the JWKS
	// be fetched again.
	p.addKey("k2", "ec")
	before := p.fetches.Load()
	if code, body, _ := do(t, srv.URL, "Bearer "+p.sign("k2", jwa.ES256(), nil)); code != 200 {
		t.Fatalf("rotated key refused: %d %s", code, body)
	}
	if got := p.fetches.Load() - before; got != 1 {
		t.Errorf("%d fetches for a rotated key, want 1", got)
	}
	// Tokens naming keys that do not exist cannot make the server hammer the
	// IdP: at most one fetch per interval.
	time.Sleep(250 * time.Millisecond)
	p.addKey("ghost", "rsa")
	bogus := p.sign("ghost", jwa.RS256(), nil)
	p.mu.Lock()
	p.public = jwk.NewSet()
	p.mu.Unlock()
	before = p.fetches.Load()
	for range 50 {
		if code, _, _ := do(t, srv.URL, "Bearer "+bogus); code != 401 {
			t.Fatalf("unknown kid: %d, want 401", code)
		}
	}
	if got := p.fetches.Load() - before; got != 1 {
		t.Errorf("%d fetches for 50 tokens with an unknown kid, want 1", got)
	}
}

func TestMetadataAndCheck(t *testing.T) {
	p := newIDP(t)
	p.addKey("k1", "rsa")
	cfg := p.config()
	cfg.OAuth.ScopesSupported = []string{"tickets:read"}
	a, _ := New(cfg, nil)
	if a.MetadataPath() != "/.well-known/oauth-protected-resource/mcp" {
		t.Errorf("metadata path %q", a.MetadataPath())
	}
	rec := httptest.NewRecorder()
	a.MetadataHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, a.MetadataPath(), nil))
	var doc map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err, rec.Body)
	}
	got, _ := json.Marshal(map[string]any{"resource": doc["resource"], "authorization_servers": doc["authorization_servers"], "scopes_supported": doc["scopes_supported"], "bearer_methods_supported": doc["bearer_methods_supported"]})
	if want := `{"authorization_servers":["https://idp.test"],"bearer_methods_supported":["header"],"resource":"https://mcp.test/mcp","scopes_supported":["tickets:read"]}`; string(got) != want {
		t.Errorf("metadata %s, want %s", got, want)
	}
	if err := a.Check(context.Background()); err != nil {
		t.Errorf("check with the IdP up: %v", err)
	}
	p.srv.Close()
	err := a.Check(context.Background())
	if err == nil || !strings.Contains(err.Error(), "cannot fetch the JWKS at "+p.srv.URL) {
		t.Errorf("check with the IdP down: %v", err)
	}

	// Static tokens only: no metadata, and a plain challenge.
	st, _ := New(&Config{Tokens: []Token{{Subject: "x", Value: "static-token-0123456789"}}}, nil)
	if st.MetadataPath() != "" || st.MetadataHandler() != nil || st.Check(context.Background()) != nil {
		t.Error("static tokens have metadata or a check")
	}
	srv := serve(t, st)
	if code, _, challenge := do(t, srv.URL, ""); code != 401 || challenge != `Bearer realm="mcpdecl"` {
		t.Errorf("static, no token: %d %q", code, challenge)
	}
}

func decode(t *testing.T, src string, env map[string]string) (*Config, string) {
	t.Helper()
	file, diags := hclsyntax.ParseConfig([]byte(src), "t.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	content, _ := file.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "auth"}}})
	ctx := &engine.DecodeContext{EvalContext: &hcl.EvalContext{}, Redactor: &engine.Redactor{}, Settings: engine.DefaultSettings()}
	cfg, diags := Decode(content.Blocks[0], ctx)
	var msgs []string
	for _, d := range diags {
		msgs = append(msgs, fmt.Sprintf("%d:%d: %s: %s", d.Subject.Start.Line, d.Subject.Start.Column, d.Summary, d.Detail))
	}
	if ctx.Redactor.Redact("x static-token-0123456789") == "x (sensitive)" {
		msgs = append(msgs, "redacted")
	}
	return cfg, strings.Join(msgs, "\n")
}

func TestDecode(t *testing.T) {
	tests := []struct{ src, want, cfg string }{
		{
			src:  "auth {\n  token \"bot\" {\n    value = \"static-token-0123456789\"\n    scopes = [\"a\"]\n  }\n}",
			want: "redacted", cfg: "{[{bot (sensitive) [a]}] <nil>}",
		},
		{
			src: "auth {\n  oauth {\n    jwks_url = \"https://idp/jwks\"\n    issuer = \"https://idp\"\n    audience = \"https://mcp/mcp\"\n  }\n}",
			cfg: "{[] 0x", // a pointer: checked below
		},
		{src: "auth {\n}", want: "1:1: Empty auth block"},
		{src: "auth {\n  token \"bot\" {\n    value = \"short\"\n  }\n}", want: "3:13: Token too short: The token \"bot\" is shorter than 16 bytes"},
		{src: "auth {\n  token \"bot\" {\n    value = \"\"\n  }\n}", want: "3:13: Empty token"},
		{src: "auth {\n  token \"a\" {\n    value = \"static-token-0123456789\"\n  }\n  token \"b\" {\n    value = \"static-token-0123456789\"\n  }\n}", want: `5:3: Duplicate token value: The tokens "a" and "b" have the same value`},
		{src: "auth {\n  token \"a\" {\n    value = \"static-token-0123456789\"\n  }\n  token \"a\" {\n    value = \"static-token-9876543210\"\n  }\n}", want: `5:9: Duplicate token`},
		{src: "auth {\n  oauth {\n    jwks_url = \"http://idp.example.com/jwks\"\n    issuer = \"i\"\n    audience = \"a\"\n  }\n}", want: "3:16: Invalid jwks_url: \"http://idp.example.com/jwks\" uses plain http"},
		{src: "auth {\n  oauth {\n    jwks_url = \"https://idp/jwks\"\n    issuer = \"i\"\n  }\n}", want: `The argument "audience" is required`},
		{src: "auth {\n  oauth {\n    jwks_url = \"https://idp/jwks\"\n    issuer = \"i\"\n    audience = \"a\"\n    leeway = \"1h\"\n  }\n}", want: "6:14: Invalid leeway"},
		{src: "auth {\n  token \"bot\" {\n    value = \"static-token-0123456789\"\n    scopes = \"a\"\n  }\n}", want: "4:14: Invalid scopes"},
	}
	for _, tt := range tests {
		cfg, got := decode(t, tt.src, nil)
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("%s\ngot  %s\nwant %s", tt.src, got, tt.want)
		}
		if tt.cfg != "" && !strings.HasPrefix(fmt.Sprintf("%v", *cfg), tt.cfg) {
			t.Errorf("%s\ndecoded %v, want %s", tt.src, *cfg, tt.cfg)
		}
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x"} {
			if cfg != nil && strings.Contains(fmt.Sprintf(verb, cfg.Tokens), "static-token") {
				t.Errorf("a token shows with %s: %s", verb, fmt.Sprintf(verb, cfg.Tokens))
			}
		}
	}
	cfg, _ := decode(t, tests[1].src, nil)
	if o := cfg.OAuth; o.Resource != "https://mcp/mcp" || len(o.AuthorizationServers) != 1 || o.AuthorizationServers[0] != "https://idp" || o.Leeway != DefaultLeeway {
		t.Errorf("oauth defaults: %+v", o)
	}
}
