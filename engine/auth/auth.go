package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/mcpdecl/mcpdecl/engine"
)

// Authenticator checks the bearer tokens of HTTP requests against an auth
// block. It is safe for concurrent use.
type Authenticator struct {
	oauth    *OAuth // nil without an oauth block
	tokens   []staticToken
	keys     *keySet     // nil without an oauth block
	parser   *jwt.Parser // nil without an oauth block
	logger   *slog.Logger
	metaPath string       // "" without an oauth block
	metadata http.Handler // nil without an oauth block
	// challenge is the WWW-Authenticate challenge of a request without a
	// token; error parameters are added when a token was refused.
	challenge string
	require   func(http.Handler) http.Handler
}

// staticToken is a static token as it is compared: by its SHA-256 digest,
// so that every comparison takes the same time whatever the lengths.
type staticToken struct {
	sum     [sha256.Size]byte
	subject string
	scopes  []string
}

// staticExpiry is how far in the future the expiry of a static token is
// put: such tokens have none, and the SDK refuses a zero one.
const staticExpiry = 100 * 365 * 24 * time.Hour

// Realm is the realm of the challenge when there is no oauth block.
const Realm = "mcpdecl"

// wellKnown is the well-known path of protected-resource metadata.
const wellKnown = "/.well-known/oauth-protected-resource"

// signingAlgorithms are the algorithms a JWT may be signed with: asymmetric
// ones only, so that a public key can never serve as a shared secret.
var signingAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// New returns the authenticator of cfg. It does not touch the network: the
// JWKS is fetched by [Authenticator.Check] or by the first JWT to check.
// Refused tokens and failed JWKS fetches are logged to logger (nil: not
// logged), never with a token.
func New(cfg *Config, logger *slog.Logger) (*Authenticator, error) {
	if cfg == nil || len(cfg.Tokens) == 0 && cfg.OAuth == nil {
		return nil, errors.New("the auth block declares no token and no oauth block, so no request could be let in")
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	a := &Authenticator{logger: logger, challenge: fmt.Sprintf("Bearer realm=%q", Realm)}
	for _, t := range cfg.Tokens {
		if len(t.Value) < MinTokenBytes {
			return nil, fmt.Errorf("the token %q is shorter than %d bytes, short enough to be guessed", t.Subject, MinTokenBytes)
		}
		a.tokens = append(a.tokens, staticToken{sum: sha256.Sum256([]byte(t.Value)), subject: t.Subject, scopes: t.Scopes})
	}
	var metaURL string
	if o := cfg.OAuth; o != nil {
		if o.JWKSURL == "" || o.Issuer == "" || o.Audience == "" {
			return nil, errors.New("the oauth block needs jwks_url, issuer and audience")
		}
		u, err := url.Parse(o.Resource)
		if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
			return nil, fmt.Errorf("the resource %q is not an absolute http or https URL; set resource to the URL clients reach this server at", o.Resource)
		}
		// RFC 9728 §3.1: the well-known path goes between the host and the
		// resource's path, without a terminating slash.
		a.metaPath = wellKnown + strings.TrimSuffix(u.Path, "/")
		metaURL = (&url.URL{Scheme: u.Scheme, Host: u.Host}).String() + wellKnown + strings.TrimSuffix(u.EscapedPath(), "/")
		a.challenge = fmt.Sprintf("Bearer resource_metadata=%q", metaURL)
		if len(o.ScopesSupported) > 0 {
			a.challenge += fmt.Sprintf(", scope=%q", strings.Join(o.ScopesSupported, " "))
		}
		a.oauth = o
		a.keys = newKeySet(o.JWKSURL, logger)
		a.parser = jwt.NewParser(
			jwt.WithValidMethods(signingAlgorithms),
			jwt.WithIssuer(o.Issuer),
			jwt.WithAudience(o.Audience),
			jwt.WithLeeway(o.Leeway),
			jwt.WithExpirationRequired(),
			jwt.WithIssuedAt(),
		)
		a.metadata = sdkauth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource:               o.Resource,
			AuthorizationServers:   o.AuthorizationServers,
			ScopesSupported:        o.ScopesSupported,
			BearerMethodsSupported: []string{"header"},
		})
	}
	var skew time.Duration
	if a.oauth != nil {
		skew = a.oauth.Leeway
	}
	a.require = sdkauth.RequireBearerToken(a.Verify, &sdkauth.RequireBearerTokenOptions{ResourceMetadataURL: metaURL, ClockSkew: skew})
	return a, nil
}

