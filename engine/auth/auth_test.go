package auth

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"go.uber.org/goleak"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/server"
)

// The authenticator is what the HTTP front looks for among the resources,
// and the configuration closes and checks it.
var (
	_ server.Authenticator = (*Authenticator)(nil)
	_ io.Closer            = (*Authenticator)(nil)
)

const (
	staticValue = "static-token-0123456789"
	issuer      = "https://idp.test"
	audience    = "https://mcp.test/mcp"
	metaURL     = "https://mcp.test/.well-known/oauth-protected-resource/mcp"
)

// idp is an authorization server for tests: it signs tokens with keys made
// here and serves the public half of those it publishes as a JWKS,
// counting the fetches.
type idp struct {
	t       *testing.T
	mu      sync.Mutex
	private map[string]any   // by kid
	public  []map[string]any // the JWKs published
	status  int              // the status of the JWKS answers; 0 is 200
	fetches atomic.Int32
	srv     *httptest.Server
}

func newIDP(t *testing.T) *idp {
	p := &idp{t: t, private: map[string]any{}}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		p.fetches.Add(1)
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.status != 0 {
			w.WriteHeader(p.status)
			return
		}
		_ = json.NewEncoder(w).Encode(jwks(p.public...))
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// addKey makes a key, RSA, EC or Ed25519, and publishes it under kid; edit
// may change the published key.
func (p *idp) addKey(kid, kind string, edit func(map[string]any)) {
	p.t.Helper()
	var priv, pub any
	switch kind {
	case "rsa":
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			p.t.Fatal(err)
		}
		priv, pub = k, &k.PublicKey
	case "ec":
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			p.t.Fatal(err)
		}
		priv, pub = k, &k.PublicKey
	case "ed":
		pk, k, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			p.t.Fatal(err)
		}
		priv, pub = k, pk
	}
	jpub := publicJWK(p.t, pub)
	jpub["kid"] = kid
	if edit != nil {
		edit(jpub)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.private[kid] = priv
	p.public = append(p.public, jpub)
}

// b64 is base64url without padding, as JWKs hold.
func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// publicJWK is the JWK of a public key: *rsa.PublicKey, *ecdsa.PublicKey
// or ed25519.PublicKey.
func publicJWK(t *testing.T, pub any) map[string]any {
	t.Helper()
	switch k := pub.(type) {
	case *rsa.PublicKey:
		return map[string]any{"kty": "RSA", "n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes())}
	case *ecdsa.PublicKey:
		point, err := k.Bytes() // 4, x, y
		if err != nil {
			t.Fatal(err)
		}
		size := (len(point) - 1) / 2
		return map[string]any{"kty": "EC", "crv": k.Curve.Params().Name, "x": b64(point[1 : 1+size]), "y": b64(point[1+size:])}
	case ed25519.PublicKey:
		return map[string]any{"kty": "OKP", "crv": "Ed25519", "x": b64(k)}
	}
	t.Fatalf("no JWK for a %T", pub)
	return nil
}

// jwks is the JSON Web Key Set of keys.
func jwks(keys ...map[string]any) map[string]any {
	if keys == nil {
		keys = []map[string]any{}
	}
	return map[string]any{"keys": keys}
}

// setStatus makes the JWKS answers fail with status, or succeed with 0.
func (p *idp) setStatus(status int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.status = status
}

// unpublish removes every key from the JWKS; they can still sign.
func (p *idp) unpublish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.public = nil
}

// claims are a token's claims; a nil value leaves the claim out.
type claims map[string]any

// sign makes a token signed by kid's key (kid "-k": by k's key, with no
// kid in the header), with standard claims that edit may change.
func (p *idp) sign(kid, alg string, edit func(claims)) string {
	p.t.Helper()
	return p.signAs(strings.TrimPrefix(kid, "-"), kid, alg, edit)
}

// signAs makes a token signed by the key of keyID, whose header names kid.
func (p *idp) signAs(keyID, kid, alg string, edit func(claims)) string {
	p.t.Helper()
	now := time.Now()
	c := claims{
		"iss": issuer, "aud": []string{audience}, "sub": "alice",
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "scope": "tickets:read tickets:write",
	}
	if edit != nil {
		edit(c)
	}
	mc := jwt.MapClaims{}
	for k, v := range c {
		if v != nil {
			mc[k] = v
		}
	}
	tok := jwt.NewWithClaims(jwt.GetSigningMethod(alg), mc)
	if !strings.HasPrefix(kid, "-") {
		tok.Header["kid"] = kid
	}
	p.mu.Lock()
	priv := p.private[keyID]
	p.mu.Unlock()
	signed, err := tok.SignedString(priv)
	if err != nil {
		p.t.Fatal(err)
	}
	return signed
}

