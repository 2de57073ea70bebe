package server

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/engine"
)

// maxWatched caps the resources that clients may be subscribed to at once
// (each one polled, or read again at every reload).
const maxWatched = 1000

// subscriptions follows the resources that clients subscribed to
// (resources/subscribe, or the resourceSubscriptions of a 2026-07-28
// subscriptions/listen stream) and tells them when one changed: after a
// reload that changed its contents, and, for contents computed by an
// action with a poll_interval, when a read finds other contents than the
// one before. The SDK keeps who subscribed to what and sends the
// notifications; this keeps what is watched, and reads.
type subscriptions struct {
	l      *Live
	ctx    context.Context // ended by close: stops the pollers
	cancel context.CancelFunc

	mu      sync.Mutex
	watched map[string]*watch // by URI
}

// watch is one resource that clients are subscribed to.
type watch struct {
	uri      string
	sessions map[*mcp.ServerSession]bool
	digest   [sha256.Size]byte // of the contents last read
	read     bool              // digest holds a read
	interval time.Duration     // its poller's, 0 when not polled
	stop     context.CancelFunc
	// perCaller is set while the contents read caller: they differ from
	// one subscriber to another, so they are not read for all of them.
	perCaller bool
	// learned is closed once the first read, of the configuration served
	// when the first client subscribed, is done; nil when there was none.
	learned chan struct{}
}

func newSubscriptions(l *Live) *subscriptions {
	ctx, cancel := context.WithCancel(context.Background())
	return &subscriptions{l: l, ctx: ctx, cancel: cancel, watched: map[string]*watch{}}
}

// close stops every poller.
func (s *subscriptions) close() { s.cancel() }

// subscribe is the SDK's SubscribeHandler: it refuses a URI that no
// resource or template serves, then watches it.
func (s *subscriptions) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	g := s.l.generation()
	r, t := g.cfg.ResourceAt(uri)
	if r == nil && t == nil {
		return mcp.ResourceNotFoundError(uri)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.watched[uri]
	if w == nil {
		if len(s.watched) >= maxWatched {
			return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("resources/subscribe: this server already watches %d resources for its clients, the most it does; unsubscribe from some first", maxWatched)}
		}
		w = &watch{uri: uri, sessions: map[*mcp.ServerSession]bool{}, perCaller: readsCaller(r, t)}
		s.watched[uri] = w
		if d := pollInterval(r, t); d > 0 {
			s.poll(w, d)
		} else if !w.perCaller {
			// Learn the contents, to tell after a reload whether they
			// changed: those of the configuration served now, even when
			// a reload comes before the read ends (reloaded waits for it).
			g, release := s.l.acquire()
			w.learned = make(chan struct{})
			go func() {
				defer close(w.learned)
				s.checkOn(s.ctx, w, g, release)
			}()
		}
	}
	w.sessions[req.Session] = true
	return nil
}

// unsubscribe is the SDK's UnsubscribeHandler: the URI is no longer
// watched once no session is subscribed to it.
func (s *subscriptions) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w := s.watched[req.Params.URI]; w != nil {
		delete(w.sessions, req.Session)
		s.forgetIfUnwatched(w)
	}
	return nil
}

// forgetIfUnwatched drops w once no live session is subscribed to it:
// sessions that ended without unsubscribing are left out. s.mu is held.
func (s *subscriptions) forgetIfUnwatched(w *watch) bool {
	if len(w.sessions) > 0 {
		live := map[*mcp.ServerSession]bool{}
		for ss := range s.l.srv.Sessions() {
			live[ss] = true
		}
		for ss := range w.sessions {
			if !live[ss] {
				delete(w.sessions, ss)
			}
		}
	}
	if len(w.sessions) > 0 {
		return false
	}
	if w.stop != nil {
		w.stop()
	}
	delete(s.watched, w.uri)
	return true
}

// pollInterval is how often the resource at a URI is read again while
// watched: that of its resource or template, 0 for none.
func pollInterval(r *engine.Resource, t *engine.ResourceTemplate) time.Duration {
	switch {
	case r != nil:
		return r.PollInterval
	case t != nil:
		return t.PollInterval
	}
	return 0
}

