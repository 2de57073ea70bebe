package auth

import (
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/mcpdecl/mcpdecl/engine"
)

// Config is the auth block.
type Config struct {
	Tokens []Token
	OAuth  *OAuth // nil without an oauth block
}

// Token is a static bearer token.
type Token struct {
	Subject string // the block's label
	Value   Secret
	Scopes  []string
}

// OAuth is the oauth block: how JWT access tokens are checked.
type OAuth struct {
	JWKSURL, Issuer, Audience, Resource   string
	AuthorizationServers, ScopesSupported []string
	Leeway                                time.Duration
}

// Secret is a value never printed: formatting it, with any verb, gives
// [engine.Mask].
type Secret string

// String returns [engine.Mask].
func (Secret) String() string { return engine.Mask }

// Format writes [engine.Mask], whatever the verb.
func (Secret) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, engine.Mask) }

// MinTokenBytes is the shortest static token accepted: shorter ones can be
// guessed.
const MinTokenBytes = 16

// DefaultLeeway is the clock skew allowed on a JWT's times.
const DefaultLeeway = 30 * time.Second

var (
	authSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
		{Type: "token", LabelNames: []string{"name"}},
		{Type: "oauth"},
	}}
	tokenSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
		{Name: "value", Required: true},
		{Name: "scopes"},
	}}
	oauthSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
		{Name: "jwks_url", Required: true},
		{Name: "issuer", Required: true},
		{Name: "audience", Required: true},
		{Name: "resource"},
		{Name: "authorization_servers"},
		{Name: "scopes_supported"},
		{Name: "leeway"},
	}}
)

