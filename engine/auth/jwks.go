package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// How the key set is fetched and kept.
const (
	// jwksTimeout bounds one fetch, body included.
	jwksTimeout = 10 * time.Second
	// jwksMaxBytes bounds the size of the key set.
	jwksMaxBytes = 1 << 20
	// jwksMinAge and jwksMaxAge bound how long a fetched set is kept
	// before it is fetched again in the background; within them, the
	// answer's Cache-Control or Expires decides.
	jwksMinAge = 15 * time.Minute
	jwksMaxAge = time.Hour
	// jwksMinRefresh is the least time between two fetches asked for by
	// requests (a token naming an unknown key, a readiness check).
	jwksMinRefresh = 10 * time.Second
)

// errClosed is returned once the authenticator is closed.
var errClosed = errors.New("the authenticator is closed")

// keySet is the JWKS of the authorization server. It is fetched on first
// use, in the foreground so that its error can be reported, then kept
// fresh by a goroutine of its own, and fetched again when a token names a
// key it lacks, at most once every minRefresh whatever the traffic.
type keySet struct {
	url    string
	logger *slog.Logger
	client *http.Client
	// minRefresh (jwksMinRefresh), and minAge and maxAge (jwksMinAge and
	// jwksMaxAge) are fields, so that tests can shorten them.
	minRefresh     time.Duration
	minAge, maxAge time.Duration

	set  atomic.Pointer[jwkSet] // the set last fetched; nil before the first
	next atomic.Int64           // when the background fetch is due, in Unix nanoseconds

	startMu sync.Mutex // guards the fields below
	closed  bool
	// life ends when the key set is closed: it stops the background
	// goroutine and any fetch under way. It is nil before the first use.
	life context.Context
	stop context.CancelFunc
	done chan struct{} // closed when the background goroutine has returned

	// fetching is held during a fetch, foreground or background, so that
	// callers that come meanwhile wait for it instead of fetching again.
	// It also guards lastFetch and lastErr.
	fetching  chan struct{}
	lastFetch time.Time // when the last fetch asked for by a request started
	lastErr   error     // and how it ended
}

// newKeySet returns the key set published at u, logging to logger; it is
// not fetched yet.
func newKeySet(u string, logger *slog.Logger) *keySet {
	return &keySet{
		url:        u,
		minRefresh: jwksMinRefresh,
		minAge:     jwksMinAge,
		maxAge:     jwksMaxAge,
		logger:     logger,
		client: &http.Client{
			Timeout:       jwksTimeout,
			CheckRedirect: checkRedirect,
		},
		fetching: make(chan struct{}, 1),
	}
}

// checkRedirect follows at most three redirects, never to plain http on
// another host than a loopback one.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 3 {
		return errors.New("too many redirects")
	}
	if msg := checkURL(req.URL.String()); msg != "" {
		return fmt.Errorf("redirected to %s", req.URL.Redacted())
	}
	return nil
}

// start starts the background refresh, once, and returns the context that
// ends with the key set. Nothing is fetched yet: the first fetch is made by
// refresh, in the foreground.
func (k *keySet) start() (context.Context, error) {
	k.startMu.Lock()
	defer k.startMu.Unlock()
	if k.closed {
		return nil, errClosed
	}
	if k.life == nil {
		k.life, k.stop = context.WithCancel(context.Background())
		k.done = make(chan struct{})
		k.next.Store(time.Now().Add(k.minAge).UnixNano())
		go k.run(k.life)
	}
	return k.life, nil
}

// run fetches the set whenever it is due, until ctx ends.
func (k *keySet) run(ctx context.Context) {
	defer close(k.done)
	timer := time.NewTimer(k.untilNext())
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		k.background(ctx)
		timer.Reset(k.untilNext())
	}
}

// untilNext is the time left before the background fetch is due.
func (k *keySet) untilNext() time.Duration {
	return time.Until(time.Unix(0, k.next.Load()))
}

// background fetches the set, unless a fetch meanwhile put off the next
// one. A failure is logged, and the keys fetched before are kept.
func (k *keySet) background(ctx context.Context) {
	select {
	case k.fetching <- struct{}{}:
	case <-ctx.Done():
		return
	}
	defer func() { <-k.fetching }()
	if k.untilNext() > 0 {
		return
	}
	if err := k.update(ctx); err != nil && ctx.Err() == nil {
		k.logger.Warn("cannot refresh the JWKS; the keys fetched before are kept", "url", k.url, "error", err.Error())
	}
}

// current is the key set last fetched, nil before the first fetch
// succeeds.
func (k *keySet) current() *jwkSet { return k.set.Load() }

