package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lestrrat-go/httprc/v3"
	"github.com/lestrrat-go/httprc/v3/errsink"
	"github.com/lestrrat-go/jwx/v3/jwk"
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
// use, kept fresh in the background by an httprc client (the engine of
// jwk.Cache), and fetched again when a token names a key it lacks, at most
// once every minRefresh whatever the traffic.
//
// jwk.Cache itself is not used because registering a URL with it always
// starts a fetch in the background, whose error only an error sink sees:
// the first fetch here is made in the foreground, so that its error can be
// reported.
type keySet struct {
	url        string
	minRefresh time.Duration // a field, so that tests can shorten it
	logger     *slog.Logger
	client     *http.Client

	startMu sync.Mutex // guards ctrl and closed
	ctrl    httprc.Controller
	closed  bool
	res     atomic.Pointer[httprc.ResourceBase[jwk.Set]] // set once started

	refreshMu sync.Mutex // held during a fetch asked for by a request
	lastFetch time.Time  // when the last such fetch started
	lastErr   error      // and how it ended
}

func newKeySet(u string, logger *slog.Logger) *keySet {
	return &keySet{
		url:        u,
		minRefresh: jwksMinRefresh,
		logger:     logger,
		client: &http.Client{
			Timeout:       jwksTimeout,
			CheckRedirect: checkRedirect,
		},
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

// fetchError is a failed fetch, worded for people: httprc wraps it in
// words of its own, which are dropped.
type fetchError struct{ msg string }

func (e *fetchError) Error() string { return e.msg }

// client is the http client of httprc: it refuses answers other than 200
// and bodies larger than jwksMaxBytes, with errors that say so.
type client struct{ c *http.Client }

func (c client) Do(req *http.Request) (*http.Response, error) {
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := c.c.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return nil, &fetchError{err.Error()}
	}
	if resp.StatusCode != http.StatusOK {
		_ = resp.Body.Close()
		return nil, &fetchError{"the server answered " + resp.Status}
	}
	return resp, nil
}

// transform reads a key set from an answer.
func transform(_ context.Context, resp *http.Response) (jwk.Set, error) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, jwksMaxBytes+1))
	if err != nil {
		return nil, &fetchError{"reading the answer: " + err.Error()}
	}
	if len(body) > jwksMaxBytes {
		return nil, &fetchError{fmt.Sprintf("the answer is larger than %d bytes", jwksMaxBytes)}
	}
	set, err := jwk.Parse(body)
	if err != nil {
		return nil, &fetchError{"the answer is not a JSON Web Key Set: " + err.Error()}
	}
	return set, nil
}

// start starts the httprc client, once. Nothing is fetched yet.
func (k *keySet) start() error {
	k.startMu.Lock()
	defer k.startMu.Unlock()
	if k.closed {
		return errClosed
	}
	if k.ctrl != nil {
		return nil
	}
	res, err := httprc.NewResource[jwk.Set](k.url, httprc.TransformFunc[jwk.Set](transform),
		httprc.WithHTTPClient(client{k.client}),
		httprc.WithMinInterval(jwksMinAge),
		httprc.WithMaxInterval(jwksMaxAge),
	)
	if err != nil {
		return fmt.Errorf("cannot fetch the JWKS at %s: %w", k.url, err)
	}
	// The first fetch is made by refresh, in the foreground.
	res.SetNext(time.Now().Add(jwksMinAge))
	sink := errsink.NewFunc(func(_ context.Context, err error) {
		k.logger.Warn("cannot refresh the JWKS; the keys fetched before are kept", "url", k.url, "error", describe(err))
	})
	ctrl, err := httprc.NewClient(httprc.WithWorkers(1), httprc.WithErrorSink(sink)).Start(context.Background())
	if err != nil {
		return fmt.Errorf("cannot fetch the JWKS at %s: %w", k.url, err)
	}
	if err := ctrl.Add(context.Background(), res, httprc.WithWaitReady(false)); err != nil {
		_ = ctrl.Shutdown(jwksTimeout)
		return fmt.Errorf("cannot fetch the JWKS at %s: %w", k.url, err)
	}
	k.ctrl = ctrl
	k.res.Store(res)
	return nil
}

// current is the key set last fetched, nil before the first fetch
// succeeds.
func (k *keySet) current() jwk.Set {
	res := k.res.Load()
	if res == nil {
		return nil
	}
	return res.Resource()
}

// refresh fetches the set now, unless a request made it fetch less than
// minRefresh ago: then it returns how that fetch ended. Callers that come
// while a fetch runs wait for it, and do not fetch again.
func (k *keySet) refresh(ctx context.Context) error {
	if err := k.start(); err != nil {
		return err
	}
	k.refreshMu.Lock()
	defer k.refreshMu.Unlock()
	if !k.lastFetch.IsZero() && time.Since(k.lastFetch) < k.minRefresh {
		return k.lastErr
	}
	k.startMu.Lock()
	ctrl, closed := k.ctrl, k.closed
	k.startMu.Unlock()
	if closed {
		return errClosed
	}
	k.lastFetch = time.Now()
	// The fetch itself is bounded by the client's timeout; this bounds the
	// wait for it, should the client be shut down meanwhile.
	ctx, cancel := context.WithTimeout(ctx, jwksTimeout+time.Second)
	defer cancel()
	err := ctrl.Refresh(ctx, k.url)
	if err != nil {
		err = fmt.Errorf("cannot fetch the JWKS at %s: %s", k.url, describe(err))
	}
	k.lastErr = err
	return err
}

// describe is the words of a failed fetch, without the wrapping of httprc.
func describe(err error) string {
	var ferr *fetchError
	if errors.As(err, &ferr) {
		return ferr.msg
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "no answer in time"
	}
	return err.Error()
}

// lookup returns the key named kid. A kid the set lacks makes it be
// fetched again (see refresh). A token that names no key may be checked
// when the set holds exactly one.
func (k *keySet) lookup(ctx context.Context, kid string) (jwk.Key, error) {
	if key, ok := find(k.current(), kid); ok {
		return key, nil
	}
	err := k.refresh(ctx)
	set := k.current()
	if key, ok := find(set, kid); ok {
		return key, nil
	}
	switch {
	case set == nil && err != nil:
		return nil, err
	case set == nil:
		return nil, fmt.Errorf("the JWKS at %s has not been fetched yet", k.url)
	case kid == "":
		return nil, fmt.Errorf("the token names no key (kid) and the JWKS holds %d", set.Len())
	}
	return nil, fmt.Errorf("the JWKS at %s holds no key %q", k.url, kid)
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

// close stops the background refresh; keys already fetched still serve.
func (k *keySet) close() error {
	k.startMu.Lock()
	ctrl := k.ctrl
	k.closed = true
	k.startMu.Unlock()
	if ctrl == nil {
		return nil
	}
	err := ctrl.Shutdown(jwksTimeout)
	k.client.CloseIdleConnections()
	if err != nil {
		return fmt.Errorf("stopping the refresh of the JWKS at %s: %w", k.url, err)
	}
	return nil
}