func (p *idp) config() *Config {
	return &Config{
		Tokens: []Token{
			{Subject: "ci-bot", Value: staticValue, Scopes: []string{"deploy"}},
			{Subject: "other", Value: "another-static-token-ABCDEFGHIJ"},
		},
		OAuth: &OAuth{
			JWKSURL: p.srv.URL, Issuer: issuer, Audience: audience, Resource: audience,
			AuthorizationServers: []string{issuer}, ScopesSupported: []string{"tickets:read", "tickets:write"},
			Leeway: 30 * time.Second,
		},
	}
}

// newAuth builds the authenticator of cfg, logging to log, refreshing for
// unknown keys at most every interval.
func newAuth(t *testing.T, cfg *Config, log io.Writer, interval time.Duration) *Authenticator {
	t.Helper()
	var logger *slog.Logger
	if log != nil {
		logger = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	a, err := New(cfg, logger)
	if err != nil {
		t.Fatal(err)
	}
	if a.keys != nil && interval > 0 {
		a.keys.minRefresh = interval
	}
	t.Cleanup(func() { _ = a.Close() })
	return a
}

// serve puts an echo of the caller's identity and scopes behind a's token
// check.
func serve(t *testing.T, a *Authenticator) *httptest.Server {
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := sdkauth.TokenInfoFromContext(r.Context())
		fmt.Fprintf(w, "%s %s", info.UserID, strings.Join(info.Scopes, ","))
	})
	srv := httptest.NewServer(a.Wrap(echo))
	t.Cleanup(srv.Close)
	return srv
}

type answer struct {
	code            int
	body, challenge string
}

func do(t *testing.T, url, authorization string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, strings.TrimSpace(string(b)), resp.Header.Get("WWW-Authenticate")}
}

// hs256 signs claims with HMAC, the way an attacker would with a public key
// as the secret.
func hs256(secret []byte, kid string) string {
	enc := base64.RawURLEncoding
	head := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT","kid":"` + kid + `"}`))
	body := enc.EncodeToString(fmt.Appendf(nil, `{"iss":%q,"aud":%q,"sub":"mallory","exp":%d}`, issuer, audience, time.Now().Add(time.Hour).Unix()))
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(head + "." + body))
	return head + "." + body + "." + enc.EncodeToString(mac.Sum(nil))
}

// unsigned is a token with alg none.
func unsigned(kid string) string {
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(`{"alg":"none","kid":"`+kid+`"}`)) + "." +
		enc.EncodeToString(fmt.Appendf(nil, `{"iss":%q,"aud":%q,"sub":"mallory","exp":9999999999}`, issuer, audience)) + "."
}