// The prefixes of the UserID of a caller, by kind of token: a JWT whose sub
// is "ci-bot" is not the static token labelled "ci-bot".
const (
	// StaticPrefix begins the UserID of a static token's caller.
	StaticPrefix = "token:"
	// JWTPrefix begins the UserID of a JWT's caller.
	JWTPrefix = "jwt:"
)

// Verify checks token: a static token, else, with an oauth block, a JWT.
// It is a go-sdk [sdkauth.TokenVerifier]: every failure wraps
// [sdkauth.ErrInvalidToken], with a short reason that never holds the
// token. The TokenInfo's UserID names the caller with its kind, so that
// callers of different kinds never share an identity (a rate-limit bucket,
// a session): "token:" and the static token's label, or "jwt:" and the
// JWT's sub claim.
func (a *Authenticator) Verify(ctx context.Context, token string, _ *http.Request) (*sdkauth.TokenInfo, error) {
	if info := a.static(token); info != nil {
		return info, nil
	}
	var reason string
	var detail []any
	if a.keys == nil {
		reason = "the token is not one of the declared tokens"
	} else {
		var info *sdkauth.TokenInfo
		info, reason, detail = a.jwt(ctx, token)
		if info != nil {
			return info, nil
		}
	}
	a.logger.Info("bearer token refused", append([]any{"reason", reason}, detail...)...)
	if at, ok := ctx.Value(attemptKey{}).(*attempt); ok {
		at.refused = reason
	}
	return nil, fmt.Errorf("%w: %s", sdkauth.ErrInvalidToken, reason)
}

// static compares token with every static token, in constant time.
func (a *Authenticator) static(token string) *sdkauth.TokenInfo {
	if len(a.tokens) == 0 {
		return nil
	}
	sum := sha256.Sum256([]byte(token))
	found := -1
	for i := range a.tokens {
		eq := subtle.ConstantTimeCompare(sum[:], a.tokens[i].sum[:])
		found = subtle.ConstantTimeSelect(eq, i, found)
	}
	if found < 0 {
		return nil
	}
	t := a.tokens[found]
	return &sdkauth.TokenInfo{UserID: StaticPrefix + t.subject, Scopes: slices.Clone(t.scopes), Expiration: time.Now().Add(staticExpiry)}
}

// jwtHeader is what is read of a JWT's header before its signature is
// checked.
type jwtHeader struct {
	Alg string `json:"alg"`
	Kid string `json:"kid"`
}

