// Package enginetest holds what the tests of the engine and of its adapters
// share: loading a configuration written in a test, describing its
// diagnostics so that a test can check words and ranges at once, and
// calling its tools.
package enginetest

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/internal/testwait"
)

// Patience is how long a test waits for something that must happen: see
// [testwait.Patience].
const Patience = testwait.Patience

// Options are what a test may set besides the source.
type Options struct {
	// Dir is where tools.hcl is written; empty means a new temporary
	// directory.
	Dir string
	// Vars are --var values.
	Vars map[string]string
	// LookupEnv reads the environment; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Logger receives what the configuration logs; nil discards it.
	Logger *slog.Logger
}

// Load writes src as tools.hcl in opts.Dir and loads it with the adapters
// of reg. It returns the configuration (closed when the test ends), the
// directory and every diagnostic.
func Load(t testing.TB, reg *engine.Registry, src string, opts Options) (*engine.Config, string, hcl.Diagnostics) {
	t.Helper()
	dir := opts.Dir
	if dir == "" {
		dir = t.TempDir()
	}
	name := filepath.Join(dir, "tools.hcl")
	if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _, diags := load.Load(load.Options{Registry: reg, Vars: opts.Vars, LookupEnv: opts.LookupEnv, Logger: opts.Logger}, name)
	if cfg != nil {
		t.Cleanup(func() { _ = cfg.Close() })
	}
	return cfg, dir, diags
}

// MapEnv is a LookupEnv over a fixed map: nothing else is set.
func MapEnv(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}
}

// Describe renders diagnostics as "line:col-line:col: Summary: Detail", one
// a line, so that tests can check both the words and the range.
func Describe(diags hcl.Diagnostics) string {
	var b strings.Builder
	for _, d := range diags {
		if d.Subject != nil {
			fmt.Fprintf(&b, "%d:%d-%d:%d: ", d.Subject.Start.Line, d.Subject.Start.Column, d.Subject.End.Line, d.Subject.End.Column)
		}
		fmt.Fprintf(&b, "%s: %s\n", d.Summary, d.Detail)
	}
	return b.String()
}

// Call calls the tool named name of cfg with args, JSON, failing the test
// when there is no such tool.
func Call(ctx context.Context, t testing.TB, cfg *engine.Config, name, args string) *engine.Result {
	t.Helper()
	tool, ok := cfg.Tool(name)
	if !ok {
		t.Fatalf("no tool %q", name)
	}
	return tool.Call(ctx, json.RawMessage(args))
}

// Structured is the JSON of a result's structured content.
func Structured(t testing.TB, res *engine.Result) string {
	t.Helper()
	b, err := json.Marshal(res.Structured)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Exchange is one exchange an [Observer] was told of.
type Exchange struct{ Kind, Upstream, Class string }

// Observer records the exchanges of the actions it is given to, for tests
// of what metrics see (see engine.UpstreamObserver).
type Observer struct {
	mu   sync.Mutex
	seen []Exchange
}

// ObserveUpstream records one exchange.
func (o *Observer) ObserveUpstream(kind, upstream, class string, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seen = append(o.seen, Exchange{Kind: kind, Upstream: upstream, Class: class})
}

// Seen returns the exchanges recorded so far.
func (o *Observer) Seen() []Exchange {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.seen)
}
