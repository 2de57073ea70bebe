package auth

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/spec"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// Config is the auth block, decoded.
type Config struct {
	// Tokens are the static bearer tokens, in the order declared.
	Tokens []Token
	// OAuth is the oauth block, nil when there is none.
	OAuth *OAuth
}

// Token is a static bearer token.
type Token struct {
	// Subject is the block's label: the client's identity in logs, audit
	// lines and rate-limit keys.
	Subject string
	// Value is the token, trimmed of surrounding whitespace.
	Value Secret
	// Scopes are the scopes the token grants.
	Scopes []string
}

// OAuth is the oauth block: how JWT access tokens are checked, and what the
// protected-resource metadata document says.
type OAuth struct {
	// JWKSURL is where the authorization server's public keys are.
	JWKSURL string
	// Issuer is what the iss claim must equal.
	Issuer string
	// Audience is what the aud claim must hold.
	Audience string
	// Resource is the server's canonical URI (RFC 9728); it defaults to
	// Audience.
	Resource string
	// AuthorizationServers are the issuers a client may get tokens from;
	// they default to Issuer.
	AuthorizationServers []string
	// ScopesSupported are the scopes advertised in the metadata document
	// and in challenges.
	ScopesSupported []string
	// Leeway is the clock skew allowed on exp, nbf and iat.
	Leeway time.Duration
	// Claims are the names of the claims that programs may read, as
	// caller.claims.<name>; the others are never passed on.
	Claims []string
}

// Secret is a value never printed: formatting it, with any verb, encoding
// it as JSON or text, or logging it gives [text.Mask].
type Secret string

// String returns [text.Mask].
func (Secret) String() string { return text.Mask }

// GoString returns [text.Mask], quoted.
func (Secret) GoString() string { return fmt.Sprintf("%q", text.Mask) }

// Format writes [text.Mask], whatever the verb.
func (Secret) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, text.Mask) }

// MarshalJSON returns [text.Mask] as a JSON string.
func (Secret) MarshalJSON() ([]byte, error) { return json.Marshal(text.Mask) }

// MarshalText returns [text.Mask].
func (Secret) MarshalText() ([]byte, error) { return []byte(text.Mask), nil }

// LogValue returns [text.Mask].
func (Secret) LogValue() slog.Value { return slog.StringValue(text.Mask) }

// MinTokenBytes is the length of the shortest static token accepted:
// shorter ones can be guessed.
const MinTokenBytes = 16

// DefaultLeeway is the clock skew allowed on a JWT's times when leeway is
// not set; MaxLeeway is the most that may be set.
const (
	DefaultLeeway = 30 * time.Second
	MaxLeeway     = 5 * time.Minute
)

// Spec is the auth block.
var Spec = &spec.Block{
	Name:    "auth",
	Summary: "Who may call the server over HTTP: static bearer tokens, JWT access tokens of an OAuth 2.1 authorization server, or both.",
	Doc: "Over stdio no token is asked for: the client started the server. Without an auth block the HTTP endpoint is open to whoever reaches it. " +
		"Every request to /mcp then needs Authorization: Bearer …; a missing or bad token gets 401 with a challenge that points at the protected-resource metadata document (RFC 9728).",
	Example: `auth {
  token "ci-bot" {
    value  = "0123456789abcdef0123456789abcdef"
    scopes = ["tickets:read"]
  }
}`,
	Blocks: []spec.Nested{{Block: TokenSpec}, {Block: OAuthSpec, Max: 1}},
}

// TokenSpec is the token block of the auth block.
var TokenSpec = &spec.Block{
	Name:    "token",
	In:      "auth",
	Labels:  []string{"name"},
	Summary: "A static bearer token; the label names its client in logs, audit lines and rate-limit keys.",
	Doc:     "Tokens are compared in constant time, and never printed: they are redacted everywhere.",
	Example: `token "ci-bot" {
  value = "0123456789abcdef0123456789abcdef"
}`,
	Attrs: []*spec.Attr{
		spec.String("value", "is the token, at least 16 bytes, such as the output of openssl rand -hex 32; give it from env(…) or a sensitive variable").Mandatory().MaySecret(),
		spec.List("scopes", spec.KindString, `are the scopes the token grants, such as ["tickets:read"]`).Unevaluated(),
	},
}

