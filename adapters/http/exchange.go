package httpaction

import (
	"context"
	"crypto/sha256"
	"fmt"
	"maps"
	"net/url"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/oauth2"
	"golang.org/x/sync/singleflight"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// The token types of a token exchange (RFC 8693, section 3).
const (
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	accessTokenType    = "urn:ietf:params:oauth:token-type:access_token"
)

// maxExchanged bounds the callers whose exchanged tokens are kept.
const maxExchanged = 10_000

// exchanged holds the tokens a token exchange got, by caller: each
// caller's JWT is exchanged once for a token meant for the upstream, kept
// until shortly before it expires, and fetched once at a time however many
// of the caller's calls need it.
type exchanged struct {
	tokens *lru.Cache[[sha256.Size]byte, *oauth2.Token]
	flight singleflight.Group
}

func newExchanged(redactor *text.Redactor) *exchanged {
	e := &exchanged{}
	// A token that leaves the cache is no longer redacted: it is no longer
	// sent.
	e.tokens, _ = lru.NewWithEvict(maxExchanged, func(_ [sha256.Size]byte, t *oauth2.Token) {
		if redactor != nil {
			redactor.Remove(t.AccessToken)
		}
	})
	return e
}

// exchangedToken returns a token for the upstream on behalf of the call's
// caller, exchanging the caller's JWT at the token endpoint unless a token
// got before is still valid and is not stale, the token the upstream just
// refused.
func (s *tokenSource) exchangedToken(ctx context.Context, stale string) (string, error) {
	caller := engine.CallerFrom(ctx)
	if caller.Token == "" {
		return "", fmt.Errorf("http_api %q acts on behalf of the caller (token_exchange), and this call has no caller's token to exchange: it needs a client that signed in with a JWT (the server's auth block, over HTTP)", s.api)
	}
	key := sha256.Sum256([]byte(caller.Token))
	if t, ok := s.exchanged.tokens.Get(key); ok && t.Valid() && t.AccessToken != stale {
		return t.AccessToken, nil
	}
	ch := s.exchanged.flight.DoChan(string(key[:]), func() (any, error) {
		if t, ok := s.exchanged.tokens.Get(key); ok && t.Valid() && t.AccessToken != stale {
			return t.AccessToken, nil
		}
		config := s.config
		config.EndpointParams = maps.Clone(s.config.EndpointParams)
		if config.EndpointParams == nil {
			config.EndpointParams = url.Values{}
		}
		config.EndpointParams.Set("grant_type", grantTokenExchange)
		config.EndpointParams.Set("subject_token", caller.Token)
		config.EndpointParams.Set("subject_token_type", accessTokenType)
		config.EndpointParams.Set("requested_token_type", accessTokenType)
		config, err := s.withAssertion(config)
		if err != nil {
			return "", err
		}
		// Every call of this caller waits on the exchange: one that gives
		// up does not stop it; the http_api's timeout bounds it whole.
		fetch, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.client.Timeout)
		defer cancel()
		tok, err := s.fetch(fetch, config)
		if err != nil {
			return "", s.failure(err)
		}
		if tok.AccessToken == "" || !validHeaderValue(tok.AccessToken) {
			return "", fmt.Errorf("the token endpoint of http_api %q (%s) answered the token exchange without a usable access token", s.api, s.config.TokenURL)
		}
		if tok.Expiry.IsZero() {
			// A token without expires_in is kept for a minute: the
			// caller's own token may expire or be revoked meanwhile.
			tok.Expiry = time.Now().Add(time.Minute)
		}
		setExpiryMargin(tok)
		if s.redactor != nil {
			s.redactor.Add(tok.AccessToken)
		}
		s.exchanged.tokens.Add(key, tok)
		return tok.AccessToken, nil
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			return "", r.Err
		}
		return r.Val.(string), nil
	case <-ctx.Done():
		return "", fmt.Errorf("gave up waiting for the token exchange of http_api %q at %s: %w", s.api, s.config.TokenURL, context.Cause(ctx))
	}
}