// jwt checks a JWT access token. When it is refused, it returns why, for
// the client, and details for the log.
func (a *Authenticator) jwt(ctx context.Context, token string) (*sdkauth.TokenInfo, string, []any) {
	head, _, _ := strings.Cut(token, ".")
	if strings.Count(token, ".") != 2 {
		return nil, "the token is not a JWT", nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(head)
	var h jwtHeader
	if err != nil || json.Unmarshal(raw, &h) != nil {
		return nil, "the token's header is not base64url-encoded JSON", nil
	}
	if !slices.Contains(signingAlgorithms, h.Alg) {
		return nil, "the token's signing algorithm is not accepted: only RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512 and EdDSA are", []any{"alg", h.Alg}
	}
	claims := jwt.MapClaims{}
	_, err = a.parser.ParseWithClaims(token, claims, func(*jwt.Token) (any, error) {
		return a.key(ctx, h)
	})
	if err != nil {
		var r *refusal
		if errors.As(err, &r) {
			return nil, r.reason, r.detail
		}
		return nil, parseReason(err, claims), []any{"error", err.Error(), "kid", h.Kid}
	}
	sub, err := claims.GetSubject()
	if err != nil {
		return nil, "the token is not a valid JWT", []any{"error", err.Error(), "kid", h.Kid}
	}
	if sub == "" {
		return nil, "the token has no subject (sub)", nil
	}
	exp, err := claims.GetExpirationTime()
	if err != nil || exp == nil { // the parser has checked it is there
		return nil, "the token has no expiry (exp)", nil
	}
	info := &sdkauth.TokenInfo{UserID: JWTPrefix + sub, Scopes: scopes(claims), Expiration: exp.Time}
	aud, _ := claims.GetAudience()
	// The token itself, for an upstream that acts with it; see
	// engine.Caller.Token.
	info.Extra = map[string]any{engine.TokenKey: token, engine.AudienceKey: []string(aud)}
	if len(a.oauth.Claims) > 0 {
		chosen := make(map[string]any, len(a.oauth.Claims))
		for _, name := range a.oauth.Claims {
			chosen[name] = claims[name] // nil when the token has none
		}
		info.Extra[engine.ClaimsKey] = chosen
	}
	return info, "", nil
}

// Claims are the names of the claims programs may read (the oauth block's
// claims attribute); nil without an oauth block.
func (a *Authenticator) Claims() []string {
	if a.oauth == nil {
		return nil
	}
	return a.oauth.Claims
}

// refusal is why a token is refused before its signature is checked: for
// the client, and details for the log.
type refusal struct {
	reason string
	detail []any
}

// Error returns the reason.
func (r *refusal) Error() string { return r.reason }

// key returns the key that checks the signature of a token with header h:
// the JWKS's key named by its kid, of the type its alg needs. It is the
// parser's [jwt.Keyfunc]; its errors are refusals.
func (a *Authenticator) key(ctx context.Context, h jwtHeader) (any, error) {
	keys, err := a.keys.lookup(ctx, h.Kid)
	if err != nil {
		if a.keys.current() == nil {
			return nil, &refusal{"the authorization server's keys cannot be fetched", []any{"error", err.Error()}}
		}
		return nil, &refusal{"the token's signing key is not one of the authorization server's", []any{"kid", h.Kid, "error", err.Error()}}
	}
	return pick(keys, h)
}

// pick returns the key of keys, all named by the kid of a token with
// header h, that checks its signature: one of the type h.Alg needs, that
// states no other algorithm, and is meant for signatures. When there is
// none, it returns a refusal.
func pick(keys []*jwk, h jwtHeader) (any, error) {
	var other *jwk // a key that fits, but is not a signing key
	for _, k := range keys {
		switch {
		case !k.fits(h.Alg):
		case k.signs():
			return k.key, nil
		default:
			other = k
		}
	}
	if other != nil {
		return nil, &refusal{"the token's key is not a signing key", []any{"use", other.use, "kid", h.Kid}}
	}
	k := keys[0]
	return nil, &refusal{"the token's algorithm is not the one of its key", []any{"alg", h.Alg, "key_alg", k.alg, "kty", k.kty, "crv", k.crv, "kid", h.Kid}}
}

// parseReason says why the parser refused a token with claims (as far as
// they were read).
func parseReason(err error, claims jwt.MapClaims) string {
	// A claim the parser requires, and lacks, is wrong as much as one
	// that holds another value.
	missing := errors.Is(err, jwt.ErrTokenRequiredClaimMissing)
	iss, _ := claims.GetIssuer()
	aud, _ := claims.GetAudience()
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return "the token has expired (exp)"
	case errors.Is(err, jwt.ErrTokenNotValidYet):
		return "the token is not valid yet (nbf)"
	case errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return "the token is issued in the future (iat)"
	case errors.Is(err, jwt.ErrTokenInvalidIssuer), missing && iss == "":
		return "the token is issued by another authorization server (iss)"
	case errors.Is(err, jwt.ErrTokenInvalidAudience), missing && (len(aud) == 0 || len(aud) == 1 && aud[0] == ""):
		return "the token is meant for another server (aud)"
	case missing:
		return "the token has no expiry (exp)"
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return "the token's signature is not valid"
	}
	return "the token is not a valid JWT"
}