// OAuthSpec is the oauth block of the auth block.
var OAuthSpec = &spec.Block{
	Name:    "oauth",
	In:      "auth",
	Summary: "JWT access tokens of an OAuth 2.1 authorization server, checked against its keys.",
	Doc: "A JWT must be signed (RS*, PS*, ES* or EdDSA; never none or HS*) by a key of the JWKS, with iss = issuer, aud holding audience, " +
		"and exp, nbf, iat valid within leeway. The JWKS is fetched when serve starts, kept 15 minutes, and fetched again when a token names an unknown key, at most every 10 seconds. " +
		"Scopes come from the token's scope (or scp) claim.",
	Example: `oauth {
  jwks_url = "https://idp.example.com/.well-known/jwks.json"
  issuer   = "https://idp.example.com"
  audience = "https://mcp.example.com/mcp"
  claims   = ["tenant"]
}`,
	Attrs: []*spec.Attr{
		spec.String("jwks_url", "is where the authorization server publishes its keys: https (http for localhost only)").Mandatory(),
		spec.String("issuer", "is what a token's iss claim must equal").Mandatory(),
		spec.String("audience", "is what a token's aud claim must hold").Mandatory(),
		spec.String("resource", "is this server's URL as clients reach it, in the protected-resource metadata (RFC 9728)").DefaultIs("audience"),
		spec.List("authorization_servers", spec.KindString, "are the issuer URLs clients get tokens from").DefaultIs("[issuer]").Unevaluated(),
		spec.List("scopes_supported", spec.KindString, "are the scopes advertised in the metadata document and in challenges").Unevaluated(),
		spec.Duration("leeway", "is the clock skew allowed on a token's exp, nbf and iat").AtMost(int64(MaxLeeway)).WithDefault(DefaultLeeway),
		spec.List("claims", spec.KindString, "are the JWT claims programs may read, as caller.claims.NAME; the others are never passed on").Unevaluated(),
	},
}

// Decode reads the auth block. Every token value is recorded with
// ctx.Redactor, so that it is redacted wherever text leaves the server. It
// returns a nil Config when there are errors.
func Decode(block *hcl.Block, ctx *engine.DecodeContext) (*Config, hcl.Diagnostics) {
	v, diags := Spec.Decode(block.Body, ctx)
	cfg := &Config{}
	names := map[string]*hcl.Block{}
	values := map[Secret]string{}
	for _, b := range v.Blocks("token") {
		name := b.Labels[0]
		t, valueRange, more := decodeToken(b, ctx)
		diags = append(diags, more...)
		if first, dup := names[name]; dup {
			diags = append(diags, errorf(b.LabelRanges[0], "Duplicate token", "A token named %q is already declared at %s; give each client a name of its own.", name, first.DefRange))
			continue
		}
		names[name] = b
		if name == "" || strings.ContainsFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			diags = append(diags, errorf(b.LabelRanges[0], "Invalid token name", "The name of a token identifies its client in logs, audit lines and rate limits; it must not be empty or hold control characters."))
			continue
		}
		if other, dup := values[t.Value]; dup && t.Value != "" {
			diags = append(diags, errorf(valueRange, "Duplicate token value", "The tokens %q and %q have the same value: give each client a token of its own, so that it can be told apart and revoked.", other, name))
			continue
		}
		values[t.Value] = name
		if !more.HasErrors() {
			cfg.Tokens = append(cfg.Tokens, t)
		}
	}
	for _, b := range v.Blocks("oauth") { // at most one, by the spec
		o, more := decodeOAuth(b, ctx)
		diags = append(diags, more...)
		cfg.OAuth = o
	}
	if len(v.Blocks("token")) == 0 && len(v.Blocks("oauth")) == 0 && !diags.HasErrors() {
		diags = append(diags, errorf(block.DefRange, "Empty auth block", `An auth block lets in the requests that carry one of its tokens, and it has none: add token "name" { value = … } blocks, an oauth { … } block, or both.`))
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return cfg, diags
}

