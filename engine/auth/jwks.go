package auth

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwk"
)

// How the key set is fetched and kept.
const (
	jwksTimeout  = 10 * time.Second
	jwksMaxBytes = 1 << 20
	jwksTTL      = 15 * time.Minute
)

// keySet is the JWKS of the authorization server, fetched on first use,
// kept for jwksTTL, and fetched again when a token names an unknown key, at
// most once every minRefresh.
type keySet struct {
	url        string
	client     *http.Client
	minRefresh time.Duration

	mu      sync.Mutex // serializes fetches
	set     jwk.Set
	fetched time.Time
	tried   time.Time // the last fetch, successful or not
}

func newKeySet(url string) *keySet {
	return &keySet{url: url, client: &http.Client{Timeout: jwksTimeout}, minRefresh: 10 * time.Second}
}

// lookup returns the key named kid ("" when the token names none: then the
// set must hold one key). An unknown kid makes the set be fetched again,
// unless it was fetched less than minRefresh ago.
func (k *keySet) lookup(ctx context.Context, kid string) (jwk.Key, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.set == nil || time.Since(k.fetched) > jwksTTL {
		if err := k.fetchLocked(ctx); err != nil && k.set == nil {
			return nil, err
		}
	}
	if key, ok := find(k.set, kid); ok {
		return key, nil
	}
	if time.Since(k.tried) >= k.minRefresh {
		if err := k.fetchLocked(ctx); err != nil {
			return nil, err
		}
		if key, ok := find(k.set, kid); ok {
			return key, nil
		}
	}
	if kid == "" {
		return nil, fmt.Errorf("the token names no key (kid) and the JWKS holds %d", k.set.Len())
	}
	return nil, fmt.Errorf("the token is signed with key %q, which the JWKS at %s does not hold", kid, k.url)
}

func find(set jwk.Set, kid string) (jwk.Key, bool) {
	if set == nil {
		return nil, false
	}
	if kid == "" {
		if set.Len() == 1 {
			return set.Key(0)
		}
		return nil, false
	}
	return set.LookupKeyID(kid)
}

// check fetches the set now.
func (k *keySet) check(ctx context.Context) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.fetchLocked(ctx)
}

// fetchLocked fetches and parses the set; k.mu is held.
func (k *keySet) fetchLocked(ctx context.Context) error {
	k.tried = time.Now()
	fail := func(format string, args ...any) error {
		return fmt.Errorf("cannot fetch the JWKS at %s: "+format, append([]any{k.url}, args...)...)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.url, nil)
	if err != nil {
		return fail("%w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := k.client.Do(req)
	if err != nil {
		return fail("%w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fail("HTTP %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, jwksMaxBytes+1))
	if err != nil {
		return fail("%w", err)
	}
	if len(body) > jwksMaxBytes {
		return fail("it is larger than %d bytes", jwksMaxBytes)
	}
	set, err := jwk.Parse(body)
	if err != nil {
		return fail("it is not a JSON Web Key Set: %w", err)
	}
	k.set, k.fetched = set, time.Now()
	return nil
}