func TestVerifyThroughWrap(t *testing.T) {
	p := newIDP(t)
	p.addKey("k1", "rsa", nil)
	p.addKey("e1", "ec", nil)
	p.addKey("pinned", "rsa", func(k map[string]any) { k["alg"] = "RS256" })
	p.addKey("d1", "ed", nil)
	p.addKey("enc", "rsa", func(k map[string]any) { k["use"] = "enc" })
	var log bytes.Buffer
	a := newAuth(t, p.config(), &log, 0)
	srv := serve(t, a)
	rsaPub := p.private["k1"].(*rsa.PrivateKey).PublicKey
	pubDER, err := x509.MarshalPKIXPublicKey(&rsaPub)
	if err != nil {
		t.Fatal(err)
	}
	pubJWK, _ := json.Marshal(jwks(p.public...))
	now := time.Now()
	const scope = `, scope="tickets:read tickets:write"`
	refused := func(why string) string {
		return `Bearer resource_metadata="` + metaURL + `"` + scope + `, error="invalid_token", error_description="` + why + `"`
	}
	tests := []struct {
		name, auth string
		code       int
		body       string // 200: subject and scopes; 401: the start of the body
		challenge  string
	}{
		{"RSA", "Bearer " + p.sign("k1", "RS256", nil), 200, "jwt:alice tickets:read,tickets:write", ""},
		{"RSA-PSS", "Bearer " + p.sign("k1", "PS384", nil), 200, "jwt:alice tickets:read,tickets:write", ""},
		{"EC", "Bearer " + p.sign("e1", "ES256", nil), 200, "jwt:alice tickets:read,tickets:write", ""},
		{"EdDSA", "Bearer " + p.sign("d1", "EdDSA", nil), 200, "jwt:alice tickets:read,tickets:write", ""},
		{"scp list", "Bearer " + p.sign("k1", "RS256", func(c claims) { c["scope"], c["scp"] = nil, []string{"a", "b"} }), 200, "jwt:alice a,b", ""},
		{"scp string", "Bearer " + p.sign("k1", "RS256", func(c claims) { c["scope"], c["scp"] = nil, "a b" }), 200, "jwt:alice a,b", ""},
		{"no scopes", "Bearer " + p.sign("k1", "RS256", func(c claims) { c["scope"] = nil }), 200, "jwt:alice", ""},
		{"aud as a string", "Bearer " + p.sign("k1", "RS256", func(c claims) { c["aud"] = audience }), 200, "jwt:alice tickets:read,tickets:write", ""},
		{"aud among others", "Bearer " + p.sign("k1", "RS256", func(c claims) { c["aud"] = []string{"https://other.test", audience} }), 200, "jwt:alice tickets:read,tickets:write", ""},
		{"expired within leeway", "Bearer " + p.sign("k1", "RS256", func(c claims) { c["exp"] = now.Add(-10 * time.Second).Unix() }), 200, "jwt:alice tickets:read,tickets:write", ""},
		{"nbf within leeway", "Bearer " + p.sign("k1", "RS256", func(c claims) { c["nbf"] = now.Add(10 * time.Second).Unix() }), 200, "jwt:alice tickets:read,tickets:write", ""},
		{"iat within leeway", "Bearer " + p.sign("k1", "RS256", func(c claims) { c["iat"] = now.Add(10 * time.Second).Unix() }), 200, "jwt:alice tickets:read,tickets:write", ""},
		{"alg pinned by the key", "Bearer " + p.sign("pinned", "RS256", nil), 200, "jwt:alice tickets:read,tickets:write", ""},
		{"static token", "Bearer " + staticValue, 200, "token:ci-bot deploy", ""},
		{"second static token", "Bearer another-static-token-ABCDEFGHIJ", 200, "token:other", ""},
		{"lower-case scheme", "bearer " + staticValue, 200, "token:ci-bot deploy", ""},

		{"no header", "", 401, "no bearer token", `Bearer resource_metadata="` + metaURL + `"` + scope},
		{"not bearer", "Basic YWxhZGRpbjpvcGVuc2VzYW1l", 401, "no bearer token", `Bearer resource_metadata="` + metaURL + `"` + scope},
		{"bearer without a token", "Bearer", 401, "no bearer token", `Bearer resource_metadata="` + metaURL + `"` + scope},
		{"two tokens", "Bearer a b", 401, "no bearer token", `Bearer resource_metadata="` + metaURL + `"` + scope},
		{"static prefix", "Bearer " + staticValue[:len(staticValue)-1], 401, "invalid token: the token is not a JWT", refused("the token is not a JWT")},
		{"static longer", "Bearer " + staticValue + "0", 401, "invalid token: the token is not a JWT", refused("the token is not a JWT")},
		{"garbage", "Bearer not.a.jwt", 401, "invalid token: the token's header", refused("the token's header is not base64url-encoded JSON")},
		{"wrong issuer", "Bearer " + p.sign("k1", "RS256", func(c claims) { c["iss"] = "https://evil.test" }), 401, "invalid token", refused("the token is issued by another authorization server (iss)")},
		{"no issuer", "Bearer " + p.sign("k1", "RS256", func(c claims) { c["iss"] = nil }), 401, "invalid token", refused("the token is issued by another authorization server (iss)")},
		{"wrong audience", "Bearer " + p.sign("k1", "RS256", func(c claims) { c["aud"] = []string{"https://other.test"} }), 401, "invalid token", refused("the token is meant for another server (aud)")},
		{"no audience", "Bearer " + p.sign("k1", "RS256", func(c claims) { c["aud"] = nil }), 401, "invalid token", refused("the token is meant for another server (aud)")},
		{"expired", "Bearer " + p.sign("k1", "RS256", func(c claims) { c["exp"] = now.Add(-time.Minute).Unix() }), 401, "invalid token", refused("the token has expired (exp)")},
		{"not yet valid", "Bearer " + p.sign("k1", "RS256", func(c claims) { c["nbf"] = now.Add(time.Minute).Unix() }), 401, "invalid token", refused("the token is not valid yet (nbf)")},
		{"issued in the future", "Bearer " + p.sign("k1", "RS256", func(c claims) { c["iat"] = now.Add(time.Minute).Unix() }), 401, "invalid token", refused("the token is issued in the future (iat)")},
		{"no expiry", "Bearer " + p.sign("k1", "RS256", func(c claims) { c["exp"] = nil }), 401, "invalid token", refused("the token has no expiry (exp)")},
		{"no subject", "Bearer " + p.sign("k1", "RS256", func(c claims) { c["sub"] = nil }), 401, "invalid token", refused("the token has no subject (sub)")},
		{"no kid, two keys", "Bearer " + p.sign("-k1", "RS256", nil), 401, "invalid token", refused("the token's signing key is not one of the authorization server's")},
		{"signed by another key", "Bearer " + p.signAs("k1", "pinned", "RS256", nil), 401, "invalid token", refused("the token's signature is not valid")},
		{"alg against the key's", "Bearer " + p.sign("pinned", "PS256", nil), 401, "invalid token", refused("the token's algorithm is not the one of its key")},
		{"alg of another key type", "Bearer " + resign(t, p.sign("e1", "ES256", nil), "RS256"), 401, "invalid token", refused("the token's algorithm is not the one of its key")},
		{"encryption key", "Bearer " + p.sign("enc", "RS256", nil), 401, "invalid token", refused("the token's key is not a signing key")},
		{"tampered claims", "Bearer " + tamper(p.sign("k1", "RS256", nil)), 401, "invalid token", refused("the token's signature is not valid")},
		{"alg none", "Bearer " + unsigned("k1"), 401, "invalid token", refused("the token's signing algorithm is not accepted: only RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512 and EdDSA are")},
		{"HS256 with the public key", "Bearer " + hs256(pubDER, "k1"), 401, "invalid token", refused("the token's signing algorithm is not accepted: only RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512 and EdDSA are")},
		{"HS256 with the JWKS", "Bearer " + hs256(pubJWK, "k1"), 401, "invalid token", refused("the token's signing algorithm is not accepted: only RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512 and EdDSA are")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := do(t, srv.URL, tt.auth)
			if got.code != tt.code {
				t.Fatalf("status %d (%s), want %d", got.code, got.body, tt.code)
			}
			if tt.code == 200 && got.body != tt.body || tt.code != 200 && !strings.HasPrefix(got.body, tt.body) {
				t.Errorf("body %q, want %q", got.body, tt.body)
			}
			if got.challenge != tt.challenge {
				t.Errorf("WWW-Authenticate\n got %s\nwant %s", got.challenge, tt.challenge)
			}
		})
	}
	for _, secret := range []string{staticValue, "another-static-token", "eyJ"} {
		if strings.Contains(log.String(), secret) {
			t.Errorf("the log shows a token:\n%s", log.String())
		}
	}
	if !strings.Contains(log.String(), `reason="the token has expired (exp)"`) {
		t.Errorf("the log does not say why a token was refused:\n%s", log.String())
	}
}