// decodeToken reads a token block; it returns the range of its value too.
func decodeToken(b *hcl.Block, ctx *engine.DecodeContext) (Token, hcl.Range, hcl.Diagnostics) {
	content, diags := TokenSpec.Decode(b.Body, ctx)
	t := Token{Subject: b.Labels[0]}
	rng := b.DefRange
	if a := content.Attr("value"); a != nil {
		rng = a.Expr.Range()
		v := content.String("value")
		ctx.Redactor.Add(v)
		v = strings.TrimSpace(v)
		ctx.Redactor.Add(v)
		t.Value = Secret(v)
		switch {
		case diags.HasErrors():
		case v == "":
			diags = append(diags, errorf(rng, "Empty token", "The token %q has no value; when it comes from env(…) or file(…), check that the variable is set or that the file is not empty.", t.Subject))
		case len(v) < MinTokenBytes:
			diags = append(diags, errorf(rng, "Token too short", "The token %q is shorter than %d bytes, short enough to be guessed; use a random value, such as the output of: openssl rand -hex 32.", t.Subject, MinTokenBytes))
		case strings.ContainsFunc(v, func(r rune) bool { return r <= ' ' || r > '~' }):
			diags = append(diags, errorf(rng, "Invalid token", "The token %q holds a space, a control character or a non-ASCII character, which an Authorization header cannot carry; use letters, digits and -._~+/= only.", t.Subject))
		}
	}
	if a := content.Attr("scopes"); a != nil {
		var more hcl.Diagnostics
		t.Scopes, more = stringList(ctx, a)
		diags = append(diags, more...)
	}
	return t, rng, diags
}

// claimName is a claim that programs can read as caller.claims.<name>.
var claimName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)

func decodeOAuth(b *hcl.Block, ctx *engine.DecodeContext) (*OAuth, hcl.Diagnostics) {
	content, diags := OAuthSpec.Decode(b.Body, ctx)
	o := &OAuth{Leeway: content.Duration("leeway")}
	// str reads a string attribute that must not be empty.
	str := func(name string, dst *string) *hcl.Attribute {
		a := content.Attr(name)
		if !content.Has(name) {
			return nil
		}
		if s := content.String(name); s != "" {
			*dst = s
			return a
		}
		diags = append(diags, errorf(a.Expr.Range(), "Empty "+name, "The %s must not be empty.", name))
		return nil
	}
	if a := str("jwks_url", &o.JWKSURL); a != nil {
		if msg := checkURL(o.JWKSURL); msg != "" {
			diags = append(diags, errorf(a.Expr.Range(), "Invalid jwks_url", "The jwks_url is where the authorization server publishes its keys: %s", msg))
		}
	}
	issuer := str("issuer", &o.Issuer)
	audience := str("audience", &o.Audience)

	if a := str("resource", &o.Resource); a != nil {
		if msg := checkResource(o.Resource); msg != "" {
			diags = append(diags, errorf(a.Expr.Range(), "Invalid resource", "The resource is this server's URL, as clients reach it: %s", msg))
		}
	} else if !content.Written("resource") && audience != nil {
		o.Resource = o.Audience
		if msg := checkResource(o.Audience); msg != "" {
			diags = append(diags, errorf(audience.Expr.Range(), "Invalid resource", "The resource, this server's URL, defaults to the audience, which is not usable as one: %s Set resource to the URL clients reach this server at, such as https://mcp.example.com/mcp.", msg))
		}
	}

	if a := content.Attr("authorization_servers"); a != nil {
		list, more := stringList(ctx, a)
		diags = append(diags, more...)
		for _, s := range list {
			if msg := checkURL(s); msg != "" && !more.HasErrors() {
				diags = append(diags, errorf(a.Expr.Range(), "Invalid authorization_servers", "Each authorization server is the issuer URL clients discover it by: %s", msg))
				break
			}
		}
		if len(list) == 0 && !more.HasErrors() {
			diags = append(diags, errorf(a.Expr.Range(), "Invalid authorization_servers", "The list of authorization servers must not be empty: clients find where to get a token in it."))
		}
		o.AuthorizationServers = list
	} else if issuer != nil {
		o.AuthorizationServers = []string{o.Issuer}
		if msg := checkURL(o.Issuer); msg != "" {
			diags = append(diags, errorf(issuer.Expr.Range(), "Invalid authorization_servers", "The authorization servers default to the issuer, which is not usable as one: %s Set authorization_servers to the issuer URLs clients get tokens from.", msg))
		}
	}
	if a := content.Attr("scopes_supported"); a != nil {
		var more hcl.Diagnostics
		o.ScopesSupported, more = stringList(ctx, a)
		diags = append(diags, more...)
	}
	if a := content.Attr("claims"); a != nil {
		var more hcl.Diagnostics
		o.Claims, more = stringList(ctx, a)
		diags = append(diags, more...)
		for _, c := range o.Claims {
			if !claimName.MatchString(c) {
				diags = append(diags, errorf(a.Expr.Range(), "Invalid claims",
					"%q cannot be read as caller.claims.%s: a claim name here is a letter or underscore, then letters, digits and underscores.", c, c))
				break
			}
		}
	}
	return o, diags
}