// readsCaller reports whether the contents of a resource or template
// read caller. The loader refuses a poll_interval on such contents.
func readsCaller(r *engine.Resource, t *engine.ResourceTemplate) bool {
	switch {
	case r != nil:
		return r.Tool != nil && r.Tool.ReadsCaller()
	case t != nil:
		return t.Tool.ReadsCaller()
	}
	return false
}

// poll starts (or, with interval 0, stops) w's poller: it reads the
// contents first, to know them, then every interval, and tells the
// subscribers when they changed. s.mu is held.
func (s *subscriptions) poll(w *watch, interval time.Duration) {
	if w.stop != nil && w.interval == interval {
		return
	}
	if w.stop != nil {
		w.stop()
		w.stop = nil
	}
	w.interval = interval
	if interval == 0 {
		return
	}
	ctx, stop := context.WithCancel(s.ctx)
	w.stop = stop
	go func() {
		s.check(ctx, w)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			s.mu.Lock()
			gone := s.forgetIfUnwatched(w)
			s.mu.Unlock()
			if gone {
				return
			}
			s.check(ctx, w)
		}
	}()
}

// reloaded reads every watched resource again on the configuration now
// served, tells the subscribers of those whose contents changed (or that
// are no longer served: they read an error), and starts or stops pollers
// as the new poll_intervals say. Contents that read caller, before or
// after, are not read: one read, as nobody, cannot tell each subscriber
// whether its own contents changed, so all of them are told they may have.
func (s *subscriptions) reloaded() {
	s.mu.Lock()
	var ws, told []*watch
	for _, w := range s.watched {
		if s.forgetIfUnwatched(w) {
			continue
		}
		r, t := s.l.generation().cfg.ResourceAt(w.uri)
		s.poll(w, pollInterval(r, t))
		was := w.perCaller
		w.perCaller = readsCaller(r, t)
		if was || w.perCaller {
			told = append(told, w)
			w.read = false // what it held, if anything, is no one's now
		}
		if !w.perCaller {
			ws = append(ws, w)
		}
	}
	s.mu.Unlock()
	for _, w := range ws {
		if w.learned != nil {
			select {
			case <-w.learned:
			case <-s.ctx.Done():
				return
			}
		}
	}
	for _, w := range told {
		s.l.logger.Debug("subscribed resource read per caller, told it may have changed", "uri", w.uri)
		_ = s.l.srv.ResourceUpdated(s.ctx, &mcp.ResourceUpdatedNotificationParams{URI: w.uri})
	}
	for _, w := range ws {
		s.check(s.ctx, w)
	}
}

// check reads w's contents and tells its subscribers when they differ from
// those read before (the first read only learns them). A read that fails
// changes nothing, but a URI no longer served is a change.
func (s *subscriptions) check(ctx context.Context, w *watch) {
	g, release := s.l.acquire()
	s.checkOn(ctx, w, g, release)
}

// checkOn is check on the generation g, acquired: release lets it go once
// read.
func (s *subscriptions) checkOn(ctx context.Context, w *watch, g *generation, release func()) {
	contents, found, err := s.l.read(ctx, g, w.uri)
	release()
	if ctx.Err() != nil {
		return
	}
	var digest [sha256.Size]byte
	switch {
	case !found:
		digest = sha256.Sum256([]byte("not found"))
	case err != nil:
		s.l.logger.Debug("reading a subscribed resource failed", "uri", w.uri, "error", g.cfg.Redactor.Redact(err.Error()))
		return
	default:
		digest = digestOf(contents)
	}
	s.mu.Lock()
	changed := w.read && digest != w.digest
	w.digest, w.read = digest, true
	s.mu.Unlock()
	if changed {
		s.l.logger.Debug("subscribed resource changed", "uri", w.uri)
		_ = s.l.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: w.uri})
	}
}

// digestOf sums contents, to tell whether they changed.
func digestOf(contents []engine.ResourceContents) [sha256.Size]byte {
	h := sha256.New()
	for _, c := range contents {
		fmt.Fprintf(h, "%q %q %t %d:", c.URI, c.MIMEType, c.IsBlob, len(c.Text)+len(c.Blob))
		h.Write([]byte(c.Text))
		h.Write(c.Blob)
	}
	var d [sha256.Size]byte
	h.Sum(d[:0])
	return d
}
