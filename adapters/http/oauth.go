package httpaction

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/spec"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// oauth2Attrs are the attributes of oauth2 and token_exchange.
func oauth2Attrs() []*spec.Attr {
	return []*spec.Attr{
		spec.String("token_url", "is the token endpoint: https, or http on a loopback address").Mandatory(),
		spec.String("client_id", "is the client's identifier at the token endpoint").Mandatory(),
		spec.String("client_secret", "proves the client to the token endpoint; or give private_key_file").MaySecret(),
		spec.String("private_key_file", "is, instead of client_secret, a PEM private key (RSA of 2048 bits or more, or ECDSA; relative to the file) "+
			"that signs a JWT for each token request (private_key_jwt, RFC 7523), so that no secret is sent"),
		spec.String("private_key_id", "is the kid of the JWTs private_key_file signs"),
		spec.List("scopes", spec.KindString, "are the scopes asked for, each without spaces").Unevaluated(),
		spec.String("audience", "is sent as the audience parameter: the name the identity provider knows the API by"),
		spec.String("resource", "is sent as the resource parameter (RFC 8707), such as the API's URL"),
		spec.Enum("auth_style", "is how the client credentials reach the token endpoint",
			spec.Choice{Value: "header", Doc: "HTTP basic auth"}, spec.Choice{Value: "body", Doc: "form fields"}).
			DefaultIs("the header, then the body if the endpoint refuses the header; the style that worked is logged once and used from then on"),
	}
}

var oauth2Spec = &spec.Block{
	Name:    "oauth2",
	In:      authIn,
	Summary: "OAuth2 client credentials (RFC 6749 §4.4): a bearer token from token_url, shared by every call.",
	Doc: "The token is fetched at the first call, one fetch at a time, and again shortly before it expires (a tenth of its lifetime before, at most 10 s), " +
		"and once more when the upstream answers 401. A refused token request fails the call with the endpoint's error and error_description.",
	Example: `oauth2 {
  token_url     = "https://auth.example.com/oauth/token"
  client_id     = "mcpdecl"
  client_secret = "a-secret"
  scopes        = ["read"]
}`,
	Attrs: oauth2Attrs(),
}

var tokenExchangeSpec = &spec.Block{
	Name:    "token_exchange",
	In:      authIn,
	Summary: "A token for this API on behalf of the caller (RFC 8693): the caller's JWT, exchanged at token_url, sent as a bearer token.",
	Doc: "audience or resource is required. Each caller's token is exchanged once however many of its calls run at once, kept until shortly before it expires " +
		"(a minute without expires_in; 10,000 callers at most, least recently used out), and exchanged again when the upstream answers 401. " +
		"A call without a caller's JWT (over stdio, or with a static token) fails before anything is sent.",
	Example: `token_exchange {
  token_url     = "https://auth.example.com/oauth/token"
  client_id     = "mcpdecl"
  client_secret = "a-secret"
  audience      = "orders"
}`,
	Attrs: oauth2Attrs(),
}

// tokenTimeout bounds a token request when the http_api has no timeout.
const tokenTimeout = 30 * time.Second

// tokenSource holds an http_api's OAuth2 client credentials and the access
// token they last got. The token is fetched on first use, shared by every
// call, fetched again shortly before it expires (see [setExpiryMargin])
// or when the upstream refuses it; one fetch runs at a time, and calls that
// need a token meanwhile wait for it. It is safe for concurrent use.
type tokenSource struct {
	api    string // the http_api's name, for messages
	config clientcredentials.Config
	client *http.Client // for the token endpoint: its own, bounded in time

	redactor *text.Redactor
	logger   *slog.Logger // says once how the client authenticates, found without auth_style

	// style is the oauth2.AuthStyle found to work when the block sets
	// no auth_style; 0 until a token is got.
	style atomic.Int32

	mu    sync.Mutex
	token *oauth2.Token
	older string // the token before it: still redacted, for calls under way

	// signer, when not nil, authenticates the client with a signed JWT
	// (private_key_jwt) rather than its secret.
	signer *signer

	// exchanged, when not nil, makes this a token exchange on behalf of
	// each caller (auth { token_exchange { … } }) rather than the client
	// credentials grant: see exchangedToken.
	exchanged *exchanged
}

