package auth

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwt"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Authenticator checks the bearer tokens of HTTP requests against an auth
// block.
type Authenticator struct {
	cfg      *Config
	keys     *keySet // nil without an oauth block
	logger   *slog.Logger
	metaPath string // "" without an oauth block
	metaURL  string
	wrap     func(http.Handler) http.Handler
}

// staticExpiry is the expiry given to static tokens, which have none: the
// SDK wants one.
const staticExpiry = 100 * 365 * 24 * time.Hour

// signingAlgorithms are the algorithms a JWT may be signed with: asymmetric
// ones only, so that a public key can never serve as a shared secret.
var signingAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// New returns the authenticator of cfg; it does not touch the network.
// Failed checks are logged to logger (nil: not logged), without tokens.
func New(cfg *Config, logger *slog.Logger) (*Authenticator, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	a := &Authenticator{cfg: cfg, logger: logger}
	if o := cfg.OAuth; o != nil {
		a.keys = newKeySet(o.JWKSURL)
		u, err := url.Parse(o.Resource)
		if err != nil {
			return nil, fmt.Errorf("invalid resource %q: %w", o.Resource, err)
		}
		// RFC 9728 §3.1: the well-known path goes between the host and the
		// resource's path.
		a.metaPath = "/.well-known/oauth-protected-resource" + strings.TrimSuffix(u.EscapedPath(), "/")
		a.metaURL = (&url.URL{Scheme: u.Scheme, Host: u.Host}).String() + a.metaPath
	}
	a.wrap = sdkauth.RequireBearerToken(a.Verify, &sdkauth.RequireBearerTokenOptions{ResourceMetadataURL: a.metaURL})
	return a, nil
}

// Verify checks token: a static token, else a JWT. It is a go-sdk
// [sdkauth.TokenVerifier]: every failure wraps [sdkauth.ErrInvalidToken].
func (a *Authenticator) Verify(ctx context.Context, token string, _ *http.Request) (*sdkauth.TokenInfo, error) {
	if info := a.static(token); info != nil {
		return info, nil
	}
	if a.keys == nil {
		return nil, invalid("unknown token")
	}
	info, err := a.jwt(ctx, token)
	if err != nil {
		a.logger.Info("token refused", "reason", err.Error())
		return nil, err
	}
	return info, nil
}

// static compares token with every static token in constant time.
func (a *Authenticator) static(token string) *sdkauth.TokenInfo {
	var found *Token
	for i := range a.cfg.Tokens {
		t := &a.cfg.Tokens[i]
		if subtle.ConstantTimeCompare([]byte(token), []byte(t.Value)) == 1 {
			found = t
		}
	}
	if found == nil {
		return nil
	}
	return &sdkauth.TokenInfo{UserID: found.Subject, Scopes: found.Scopes, Expiration: time.Now().Add(staticExpiry)}
}

// jwtHeader is what is read of a JWT's header before its signature is
// checked.
type jwtHeader struct {
	Alg string `json:"alg"`
	Kid string `json:"kid"`
}

// jwt checks a JWT access token.
func (a *Authenticator) jwt(ctx context.Context, token string) (*sdkauth.TokenInfo, error) {
	o := a.cfg.OAuth
	head, _, ok := strings.Cut(token, ".")
	if !ok || strings.Count(token, ".") != 2 {
		return nil, invalid("the token is not a JWT")
	}
	raw, err := base64.RawURLEncoding.DecodeString(head)
	var h jwtHeader
	if err != nil || json.Unmarshal(raw, &h) != nil {
		return nil, invalid("the token's header is not base64url JSON")
	}
	if !slices.Contains(signingAlgorithms, h.Alg) {
		return nil, invalid(fmt.Sprintf("the token is signed with %q; only asymmetric algorithms are accepted", h.Alg))
	}
	alg, ok := jwa.LookupSignatureAlgorithm(h.Alg)
	if !ok {
		return nil, invalid(fmt.Sprintf("unknown algorithm %q", h.Alg))
	}
	key, err := a.keys.lookup(ctx, h.Kid)
	if err != nil {
		return nil, invalid(err.Error())
	}
	tok, err := jwt.Parse([]byte(token),
		jwt.WithKey(alg, key),
		jwt.WithValidate(true),
		jwt.WithIssuer(o.Issuer),
		jwt.WithAudience(o.Audience),
		jwt.WithAcceptableSkew(o.Leeway),
		jwt.WithRequiredClaim("exp"),
	)
	if err != nil {
		return nil, invalid(err.Error())
	}
	info := &sdkauth.TokenInfo{}
	info.UserID, _ = tok.Subject()
	info.Expiration, _ = tok.Expiration()
	info.Scopes = scopes(tok)
	if info.UserID == "" {
		return nil, invalid("the token has no subject (sub)")
	}
	// The SDK compares the expiry without skew: give it the leeway too.
	info.Expiration = info.Expiration.Add(o.Leeway)
	return info, nil
}

// scopes reads a token's scope claim (a space-separated string) or scp
// claim (a list, or a string).
func scopes(tok jwt.Token) []string {
	var s string
	if tok.Get("scope", &s) == nil {
		return strings.Fields(s)
	}
	var list []any
	if tok.Get("scp", &list) == nil {
		out := make([]string, 0, len(list))
		for _, e := range list {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	if tok.Get("scp", &s) == nil {
		return strings.Fields(s)
	}
	return nil
}

func invalid(reason string) error {
	return fmt.Errorf("%w: %s", sdkauth.ErrInvalidToken, reason)
}

// Wrap returns next behind the token check: a request without a valid
// token gets 401 and a WWW-Authenticate challenge; one with a valid token
// reaches next with its [sdkauth.TokenInfo] in its context.
func (a *Authenticator) Wrap(next http.Handler) http.Handler {
	inner := a.wrap(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inner.ServeHTTP(&challenger{ResponseWriter: w, sent: r.Header.Get("Authorization") != ""}, r)
	})
}

// challenger completes the SDK's 401 answers: a challenge even without a
// metadata document (RFC 6750 §3), and error="invalid_token" when a token
// was sent.
type challenger struct {
	http.ResponseWriter
	sent bool
}

func (c *challenger) WriteHeader(code int) {
	if code == http.StatusUnauthorized {
		h := c.Header()
		ch := h.Get("WWW-Authenticate")
		if ch == "" {
			ch = `Bearer realm="mcpdecl"`
		}
		if c.sent {
			ch += `, error="invalid_token"`
		}
		h.Set("WWW-Authenticate", ch)
	}
	c.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the writer beneath.
func (c *challenger) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// MetadataPath is where the protected-resource metadata document is
// served, "" without an oauth block.
func (a *Authenticator) MetadataPath() string { return a.metaPath }

// MetadataHandler serves the protected-resource metadata document (RFC
// 9728), nil without an oauth block.
func (a *Authenticator) MetadataHandler() http.Handler {
	o := a.cfg.OAuth
	if o == nil {
		return nil
	}
	return sdkauth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               o.Resource,
		AuthorizationServers:   o.AuthorizationServers,
		ScopesSupported:        o.ScopesSupported,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "mcpdecl",
	})
}

// Check fetches the JWKS, when there is an oauth block, to tell whether
// tokens can be checked.
func (a *Authenticator) Check(ctx context.Context) error {
	if a.keys == nil {
		return nil
	}
	return a.keys.check(ctx)
}
