package auth

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"maps"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/mcpdecl/mcpdecl/internal/testwait"
)

// testKey is a private key, and the JWK of its public half.
type testKey struct {
	priv any
	jwk  map[string]any
}

// with is a copy of the key's JWK with kid, and with members changed as
// edits say (a nil value removes a member).
func (k testKey) with(kid string, edits ...any) map[string]any {
	m := maps.Clone(k.jwk)
	m["kid"] = kid
	for i := 0; i+1 < len(edits); i += 2 {
		if edits[i+1] == nil {
			delete(m, edits[i].(string))
		} else {
			m[edits[i].(string)] = edits[i+1]
		}
	}
	return m
}

// newTestKeys makes one key of each kind the reader supports: "rsa",
// "p256", "p384", "p521" and "ed".
func newTestKeys(t *testing.T) map[string]testKey {
	t.Helper()
	keys := map[string]testKey{}
	r, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keys["rsa"] = testKey{r, publicJWK(t, &r.PublicKey)}
	for name, c := range map[string]elliptic.Curve{"p256": elliptic.P256(), "p384": elliptic.P384(), "p521": elliptic.P521()} {
		k, err := ecdsa.GenerateKey(c, rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		keys[name] = testKey{k, publicJWK(t, &k.PublicKey)}
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	keys["ed"] = testKey{priv, publicJWK(t, pub)}
	return keys
}

// The JWK reader: which keys serve to check a token naming kid and signed
// with alg, and, when none does, what people are told.
func TestParseJWKS(t *testing.T) {
	keys := newTestKeys(t)
	rsaK, p256 := keys["rsa"], keys["p256"]
	// A 1024-bit modulus: the first 128 bytes of the 2048-bit one, odd.
	n, _ := member("n", rsaK.jwk["n"].(string))
	short := bytes.Clone(n[:128])
	short[127] |= 1
	// A point off the curve: y changed.
	y, _ := member("y", p256.jwk["y"].(string))
	y[len(y)-1] ^= 1
	set := func(keys ...map[string]any) string {
		b, err := json.Marshal(jwks(keys...))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	const u = "https://idp.test/jwks"
	tests := []struct {
		name     string
		jwks     string
		kid, alg string
		signer   string // "": none; else the key of keys whose signature must check
		want     string // "": a key is found; else the start of the error
	}{
		{"RSA", set(rsaK.with("a")), "a", "RS256", "rsa", ""},
		{"RSA-PSS", set(rsaK.with("a")), "a", "PS512", "rsa", ""},
		{"P-256", set(p256.with("a")), "a", "ES256", "p256", ""},
		{"P-384", set(keys["p384"].with("a")), "a", "ES384", "p384", ""},
		{"P-521", set(keys["p521"].with("a")), "a", "ES512", "p521", ""},
		{"Ed25519", set(keys["ed"].with("a")), "a", "EdDSA", "ed", ""},
		{"use sig, alg stated", set(rsaK.with("a", "use", "sig", "alg", "PS256")), "a", "PS256", "rsa", ""},
		{"padded base64", set(rsaK.with("a", "n", rsaK.jwk["n"].(string)+"==")), "a", "RS256", "rsa", ""},
		{"a single key, not a set", func() string { b, _ := json.Marshal(rsaK.with("a")); return string(b) }(), "a", "RS256", "rsa", ""},
		{"no kid, one key", set(rsaK.with("a")), "", "RS256", "rsa", ""},
		{"no kid in the set", set(rsaK.with("a", "kid", nil)), "", "RS256", "rsa", ""},
		{"same kid, two types: EC", set(rsaK.with("a"), p256.with("a")), "a", "ES256", "p256", ""},
		{"same kid, two types: RSA", set(rsaK.with("a"), p256.with("a")), "a", "RS256", "rsa", ""},

		{"bad base64", set(rsaK.with("a", "n", "not*base64")), "a", "RS256", "", `the JWKS at ` + u + ` holds no key that can check a signature (key "a": its n is not base64url-encoded)`},
		{"bad base64 beside a good key", set(rsaK.with("a", "e", "A+B/"), p256.with("b")), "a", "RS256", "", `the JWKS at ` + u + ` holds a key "a" that cannot be used: its e is not base64url-encoded`},
		{"short RSA key", set(rsaK.with("a", "n", b64(short))), "a", "RS256", "", `the JWKS at ` + u + ` holds no key that can check a signature (key "a": the RSA key is 1024 bits long, fewer than 2048)`},
		{"even RSA exponent", set(rsaK.with("a", "e", "AQAA"), p256.with("b")), "a", "RS256", "", `the JWKS at ` + u + ` holds a key "a" that cannot be used: the RSA exponent (e) is not an odd number`},
		{"no modulus", set(rsaK.with("a", "n", nil), p256.with("b")), "a", "RS256", "", `the JWKS at ` + u + ` holds a key "a" that cannot be used: it has no n`},
		{"EC point off the curve", set(p256.with("a", "y", b64(y))), "a", "ES256", "", `the JWKS at ` + u + ` holds no key that can check a signature (key "a": its point is not on the curve P-256)`},
		{"EC coordinate too long", set(p256.with("a", "x", b64(make([]byte, 33))), rsaK.with("b")), "a", "ES256", "", `the JWKS at ` + u + ` holds a key "a" that cannot be used: its coordinates are longer than the 32 bytes of P-256`},
		{"EC curve not supported", set(p256.with("a", "crv", "secp256k1"), rsaK.with("b")), "a", "ES256", "", `the JWKS at ` + u + ` holds a key "a" that cannot be used: its curve (crv) "secp256k1" is not supported`},
		{"Ed25519 key too short", set(keys["ed"].with("a", "x", b64(make([]byte, 31))), rsaK.with("b")), "a", "EdDSA", "", `the JWKS at ` + u + ` holds a key "a" that cannot be used: its x is 31 bytes long, not 32`},
		{"X25519 not supported", set(keys["ed"].with("a", "crv", "X25519"), rsaK.with("b")), "a", "EdDSA", "", `the JWKS at ` + u + ` holds a key "a" that cannot be used: its curve (crv) "X25519" is not supported`},
		{"key type not supported", set(map[string]any{"kty": "RSA-HSM", "kid": "a"}, rsaK.with("b")), "a", "RS256", "", `the JWKS at ` + u + ` holds a key "a" that cannot be used: its key type (kty) "RSA-HSM" is not supported`},
		{"member not a string", set(rsaK.with("a", "e", 65537), rsaK.with("b")), "a", "RS256", "", `the JWKS at ` + u + ` holds a key "a" that cannot be used: its e is not a string`},

		{"oct key ignored", set(map[string]any{"kty": "oct", "kid": "s", "k": "c2VjcmV0", "alg": "HS256"}), "s", "RS256", "", `the JWKS at ` + u + ` holds no key that can check a signature (key "s": symmetric keys (kty oct) are never used`},
		{"oct key beside an RSA one", set(map[string]any{"kty": "oct", "kid": "s", "k": "c2VjcmV0"}, rsaK.with("a")), "s", "RS256", "", `the JWKS at ` + u + ` holds a key "s" that cannot be used: symmetric keys (kty oct) are never used`},
		{"oct key not counted for no kid", set(map[string]any{"kty": "oct", "kid": "s", "k": "c2VjcmV0"}, rsaK.with("a")), "", "RS256", "rsa", ""},
		{"use enc ignored", set(rsaK.with("e", "use", "enc")), "e", "RS256", "", "the token's key is not a signing key"},
		{"use enc not counted for no kid", set(rsaK.with("e", "use", "enc"), p256.with("a")), "", "ES256", "p256", ""},
		{"use enc alone, no kid", set(rsaK.with("e", "use", "enc")), "", "RS256", "", `the JWKS at ` + u + ` holds no key that can check a signature`},
		{"encryption alg", set(rsaK.with("e", "alg", "RSA-OAEP"), p256.with("a")), "e", "RS256", "", "the token's algorithm is not the one of its key"},
		{"alg mismatch", set(rsaK.with("a", "alg", "RS256")), "a", "PS256", "", "the token's algorithm is not the one of its key"},
		{"EC key for RS256", set(p256.with("a")), "a", "RS256", "", "the token's algorithm is not the one of its key"},
		{"P-384 key for ES256", set(keys["p384"].with("a")), "a", "ES256", "", "the token's algorithm is not the one of its key"},
		{"RSA key for EdDSA", set(rsaK.with("a")), "a", "EdDSA", "", "the token's algorithm is not the one of its key"},
		{"no kid, two keys", set(rsaK.with("a"), p256.with("b")), "", "RS256", "", "the token names no key (kid) and the JWKS holds 2"},
		{"unknown kid", set(rsaK.with("a")), "b", "RS256", "", `the JWKS at ` + u + ` holds no key "b"`},
		{"empty set", `{"keys":[]}`, "a", "RS256", "", `the JWKS at ` + u + ` holds no key that can check a signature`},

		{"HTML", "<html>login</html>", "a", "RS256", "", "invalid character '<'"},
		{"no keys member", `{"error":"forbidden"}`, "a", "RS256", "", "it has no keys member"},
		{"keys not a list", `{"keys":{"kty":"RSA"}}`, "a", "RS256", "", "it is not a JSON object with a list of keys"},
		{"a list", `[]`, "a", "RS256", "", "it is not a JSON object with a list of keys"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var key any
			set, err := parseJWKS([]byte(tt.jwks))
			if err == nil {
				if found := set.find(tt.kid); len(found) > 0 {
					key, err = pick(found, jwtHeader{Alg: tt.alg, Kid: tt.kid})
				} else {
					err = set.missing(u, tt.kid)
				}
			}
			if tt.want != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
					t.Fatalf("error %v\nwant %s…", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// The key read checks the signatures of the private key.
			m := jwt.GetSigningMethod(tt.alg)
			sig, err := m.Sign("head.body", keys[tt.signer].priv)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Verify("head.body", sig, key); err != nil {
				t.Errorf("the key read does not check the signature: %v", err)
			}
		})
	}
}

// A token naming a key meant for encryption is told so; the reason comes
// from the key function, through the parser.
func TestPickRefusal(t *testing.T) {
	_, err := pick([]*jwk{{kid: "e", kty: "RSA", use: "enc"}}, jwtHeader{Alg: "RS256", Kid: "e"})
	r, ok := err.(*refusal)
	if !ok || r.reason != "the token's key is not a signing key" {
		t.Errorf("pick: %v", err)
	}
}

func TestKeepFor(t *testing.T) {
	k := newKeySet("https://idp.test/jwks", nil)
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		header map[string]string
		want   time.Duration
	}{
		{nil, jwksMinAge},
		{map[string]string{"Cache-Control": "public, max-age=1800"}, 30 * time.Minute},
		{map[string]string{"Cache-Control": `MAX-AGE="1800", must-revalidate`}, 30 * time.Minute},
		{map[string]string{"Cache-Control": "max-age=60"}, jwksMinAge},
		{map[string]string{"Cache-Control": "max-age=0, no-cache"}, jwksMinAge},
		{map[string]string{"Cache-Control": "max-age=99999999999999999"}, jwksMaxAge},
		{map[string]string{"Cache-Control": "max-age=86400"}, jwksMaxAge},
		{map[string]string{"Cache-Control": "max-age=oops"}, jwksMinAge},
		{map[string]string{"Cache-Control": "no-store"}, jwksMinAge},
		{map[string]string{"Expires": now.Add(40 * time.Minute).Format(http.TimeFormat)}, 40 * time.Minute},
		{map[string]string{"Expires": now.Add(-time.Hour).Format(http.TimeFormat)}, jwksMinAge},
		{map[string]string{"Expires": "0"}, jwksMinAge},
		{map[string]string{"Cache-Control": "max-age=1200", "Expires": now.Add(50 * time.Minute).Format(http.TimeFormat)}, 20 * time.Minute},
	}
	for _, tt := range tests {
		h := http.Header{}
		for name, v := range tt.header {
			h.Set(name, v)
		}
		if got := k.keepFor(h, now); got != tt.want {
			t.Errorf("%v: %s, want %s", tt.header, got, tt.want)
		}
	}
}

// The set is fetched again in the background when it is due, with no token
// asking; a failure keeps the keys fetched before, and says so in the log.
func TestBackgroundRefresh(t *testing.T) {
	p := newIDP(t)
	p.addKey("k1", "rsa", nil)
	var log syncBuffer
	a := newAuth(t, p.config(), &log, time.Hour)
	a.keys.minAge, a.keys.maxAge = 100*time.Millisecond, 200*time.Millisecond
	ctx := context.Background()
	if err := a.Check(ctx); err != nil {
		t.Fatal(err)
	}
	p.addKey("k2", "ec", nil)
	waitFor(t, func() bool { return len(a.keys.current().find("k2")) > 0 })
	if _, err := a.Verify(ctx, p.sign("k2", "ES256", nil), nil); err != nil {
		t.Errorf("a key fetched in the background: %v", err)
	}

	p.setStatus(http.StatusBadGateway)
	n := p.fetches.Load()
	waitFor(t, func() bool { return p.fetches.Load() > n+1 })
	if _, err := a.Verify(ctx, p.sign("k1", "RS256", nil), nil); err != nil {
		t.Errorf("after failed refreshes: %v", err)
	}
	if !strings.Contains(log.String(), `msg="cannot refresh the JWKS; the keys fetched before are kept"`) ||
		!strings.Contains(log.String(), "the server answered 502 Bad Gateway") {
		t.Errorf("the log does not tell the refresh failed:\n%s", log.String())
	}
}

// waitFor waits for cond to hold, as long as testwait.Patience.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(testwait.Patience); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the condition did not hold within %s", testwait.Patience)
		}
	}
}

// syncBuffer is a buffer a logger may write to while a test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