// token returns an access token: the one held, unless it has expired or is
// stale, the token an upstream just refused.
func (s *tokenSource) accessToken(ctx context.Context, stale string) (string, error) {
	if s.exchanged != nil {
		return s.exchangedToken(ctx, stale)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.token.Valid() && s.token.AccessToken != stale {
		return s.token.AccessToken, nil
	}
	config, err := s.withAssertion(s.config)
	if err != nil {
		return "", err
	}
	// One bound for the whole fetch: without auth_style, both styles may
	// be tried in turn.
	fetch, cancel := context.WithTimeout(ctx, s.client.Timeout)
	defer cancel()
	tok, err := s.fetch(fetch, config)
	if err != nil {
		return "", s.failure(err)
	}
	if tok.AccessToken == "" || !validHeaderValue(tok.AccessToken) {
		return "", fmt.Errorf("the token endpoint of http_api %q (%s) answered without a usable access token", s.api, s.config.TokenURL)
	}
	setExpiryMargin(tok)
	if s.redactor != nil {
		s.redactor.Add(tok.AccessToken)
		if s.older != "" && s.older != tok.AccessToken {
			s.redactor.Remove(s.older)
		}
	}
	if s.token != nil {
		s.older = s.token.AccessToken
	}
	s.token = tok
	return tok.AccessToken, nil
}

// fetch asks the token endpoint for a token with config. Without
// auth_style, the client's credentials go in a basic auth header first
// and, when the endpoint refuses that, in the form's body, as x/oauth2
// does; the style that worked is logged once and used for every later
// token, so that an endpoint taking them in the body is not sent a
// refused request each time.
func (s *tokenSource) fetch(ctx context.Context, config clientcredentials.Config) (*oauth2.Token, error) {
	ctx = context.WithValue(ctx, oauth2.HTTPClient, s.client)
	if config.AuthStyle != oauth2.AuthStyleAutoDetect {
		return config.Token(ctx)
	}
	if found := s.style.Load(); found != 0 {
		config.AuthStyle = oauth2.AuthStyle(found)
		return config.Token(ctx)
	}
	config.AuthStyle = oauth2.AuthStyleInHeader
	tok, err := config.Token(ctx)
	if re := (*oauth2.RetrieveError)(nil); errors.As(err, &re) {
		config.AuthStyle = oauth2.AuthStyleInParams
		tok, err = config.Token(ctx)
	}
	if err == nil && s.style.CompareAndSwap(0, int32(config.AuthStyle)) && s.logger != nil {
		name := "header"
		if config.AuthStyle == oauth2.AuthStyleInParams {
			name = "body"
		}
		s.logger.Info("OAuth2 client authentication found", "http_api", s.api, "auth_style", name,
			"hint", `set auth_style = "`+name+`" in the oauth2 block to skip looking for it`)
	}
	return tok, err
}

// maxExpiryMargin is the longest a token is renewed before it expires:
// x/oauth2's own margin, for clocks that differ and the time a request
// takes to reach the upstream.
const maxExpiryMargin = 10 * time.Second

// setExpiryMargin makes tok, just got, valid ([oauth2.Token.Valid]) until
// a tenth of its lifetime before it expires, and at most 10 s before: with
// x/oauth2's fixed 10 s, a token living 10 s or less would be expired as
// soon as got, and fetched again for every call. A token living 5 s is
// used for 4.5 s; one living an hour, until 10 s before its end.
func setExpiryMargin(tok *oauth2.Token) {
	if tok.Expiry.IsZero() {
		return // it does not expire
	}
	if margin := min(maxExpiryMargin, time.Until(tok.Expiry)/10); margin > 0 {
		// x/oauth2's means of giving a token its own margin: it sets the
		// token's, which Valid reads. The source it returns is not used.
		_ = oauth2.ReuseTokenSourceWithExpiry(tok, nil, margin)
	}
}

// failure says why a token could not be had, with what the token endpoint
// answered (which the call's redaction still goes over).
func (s *tokenSource) failure(err error) error {
	where := fmt.Sprintf("could not get an OAuth2 token for http_api %q from %s", s.api, s.config.TokenURL)
	credential := "client_secret"
	if s.signer != nil {
		credential = "private_key_file (its public key registered with the identity provider)"
	}
	check := "client_id, " + credential + " and scopes"
	if s.exchanged != nil {
		where = fmt.Sprintf("could not exchange the caller's token for one for http_api %q at %s", s.api, s.config.TokenURL)
		check = "client_id, " + credential + ", audience and scopes, and that the identity provider lets this client exchange the caller's tokens"
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		switch {
		case re.ErrorCode != "" && re.ErrorDescription != "":
			return fmt.Errorf("%s: it answered %d, %s: %s; check %s", where, re.Response.StatusCode, re.ErrorCode, re.ErrorDescription, check)
		case re.ErrorCode != "":
			return fmt.Errorf("%s: it answered %d, %s; check %s", where, re.Response.StatusCode, re.ErrorCode, check)
		default:
			return fmt.Errorf("%s: it answered %s", where, re.Response.Status)
		}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%s: %s", where, describeTransportError(ue.Err))
	}
	return fmt.Errorf("%s: %v", where, err)
}

// decodeOAuth2 decodes auth { oauth2 { … } }, the client credentials grant
// (RFC 6749, section 4.4), and auth { token_exchange { … } }, the token
// exchange (RFC 8693) of each caller's token, which takes the same
// attributes and needs an audience.
func (a *API) decodeOAuth2(ctx *engine.DecodeContext, b *hcl.Block) hcl.Diagnostics {
	sp := oauth2Spec
	if b.Type == "token_exchange" {
		sp = tokenExchangeSpec
	}
	v, diags := sp.Decode(b.Body, ctx)
	if diags.HasErrors() {
		return diags
	}
	s := &tokenSource{api: a.name, redactor: ctx.Redactor, logger: ctx.Logger}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	s.config.TokenURL = v.String("token_url")
	s.config.ClientID = v.String("client_id")
	s.config.ClientSecret = v.String("client_secret")
	audience, resource := v.String("audience"), v.String("resource")
	if attr := v.Attr("scopes"); attr != nil {
		val, more := ctx.Eval(attr.Expr)
		diags = append(diags, more...)
		if !more.HasErrors() {
			scopes, ok := stringList(val)
			if !ok {
				diags = append(diags, errorf(attr.Expr.Range(), "Invalid scopes", `scopes must be a list of strings without spaces, such as ["read", "write"].`))
			}
			s.config.Scopes = scopes
		}
	}
	if diags.HasErrors() {
		return diags
	}
	if err := checkTokenURL(s.config.TokenURL); err != nil {
		diags = append(diags, errorf(v.Attr("token_url").Expr.Range(), "Invalid token_url", "%s.", err))
	}
	switch v.String("auth_style") {
	case "header":
		s.config.AuthStyle = oauth2.AuthStyleInHeader
	case "body":
		s.config.AuthStyle = oauth2.AuthStyleInParams
	}
	if b.Type == "token_exchange" {
		s.exchanged = newExchanged(ctx.Redactor)
		if audience == "" && resource == "" {
			diags = append(diags, errorf(b.DefRange, "Missing audience",
				`A token exchange asks for a token meant for this API: add audience = "…" (the name the identity provider knows it by) or resource = "https://…".`))
		}
	}
	params := url.Values{}
	if audience != "" {
		params.Set("audience", audience)
	}
	if resource != "" {
		params.Set("resource", resource)
	}
	if len(params) > 0 {
		s.config.EndpointParams = params
	}
	secretAttr, hasSecret := v.Attr("client_secret"), v.Written("client_secret")
	keyAttr, hasKey := v.Attr("private_key_file"), v.Written("private_key_file")
	switch {
	case hasSecret && hasKey:
		r := []hcl.Range{secretAttr.NameRange, keyAttr.NameRange}
		sortRanges(r)
		return append(diags, errorf(r[1], "Conflicting client credentials",
			"The client proves who it is with client_secret or with private_key_file (a signed JWT, private_key_jwt), not both; the other is given at %s.", r[0]))
	case !hasSecret && !hasKey:
		return append(diags, errorf(b.DefRange, "Missing client credential",
			`The client proves who it is to the token endpoint: add client_secret = var.client_secret, or private_key_file = "client-key.pem" to sign a JWT instead (private_key_jwt).`))
	case hasKey:
		pem, shown, err := ctx.ReadFile(v.String("private_key_file"))
		if err != nil {
			return append(diags, errorf(keyAttr.Expr.Range(), "Cannot read private_key_file", "%s.", err))
		}
		if s.signer, err = newSigner(pem, v.String("private_key_id")); err != nil {
			return append(diags, errorf(keyAttr.Expr.Range(), "Invalid private_key_file", "%s: %s.", shown, err))
		}
	}
	if hasSecret {
		diags = append(diags, a.checkSet(ctx, secretAttr.Expr, "client secret", s.config.ClientSecret)...)
	}
	if s.config.ClientID == "" {
		diags = append(diags, a.checkSet(ctx, v.Attr("client_id").Expr, "client id", "")...)
	}
	if ctx.Redactor != nil {
		ctx.Redactor.Add(s.config.ClientSecret)
	}
	a.oauth = s
	return diags
}

// stringList returns the strings of a list of strings without spaces (a
// scope cannot hold one).
func stringList(v cty.Value) ([]string, bool) {
	v, _ = v.Unmark()
	if v.IsNull() || !v.IsKnown() || !v.CanIterateElements() || v.Type().IsMapType() || v.Type().IsObjectType() {
		return nil, false
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		e, _ = e.Unmark()
		if e.IsNull() || !e.IsKnown() || e.Type() != cty.String || e.AsString() == "" || strings.ContainsAny(e.AsString(), " \t\r\n") {
			return nil, false
		}
		out = append(out, e.AsString())
	}
	return out, true
}

// checkTokenURL checks a token endpoint: the client secret is sent to it,
// so it must be https, but for a loopback address (a local test server).
func checkTokenURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("%q is not a URL: %v", s, text.UnwrapURLError(err))
	}
	if err := checkOrigin(s, u); err != nil {
		return err
	}
	if u.Scheme == "http" && !loopback(u.Hostname()) {
		return fmt.Errorf("%q is not https: the client secret is sent to it, so only https is allowed (http only on a loopback address)", s)
	}
	return nil
}

// loopback reports whether host is localhost or a loopback IP address.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// newTokenClient is the client of a token endpoint: the http_api's TLS
// settings, bounded in time, and no redirects (a token endpoint that moves
// is a configuration to fix, not a place to send a secret).
func newTokenClient(tlsConfig *tls.Config, timeout time.Duration) *http.Client {
	if timeout <= 0 {
		timeout = tokenTimeout
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	if tlsConfig != nil {
		t.TLSClientConfig = tlsConfig
	}
	return &http.Client{
		Transport: t,
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return errors.New("the token endpoint redirected; give its final URL as token_url")
		},
	}
}