// tamper changes a signed token's subject.
func tamper(token string) string {
	parts := strings.Split(token, ".")
	raw, _ := base64.RawURLEncoding.DecodeString(parts[1])
	parts[1] = base64.RawURLEncoding.EncodeToString(bytes.Replace(raw, []byte(`"alice"`), []byte(`"admin"`), 1))
	return strings.Join(parts, ".")
}

// resign changes the alg of a token's header, keeping its signature.
func resign(t *testing.T, token, alg string) string {
	t.Helper()
	parts := strings.Split(token, ".")
	raw, _ := base64.RawURLEncoding.DecodeString(parts[0])
	var h map[string]any
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatal(err)
	}
	h["alg"] = alg
	b, _ := json.Marshal(h)
	parts[0] = base64.RawURLEncoding.EncodeToString(b)
	return strings.Join(parts, ".")
}

func TestStaticTokensOnly(t *testing.T) {
	a := newAuth(t, &Config{Tokens: []Token{{Subject: "ci-bot", Value: staticValue, Scopes: []string{"read", "write"}}}}, nil, 0)
	if a.MetadataPath() != "" || a.MetadataHandler() != nil {
		t.Errorf("static tokens have a metadata document at %q", a.MetadataPath())
	}
	if err := a.Check(context.Background()); err != nil {
		t.Errorf("check: %v", err)
	}
	srv := serve(t, a)
	tests := []struct {
		name, auth string
		want       answer
	}{
		{"right", "Bearer " + staticValue, answer{200, "token:ci-bot read,write", ""}},
		{"no header", "", answer{401, "no bearer token", `Bearer realm="mcpdecl"`}},
		{"wrong", "Bearer wrong-token-0123456789", answer{401, "invalid token: the token is not one of the declared tokens", `Bearer realm="mcpdecl", error="invalid_token", error_description="the token is not one of the declared tokens"`}},
		{"prefix of right", "Bearer " + staticValue[:20], answer{401, "invalid token: the token is not one of the declared tokens", `Bearer realm="mcpdecl", error="invalid_token", error_description="the token is not one of the declared tokens"`}},
		{"right and more", "Bearer " + staticValue + "x", answer{401, "invalid token: the token is not one of the declared tokens", `Bearer realm="mcpdecl", error="invalid_token", error_description="the token is not one of the declared tokens"`}},
		{"a JWT", "Bearer " + unsigned("k1"), answer{401, "invalid token: the token is not one of the declared tokens", `Bearer realm="mcpdecl", error="invalid_token", error_description="the token is not one of the declared tokens"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := do(t, srv.URL, tt.auth); got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
	// The scopes handed out are copies: a handler cannot change the token's.
	info, err := a.Verify(context.Background(), staticValue, nil)
	if err != nil {
		t.Fatal(err)
	}
	info.Scopes[0] = "admin"
	if info, _ := a.Verify(context.Background(), staticValue, nil); info.Scopes[0] != "read" || time.Until(info.Expiration) < 50*365*24*time.Hour {
		t.Errorf("second verification: %+v", info)
	}
}

func TestVerifyErrors(t *testing.T) {
	p := newIDP(t)
	p.addKey("k1", "rsa", nil)
	a := newAuth(t, p.config(), nil, 0)
	for _, token := range []string{"short", staticValue + "!", p.sign("k1", "RS256", func(c claims) { c["iss"] = "x" })} {
		info, err := a.Verify(context.Background(), token, nil)
		if info != nil || !errors.Is(err, sdkauth.ErrInvalidToken) {
			t.Errorf("Verify: %v, %v; want an error wrapping ErrInvalidToken", info, err)
		}
		if err != nil && strings.Contains(err.Error(), token) {
			t.Errorf("the error shows the token: %v", err)
		}
	}
}

func TestKeyRotation(t *testing.T) {
	p := newIDP(t)
	p.addKey("k1", "rsa", nil)
	const interval = time.Second
	a := newAuth(t, p.config(), nil, interval)
	srv := serve(t, a)
	if got := do(t, srv.URL, "Bearer "+p.sign("k1", "RS256", nil)); got.code != 200 {
		t.Fatalf("k1: %+v", got)
	}
	if n := p.fetches.Load(); n != 1 {
		t.Errorf("%d fetches for the first token, want 1", n)
	}
	if got := do(t, srv.URL, "Bearer "+p.sign("k1", "RS256", nil)); got.code != 200 || p.fetches.Load() != 1 {
		t.Errorf("a known key was fetched again, or refused: %+v, %d fetches", got, p.fetches.Load())
	}
	time.Sleep(interval)

	// The IdP rotates to k2: the first token signed with it makes the JWKS
	// be fetched again.
	p.addKey("k2", "ec", nil)
	if got := do(t, srv.URL, "Bearer "+p.sign("k2", "ES256", nil)); got.code != 200 {
		t.Fatalf("rotated key refused: %+v", got)
	}
	if n := p.fetches.Load(); n != 2 {
		t.Errorf("%d fetches after a rotation, want 2", n)
	}
	time.Sleep(interval)

	// Tokens naming keys the IdP does not publish cannot make the server
	// hammer it: a flood, sequential then concurrent, fetches once per
	// interval.
	p.addKey("ghost", "rsa", nil)
	bogus := p.sign("ghost", "RS256", nil)
	p.unpublish()
	before := p.fetches.Load()
	for range 20 {
		if got := do(t, srv.URL, "Bearer "+bogus); got.code != 401 || !strings.Contains(got.challenge, "signing key is not one of") {
			t.Fatalf("unknown kid: %+v", got)
		}
	}
	var wg sync.WaitGroup
	for range 30 {
		wg.Go(func() {
			if _, err := a.Verify(context.Background(), bogus, nil); err == nil {
				t.Error("unknown kid let in")
			}
		})
	}
	wg.Wait()
	if got := p.fetches.Load() - before; got != 1 {
		t.Errorf("%d fetches for 50 tokens with an unknown kid within %s, want 1", got, interval)
	}
	time.Sleep(interval)
	if _, err := a.Verify(context.Background(), bogus, nil); err == nil {
		t.Error("unknown kid let in")
	}
	if got := p.fetches.Load() - before; got != 2 {
		t.Errorf("%d fetches once the interval passed, want 2", got)
	}
	// The keys fetched last are those used: k1 is gone.
	if _, err := a.Verify(context.Background(), p.sign("k1", "RS256", nil), nil); err == nil {
		t.Error("a key the IdP no longer publishes still lets tokens in")
	}
}

func TestTokenWithoutKid(t *testing.T) {
	p := newIDP(t)
	p.addKey("only", "ec", nil)
	a := newAuth(t, p.config(), nil, 0)
	if info, err := a.Verify(context.Background(), p.sign("-only", "ES256", nil), nil); err != nil || info.UserID != "jwt:alice" {
		t.Errorf("a token without kid, against a set of one key: %v, %v", info, err)
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name  string
		setup func(p *idp) string // returns the JWKS URL
		want  string              // "" for no error
	}{
		{"up", func(p *idp) string { return p.srv.URL }, ""},
		{"down", func(p *idp) string { p.srv.Close(); return p.srv.URL }, "cannot fetch the JWKS at %s: dial tcp"},
		{"500", func(p *idp) string { p.setStatus(500); return p.srv.URL }, "cannot fetch the JWKS at %s: the server answered 500 Internal Server Error"},
		{"too large", func(p *idp) string {
			big := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				_, _ = w.Write(bytes.Repeat([]byte(" "), jwksMaxBytes+1))
			}))
			t.Cleanup(big.Close)
			return big.URL
		}, "cannot fetch the JWKS at %s: the answer is larger than 1048576 bytes"},
		{"HTML", func(p *idp) string {
			html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				_, _ = io.WriteString(w, "<html>login</html>")
			}))
			t.Cleanup(html.Close)
			return html.URL
		}, "cannot fetch the JWKS at %s: the answer is not a JSON Web Key Set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newIDP(t)
			p.addKey("k1", "rsa", nil)
			cfg := p.config()
			cfg.OAuth.JWKSURL = tt.setup(p)
			a := newAuth(t, cfg, nil, time.Nanosecond)
			err := a.Check(context.Background())
			if tt.want == "" {
				if err != nil {
					t.Fatalf("check: %v", err)
				}
				return
			}
			if want := fmt.Sprintf(tt.want, cfg.OAuth.JWKSURL); err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("check: %v\nwant %s…", err, want)
			}
			// A token cannot be checked, and the client is not told why in
			// detail.
			_, err = a.Verify(context.Background(), p.sign("k1", "RS256", nil), nil)
			if err == nil || err.Error() != "invalid token: the authorization server's keys cannot be fetched" {
				t.Errorf("verify: %v", err)
			}
		})
	}
}

// Checks within the interval report the last fetch instead of fetching
// again, so that probes cannot flood the IdP; the IdP coming back shows
// after the interval.
func TestCheckInterval(t *testing.T) {
	p := newIDP(t)
	p.addKey("k1", "rsa", nil)
	p.setStatus(http.StatusServiceUnavailable)
	const interval = 500 * time.Millisecond
	a := newAuth(t, p.config(), nil, interval)
	ctx := context.Background()
	for range 5 {
		if err := a.Check(ctx); err == nil {
			t.Fatal("check passed with the IdP failing")
		}
	}
	if n := p.fetches.Load(); n != 1 {
		t.Errorf("%d fetches for 5 checks, want 1", n)
	}
	p.setStatus(0)
	time.Sleep(interval)
	if err := a.Check(ctx); err != nil {
		t.Errorf("check once the IdP is back: %v", err)
	}
}

func TestCloseStopsEverything(t *testing.T) {
	p := newIDP(t)
	p.addKey("k1", "rsa", nil)
	ignore := goleak.IgnoreCurrent()
	a, err := New(p.config(), nil)
	if err != nil {
		t.Fatal(err)
	}
	token := p.sign("k1", "RS256", nil)
	if _, err := a.Verify(context.Background(), token, nil); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	// Keys already fetched still serve; nothing is fetched any more.
	if _, err := a.Verify(context.Background(), token, nil); err != nil {
		t.Errorf("after Close: %v", err)
	}
	if err := a.Check(context.Background()); !errors.Is(err, errClosed) {
		t.Errorf("check after Close: %v", err)
	}
	goleak.VerifyNone(t, ignore)
}

func TestNewDoesNotFetch(t *testing.T) {
	p := newIDP(t)
	a := newAuth(t, p.config(), nil, 0)
	if n := p.fetches.Load(); n != 0 {
		t.Errorf("New fetched the JWKS %d times", n)
	}
	if _, err := a.Verify(context.Background(), staticValue, nil); err != nil || p.fetches.Load() != 0 {
		t.Errorf("a static token made the JWKS be fetched: %v, %d", err, p.fetches.Load())
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  *Config
		want string
	}{
		{"nothing", &Config{}, "the auth block declares no token and no oauth block, so no request could be let in"},
		{"short token", &Config{Tokens: []Token{{Subject: "x", Value: "short"}}}, `the token "x" is shorter than 16 bytes, short enough to be guessed`},
		{"no issuer", &Config{OAuth: &OAuth{JWKSURL: "https://idp/jwks", Audience: "a", Resource: "https://mcp/mcp"}}, "the oauth block needs jwks_url, issuer and audience"},
		{"bad resource", &Config{OAuth: &OAuth{JWKSURL: "https://idp/jwks", Issuer: "i", Audience: "a", Resource: "api://mcp"}}, `the resource "api://mcp" is not an absolute http or https URL; set resource to the URL clients reach this server at`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(tt.cfg, nil); err == nil || err.Error() != tt.want {
				t.Errorf("New: %v\nwant %s", err, tt.want)
			}
		})
	}
}

func TestMetadata(t *testing.T) {
	tests := []struct {
		resource, scopes  string
		path, url, header string
		doc               string
	}{
		{
			resource: "https://mcp.test/mcp", scopes: "tickets:read",
			path: "/.well-known/oauth-protected-resource/mcp",
			url:  "https://mcp.test/.well-known/oauth-protected-resource/mcp",
			doc:  `{"resource":"https://mcp.test/mcp","authorization_servers":["https://idp.test"],"scopes_supported":["tickets:read"],"bearer_methods_supported":["header"]}`,
		},
		{
			resource: "https://mcp.test/", path: "/.well-known/oauth-protected-resource",
			url: "https://mcp.test/.well-known/oauth-protected-resource",
			doc: `{"resource":"https://mcp.test/","authorization_servers":["https://idp.test"],"bearer_methods_supported":["header"]}`,
		},
		{
			resource: "http://127.0.0.1:8080/a%20b/mcp/", path: "/.well-known/oauth-protected-resource/a b/mcp",
			url: "http://127.0.0.1:8080/.well-known/oauth-protected-resource/a%20b/mcp",
			doc: `{"resource":"http://127.0.0.1:8080/a%20b/mcp/","authorization_servers":["https://idp.test"],"bearer_methods_supported":["header"]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.resource, func(t *testing.T) {
			cfg := &Config{OAuth: &OAuth{JWKSURL: "https://idp.test/jwks", Issuer: issuer, Audience: audience, Resource: tt.resource, AuthorizationServers: []string{issuer}, Leeway: DefaultLeeway}}
			if tt.scopes != "" {
				cfg.OAuth.ScopesSupported = strings.Fields(tt.scopes)
			}
			a := newAuth(t, cfg, nil, 0)
			if a.MetadataPath() != tt.path {
				t.Errorf("path %q, want %q", a.MetadataPath(), tt.path)
			}
			rec := httptest.NewRecorder()
			a.MetadataHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tt.url, nil))
			if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" {
				t.Errorf("answer %d %q", rec.Code, rec.Header().Get("Content-Type"))
			}
			if got := strings.TrimSpace(rec.Body.String()); got != tt.doc {
				t.Errorf("document\n got %s\nwant %s", got, tt.doc)
			}
			rec = httptest.NewRecorder()
			a.Wrap(http.NotFoundHandler()).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", nil))
			if got := rec.Header().Get("WWW-Authenticate"); !strings.HasPrefix(got, `Bearer resource_metadata="`+tt.url+`"`) {
				t.Errorf("challenge %s, want the metadata URL %s", got, tt.url)
			}
		})
	}
}