// scopes reads a token's scope claim (a space-separated string, or a list)
// or scp claim (a list, or a string).
func scopes(claims jwt.MapClaims) []string {
	for _, name := range []string{"scope", "scp"} {
		switch v := claims[name].(type) {
		case string:
			return strings.Fields(v)
		case []any:
			out := make([]string, 0, len(v))
			for _, e := range v {
				if s, ok := e.(string); ok && s != "" {
					out = append(out, s)
				}
			}
			return out
		}
	}
	return nil
}

// attempt is where Verify notes, for Wrap, why a token was refused.
type attempt struct{ refused string }

type attemptKey struct{}

// Wrap returns next behind the token check. A request without a valid
// token is answered 401 with a WWW-Authenticate challenge: Bearer with
// resource_metadata (and scope, when scopes_supported is set) with an
// oauth block, else Bearer realm="mcpdecl"; plus error="invalid_token" and
// error_description when a token was sent and refused (RFC 6750 §3). A
// request with a valid token reaches next with its [sdkauth.TokenInfo] in
// its context ([sdkauth.TokenInfoFromContext]).
func (a *Authenticator) Wrap(next http.Handler) http.Handler {
	inner := a.require(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, ok := w.(*challenger); ok {
			w = c.ResponseWriter
		}
		next.ServeHTTP(w, r)
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		at := &attempt{}
		r = r.WithContext(context.WithValue(r.Context(), attemptKey{}, at))
		inner.ServeHTTP(&challenger{ResponseWriter: w, a: a, at: at}, r)
	})
}

// challenger writes the challenge of the SDK's 401 answers.
type challenger struct {
	http.ResponseWriter
	a  *Authenticator
	at *attempt
}

func (c *challenger) WriteHeader(code int) {
	if code == http.StatusUnauthorized {
		ch := c.a.challenge
		if c.at.refused != "" {
			ch += fmt.Sprintf(`, error="invalid_token", error_description=%q`, headerSafe(c.at.refused))
		}
		c.Header().Set("WWW-Authenticate", ch)
		c.Header().Set("Cache-Control", "no-store")
	}
	c.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the writer beneath.
func (c *challenger) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// headerSafe keeps the characters RFC 6750 §3 allows in error_description.
func headerSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return -1
		}
		return r
	}, s)
}

// MetadataPath is where the protected-resource metadata document (RFC
// 9728) is served: /.well-known/oauth-protected-resource followed by the
// path of resource. It is "" without an oauth block.
func (a *Authenticator) MetadataPath() string { return a.metaPath }

// MetadataHandler serves the protected-resource metadata document (RFC
// 9728) without asking for a token. It is nil without an oauth block.
func (a *Authenticator) MetadataHandler() http.Handler { return a.metadata }

// Check fetches the JWKS, when there is an oauth block, to tell whether
// JWTs can be checked; it is what serve asks at start and /readyz after.
// Within 10 seconds of a fetch it reports how that one ended instead of
// fetching again, so that probes cannot flood the authorization server.
func (a *Authenticator) Check(ctx context.Context) error {
	if a.keys == nil {
		return nil
	}
	return a.keys.refresh(ctx)
}

// Close stops the background refresh of the JWKS. JWTs signed with keys
// already fetched are still checked.
func (a *Authenticator) Close() error {
	if a.keys == nil {
		return nil
	}
	return a.keys.close()
}