// refresh fetches the set now, unless a request made it fetch less than
// minRefresh ago: then it returns how that fetch ended. Callers that come
// while a fetch runs wait for it, and do not fetch again.
func (k *keySet) refresh(ctx context.Context) error {
	life, err := k.start()
	if err != nil {
		return err
	}
	select {
	case k.fetching <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("cannot fetch the JWKS at %s: %w", k.url, ctx.Err())
	}
	defer func() { <-k.fetching }()
	if !k.lastFetch.IsZero() && time.Since(k.lastFetch) < k.minRefresh {
		return k.lastErr
	}
	if life.Err() != nil {
		return errClosed
	}
	k.lastFetch = time.Now()
	// The fetch is made for every caller, not only this one: it ends with
	// the key set, or after jwksTimeout, not when ctx does.
	err = k.update(life)
	if err != nil {
		err = fmt.Errorf("cannot fetch the JWKS at %s: %w", k.url, err)
	}
	k.lastErr = err
	return err
}

// update fetches the set, keeps it if the fetch succeeded, and says when
// the background fetch is due. The caller holds fetching.
func (k *keySet) update(ctx context.Context) error {
	set, age, err := k.fetch(ctx)
	k.next.Store(time.Now().Add(age).UnixNano())
	if err != nil {
		return err
	}
	k.set.Store(set)
	if err := set.unusable(k.url); err != nil {
		k.logger.Warn("the JWKS holds no key that can check a signature, so every JWT is refused", "url", k.url, "error", err.Error())
	}
	return nil
}

// fetch gets the set once, and says how long to keep it (minAge when there
// was no answer). Its errors are worded for people.
func (k *keySet) fetch(ctx context.Context) (*jwkSet, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.url, nil)
	if err != nil {
		return nil, k.minAge, err
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := k.client.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			if uerr.Timeout() {
				return nil, k.minAge, errors.New("no answer in time")
			}
			err = uerr.Err
		}
		return nil, k.minAge, err
	}
	defer resp.Body.Close()
	age := k.keepFor(resp.Header, time.Now())
	if resp.StatusCode != http.StatusOK {
		return nil, age, fmt.Errorf("the server answered %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, jwksMaxBytes+1))
	if err != nil {
		return nil, age, fmt.Errorf("reading the answer: %w", err)
	}
	if len(body) > jwksMaxBytes {
		return nil, age, fmt.Errorf("the answer is larger than %d bytes", jwksMaxBytes)
	}
	set, err := parseJWKS(body)
	if err != nil {
		return nil, age, fmt.Errorf("the answer is not a JSON Web Key Set: %w", err)
	}
	return set, age, nil
}

// keepFor is how long an answer with header, received at now, is kept:
// its Cache-Control max-age, else until its Expires, else minAge; bounded
// by minAge and maxAge either way.
func (k *keySet) keepFor(header http.Header, now time.Time) time.Duration {
	age := k.minAge
	if secs, ok := maxAgeDirective(strings.Join(header.Values("Cache-Control"), ",")); ok {
		age = time.Duration(min(secs, int64(k.maxAge/time.Second)+1)) * time.Second
	} else if t, err := http.ParseTime(header.Get("Expires")); err == nil {
		age = t.Sub(now)
	}
	return min(max(age, k.minAge), k.maxAge)
}

// maxAgeDirective reads the max-age directive of a Cache-Control value.
func maxAgeDirective(cc string) (int64, bool) {
	for d := range strings.SplitSeq(cc, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(d), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(name), "max-age") {
			continue
		}
		secs, err := strconv.ParseInt(strings.Trim(strings.TrimSpace(value), `"`), 10, 64)
		if err != nil || secs < 0 {
			return 0, false
		}
		return secs, true
	}
	return 0, false
}

// lookup returns the keys named kid. A kid the set lacks makes it be
// fetched again (see refresh). A token that names no key may be checked
// when the set holds exactly one signing key.
func (k *keySet) lookup(ctx context.Context, kid string) ([]*jwk, error) {
	if keys := k.current().find(kid); len(keys) > 0 {
		return keys, nil
	}
	err := k.refresh(ctx)
	set := k.current()
	if keys := set.find(kid); len(keys) > 0 {
		return keys, nil
	}
	switch {
	case set == nil && err != nil:
		return nil, err
	case set == nil:
		return nil, fmt.Errorf("the JWKS at %s has not been fetched yet", k.url)
	}
	return nil, set.missing(k.url, kid)
}

// close stops the background refresh, and any fetch under way; keys
// already fetched still serve.
func (k *keySet) close() error {
	k.startMu.Lock()
	k.closed = true
	stop, done := k.stop, k.done
	k.startMu.Unlock()
	if stop == nil {
		return nil
	}
	stop()
	<-done
	k.client.CloseIdleConnections()
	return nil
}