func TestHeaderSafe(t *testing.T) {
	if got := headerSafe("a \"b\" \\c\r\nd\x00é~"); got != "a b cd~" {
		t.Errorf("headerSafe: %q", got)
	}
}

// The handler behind Wrap gets the writer Wrap got, with all it can do
// (flush, hijack), not a wrapper.
func TestWrapPassesTheWriter(t *testing.T) {
	a := newAuth(t, &Config{Tokens: []Token{{Subject: "ci-bot", Value: staticValue}}}, nil, 0)
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+staticValue)
	var got http.ResponseWriter
	a.Wrap(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { got = w })).ServeHTTP(rec, req)
	if got != rec {
		t.Errorf("the handler got %T, not the recorder", got)
	}
}

func TestJWKSRedirects(t *testing.T) {
	p := newIDP(t)
	p.addKey("k1", "rsa", nil)
	tests := []struct {
		to   string
		want string // "" for no error
	}{
		{p.srv.URL + "/jwks", ""},
		{"http://idp.example.com/jwks", "cannot fetch the JWKS at %s: redirected to http://idp.example.com/jwks"},
	}
	for _, tt := range tests {
		t.Run(tt.to, func(t *testing.T) {
			redirect := httptest.NewServer(http.RedirectHandler(tt.to, http.StatusFound))
			defer redirect.Close()
			cfg := p.config()
			cfg.OAuth.JWKSURL = redirect.URL
			err := newAuth(t, cfg, nil, 0).Check(context.Background())
			if want := fmt.Sprintf(tt.want, redirect.URL); tt.want == "" && err != nil || tt.want != "" && (err == nil || err.Error() != want) {
				t.Errorf("check: %v\nwant %s", err, want)
			}
		})
	}
}