// checkURL says what is wrong with an https URL, or "" when nothing is.
// Plain http is allowed for loopback hosts, for tests and local servers.
func checkURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return fmt.Sprintf("%q is not an absolute URL, such as https://idp.example.com.", s)
	}
	switch u.Scheme {
	case "https":
	case "http":
		if h := u.Hostname(); h != "localhost" && h != "127.0.0.1" && h != "::1" {
			return fmt.Sprintf("%q uses plain http, but keys and tokens must travel over https (http is allowed for localhost only).", s)
		}
	default:
		return fmt.Sprintf("%q is not an https URL.", s)
	}
	return ""
}

// checkResource is checkURL, and no query or fragment (RFC 8707 §2, RFC
// 9728 §1.2).
func checkResource(s string) string {
	if msg := checkURL(s); msg != "" {
		return msg
	}
	if u, _ := url.Parse(s); u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "#") {
		return fmt.Sprintf("%q has a query or a fragment, which a resource identifier cannot have.", s)
	}
	return ""
}

// stringList reads a list of non-empty strings without spaces.
func stringList(ctx *engine.DecodeContext, a *hcl.Attribute) ([]string, hcl.Diagnostics) {
	v, diags := ctx.Eval(a.Expr)
	if diags.HasErrors() {
		return nil, diags
	}
	v, _ = v.UnmarkDeep()
	if !v.IsWhollyKnown() {
		return nil, diags
	}
	ty := v.Type()
	bad := errorf(a.Expr.Range(), "Invalid "+a.Name, `The %s must be a list of strings without spaces, such as ["tickets:read", "tickets:write"].`, a.Name)
	if v.IsNull() || !(ty.IsListType() || ty.IsTupleType() || ty.IsSetType()) {
		return nil, append(diags, bad)
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.IsNull() || e.Type() != cty.String || e.AsString() == "" || strings.ContainsFunc(e.AsString(), func(r rune) bool { return r <= ' ' || r == '"' || r == '\\' }) {
			return nil, append(diags, bad)
		}
		out = append(out, e.AsString())
	}
	return out, diags
}

// errorf is an error diagnostic about rng.
var errorf = spec.Errorf
