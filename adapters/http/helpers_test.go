package httpaction

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/expr-lang/expr/types"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/mccutchen/go-httpbin/v2/httpbin"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/spec"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// testArgs is the type of args in the test configurations: any field of
// any type.
var testArgs = types.Map{types.Extra: types.Any}

// fixture decodes test configurations through the adapter, the way the
// loader does: http_api blocks first, then http blocks that may refer to
// them as http_api.<name>.
type fixture struct {
	t        testing.TB
	dir      string
	apis     map[string]cty.Value
	redactor *text.Redactor
	settings engine.Settings
	vars     map[string]cty.Value
}

func newFixture(t testing.TB) *fixture {
	return &fixture{
		t:        t,
		dir:      t.TempDir(),
		apis:     map[string]cty.Value{},
		redactor: &text.Redactor{},
		settings: engine.DefaultSettings(),
		vars:     map[string]cty.Value{},
	}
}

func (f *fixture) ctx() *engine.DecodeContext {
	vars := map[string]cty.Value{"http_api": cty.EmptyObjectVal}
	if len(f.apis) > 0 {
		vars["http_api"] = cty.ObjectVal(f.apis)
	}
	if len(f.vars) > 0 {
		vars["var"] = cty.ObjectVal(f.vars)
	}
	return &engine.DecodeContext{
		EvalContext: &hcl.EvalContext{
			Variables: vars,
			Functions: map[string]function.Function{"expr": mapping.Function()},
		},
		Env:      mapping.Env{"args": testArgs},
		Settings: f.settings,
		Redactor: f.redactor,
		Dir:      f.dir,
	}
}

// rootSpec is a test configuration: http_api blocks and an http block.
var rootSpec = &spec.Block{Name: "test", Blocks: []spec.Nested{{Block: APISpec}, {Block: ActionSpec}}}

// decode decodes src and returns the action of its http block, if any, and
// every diagnostic.
func (f *fixture) decode(src string) (engine.Action, hcl.Diagnostics) {
	f.t.Helper()
	file, diags := hclsyntax.ParseConfig([]byte(src), "test.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		f.t.Fatalf("parsing the test configuration: %s", diags)
	}
	content, diags := rootSpec.Decode(file.Body, f.ctx())
	if diags.HasErrors() {
		f.t.Fatalf("reading the test configuration: %s", diags)
	}
	a := New()
	var all hcl.Diagnostics
	for _, b := range content.Blocks("http_api") {
		r, diags := a.DecodeUpstream(f.ctx(), b)
		all = append(all, diags...)
		if diags.HasErrors() {
			f.apis[b.Labels[0]] = cty.UnknownVal(engine.UpstreamType())
			continue
		}
		api := r.(*API)
		f.t.Cleanup(func() { _ = api.Close() })
		f.apis[b.Labels[0]] = engine.UpstreamVal("http_api", r)
	}
	var action engine.Action
	for _, b := range content.Blocks("http") {
		act, diags := a.DecodeAction(f.ctx(), b)
		all = append(all, diags...)
		action = act
	}
	return action, all
}

// action decodes src, which must be valid and hold an http block.
func (f *fixture) action(src string) engine.Action {
	f.t.Helper()
	a, diags := f.decode(src)
	if diags.HasErrors() {
		f.t.Fatalf("decoding:\n%s", diagsText(diags))
	}
	if a == nil {
		f.t.Fatal("no action decoded")
	}
	return a
}

// run decodes src and runs its action once with args.
func (f *fixture) run(src string, args map[string]any) (*engine.Response, error) {
	f.t.Helper()
	return f.action(src).Run(context.Background(), args)
}

func diagsText(diags hcl.Diagnostics) string {
	var b strings.Builder
	for _, d := range diags {
		rng := ""
		if d.Subject != nil {
			rng = rangeText(*d.Subject)
		}
		fmt.Fprintf(&b, "%s: %s: %s\n", rng, d.Summary, d.Detail)
	}
	return b.String()
}

// rangeText writes a range as line:col-line:col.
func rangeText(r hcl.Range) string {
	return fmt.Sprintf("%d:%d-%d:%d", r.Start.Line, r.Start.Column, r.End.Line, r.End.Column)
}

// httpbinServer is go-httpbin on a loopback port.
func httpbinServer(t testing.TB) *httptest.Server {
	srv := httptest.NewServer(httpbin.New())
	t.Cleanup(srv.Close)
	return srv
}

// recorder is a test server that records the requests it receives.
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []*http.Request
	body [][]byte
}

func newRecorder(t testing.TB, handler http.HandlerFunc) *recorder {
	return startRecorder(t, handler, httptest.NewServer)
}

// newTLSRecorder is a recorder that speaks https, with httptest's
// certificate.
func newTLSRecorder(t testing.TB, handler http.HandlerFunc) *recorder {
	return startRecorder(t, handler, httptest.NewTLSServer)
}

func startRecorder(t testing.TB, handler http.HandlerFunc, start func(http.Handler) *httptest.Server) *recorder {
	rec := &recorder{}
	rec.Server = start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, 0, 512)
		buf := make([]byte, 512)
		for {
			n, err := r.Body.Read(buf)
			b = append(b, buf[:n]...)
			if err != nil {
				break
			}
		}
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, r)
		rec.body = append(rec.body, b)
		rec.mu.Unlock()
		if handler != nil {
			handler(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(rec.Close)
	return rec
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reqs)
}

func (r *recorder) last(t *testing.T) *http.Request {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.reqs) == 0 {
		t.Fatal("the server received no request")
	}
	return r.reqs[len(r.reqs)-1]
}

func (r *recorder) lastBody() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return string(r.body[len(r.body)-1])
}

// api writes an http_api block named x for base.
func api(base string, extra ...string) string {
	return fmt.Sprintf("http_api \"x\" {\n  base_url = %q\n%s\n}\n", base, strings.Join(extra, "\n"))
}