// TestChosenClaims checks that a verified JWT passes on the claims the
// oauth block's claims attribute names (nil when the token has none), and
// no other.
func TestChosenClaims(t *testing.T) {
	p := newIDP(t)
	p.addKey("k1", "rsa", nil)
	cfg := p.config()
	cfg.OAuth.Claims = []string{"tenant", "team"}
	a := newAuth(t, cfg, nil, 0)
	tok := p.sign("k1", "RS256", func(c claims) { c["tenant"] = "acme"; c["email"] = "alice@example.com" })
	info, err := a.Verify(context.Background(), tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := info.Extra[engine.ClaimsKey].(map[string]any)
	if len(got) != 2 || got["tenant"] != "acme" || got["team"] != nil {
		t.Errorf("claims passed on: %v, want tenant=acme and team=nil only", got)
	}

	// The token itself and its audience go along, for an upstream that
	// acts with the caller's token.
	if info.Extra[engine.TokenKey] != tok || !reflect.DeepEqual(info.Extra[engine.AudienceKey], []string{"https://mcp.test/mcp"}) {
		t.Errorf("token and audience passed on: %v, %v", info.Extra[engine.TokenKey] == tok, info.Extra[engine.AudienceKey])
	}

	// Without claims chosen, none is passed on.
	a = newAuth(t, p.config(), nil, 0)
	if info, err := a.Verify(context.Background(), tok, nil); err != nil || info.Extra[engine.ClaimsKey] != nil {
		t.Errorf("claims passed on without any chosen: %v, %v", info.Extra[engine.ClaimsKey], err)
	}
}