// Decode reads the auth block.
func Decode(block *hcl.Block, ctx *engine.DecodeContext) (*Config, hcl.Diagnostics) {
	content, diags := block.Body.Content(authSchema)
	cfg := &Config{}
	seen := map[string]*hcl.Block{}
	for _, b := range content.Blocks {
		switch b.Type {
		case "token":
			name := b.Labels[0]
			if first, dup := seen[name]; dup {
				diags = append(diags, errorf(b.LabelRanges[0], "Duplicate token", "A token named %q is already declared at %s; give each client a name of its own.", name, first.DefRange))
				continue
			}
			seen[name] = b
			t, more := decodeToken(b, ctx)
			diags = append(diags, more...)
			for _, other := range cfg.Tokens {
				if other.Value == t.Value && t.Value != "" {
					diags = append(diags, errorf(b.DefRange, "Duplicate token value", "The tokens %q and %q have the same value: each client needs a token of its own, so that it can be told apart and revoked.", other.Subject, name))
				}
			}
			if !more.HasErrors() {
				cfg.Tokens = append(cfg.Tokens, t)
			}
		case "oauth":
			if cfg.OAuth != nil {
				diags = append(diags, errorf(b.DefRange, "Duplicate oauth block", "An auth block takes at most one oauth block."))
				continue
			}
			o, more := decodeOAuth(b, ctx)
			diags = append(diags, more...)
			cfg.OAuth = o
		}
	}
	if len(content.Blocks) == 0 && !diags.HasErrors() {
		diags = append(diags, errorf(block.DefRange, "Empty auth block", `An auth block needs token "name" { value = … } blocks, an oauth { … } block, or both.`))
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return cfg, diags
}

func decodeToken(b *hcl.Block, ctx *engine.DecodeContext) (Token, hcl.Diagnostics) {
	content, diags := b.Body.Content(tokenSchema)
	t := Token{Subject: b.Labels[0]}
	if a, ok := content.Attributes["value"]; ok {
		v, more := ctx.String(a.Expr)
		diags = append(diags, more...)
		v = strings.TrimSpace(v)
		ctx.Redactor.Add(v)
		t.Value = Secret(v)
		switch {
		case more.HasErrors():
		case v == "":
			diags = append(diags, errorf(a.Expr.Range(), "Empty token", "The token %q has no value; when it comes from env(…) or file(…), check that the variable is set or the file is not empty.", t.Subject))
		case len(v) < MinTokenBytes:
			diags = append(diags, errorf(a.Expr.Range(), "Token too short", "The token %q is shorter than %d bytes, short enough to be guessed; use a random value, such as the output of: openssl rand -hex 32.", t.Subject, MinTokenBytes))
		case strings.ContainsAny(v, " \t\r\n,\""):
			diags = append(diags, errorf(a.Expr.Range(), "Invalid token", "The token %q holds a space, a comma or a quote, which an Authorization header cannot carry.", t.Subject))
		}
	}
	if a, ok := content.Attributes["scopes"]; ok {
		var more hcl.Diagnostics
		t.Scopes, more = stringList(ctx, a, "scopes")
		diags = append(diags, more...)
	}
	return t, diags
}

func decodeOAuth(b *hcl.Block, ctx *engine.DecodeContext) (*OAuth, hcl.Diagnostics) {
	content, diags := b.Body.Content(oauthSchema)
	o := &OAuth{Leeway: DefaultLeeway}
	str := func(name string, dst *string) *hcl.Attribute {
		a, ok := content.Attributes[name]
		if !ok {
			return nil
		}
		s, more := ctx.String(a.Expr)
		diags = append(diags, more...)
		*dst = s
		return a
	}
	if a := str("jwks_url", &o.JWKSURL); a != nil && o.JWKSURL != "" {
		if msg := checkURL(o.JWKSURL); msg != "" {
			diags = append(diags, errorf(a.Expr.Range(), "Invalid jwks_url", "%s", msg))
		}
	}
	for _, name := range []string{"issuer", "audience"} {
		dst := &o.Issuer
		if name == "audience" {
			dst = &o.Audience
		}
		if a := str(name, dst); a != nil && *dst == "" {
			diags = append(diags, errorf(a.Expr.Range(), "Empty "+name, "%s must not be empty: tokens are checked against it.", name))
		}
	}
	o.Resource = o.Audience
	if a := str("resource", &o.Resource); a != nil {
		if msg := checkURL(o.Resource); msg != "" {
			diags = append(diags, errorf(a.Expr.Range(), "Invalid resource", "resource is this server's URL, as clients reach it: %s", msg))
		}
	}
	o.AuthorizationServers = []string{o.Issuer}
	for _, name := range []string{"authorization_servers", "scopes_supported"} {
		if a, ok := content.Attributes[name]; ok {
			list, more := stringList(ctx, a, name)
			diags = append(diags, more...)
			if name == "scopes_supported" {
				o.ScopesSupported = list
			} else {
				o.AuthorizationServers = list
			}
		}
	}
	if a, ok := content.Attributes["leeway"]; ok {
		d, more := ctx.Duration(a.Expr)
		diags = append(diags, more...)
		if !more.HasErrors() && d > 5*time.Minute {
			diags = append(diags, errorf(a.Expr.Range(), "Invalid leeway", "leeway is the clock skew allowed on a token's times; more than 5m would accept tokens long expired."))
		}
		o.Leeway = d
	}
	return o, diags
}

// checkURL says what is wrong with an https URL, or "" when nothing is.
// Plain http is allowed for loopback hosts, for tests and local servers.
func checkURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return fmt.Sprintf("%q is not an absolute URL, such as https://idp.example.com/.well-known/jwks.json.", s)
	}
	switch u.Scheme {
	case "https":
	case "http":
		if h := u.Hostname(); h != "localhost" && h != "127.0.0.1" && h != "::1" {
			return fmt.Sprintf("%q uses plain http: keys and tokens must travel over https (http is allowed for localhost only).", s)
		}
	default:
		return fmt.Sprintf("%q is not an http or https URL.", s)
	}
	return ""
}

// stringList reads a list of non-empty strings without spaces.
func stringList(ctx *engine.DecodeContext, a *hcl.Attribute, name string) ([]string, hcl.Diagnostics) {
	v, diags := ctx.Eval(a.Expr)
	if diags.HasErrors() || !v.IsKnown() {
		return nil, diags
	}
	ty := v.Type()
	bad := errorf(a.Expr.Range(), "Invalid "+name, `%s must be a list of strings, such as ["tickets:read"].`, name)
	if v.IsNull() || !(ty.IsListType() || ty.IsTupleType() || ty.IsSetType()) {
		return nil, append(diags, bad)
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.IsNull() || !e.IsKnown() || e.Type() != cty.String || e.AsString() == "" || strings.ContainsAny(e.AsString(), " \t\r\n\"") {
			return nil, append(diags, bad)
		}
		out = append(out, e.AsString())
	}
	return out, diags
}

func errorf(rng hcl.Range, summary, detail string, args ...any) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(detail, args...), Subject: rng.Ptr()}
}
