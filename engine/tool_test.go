package engine_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/schema"
	"github.com/mcpdecl/mcpdecl/engine/text"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// gate is an action that counts the runs under way and blocks each until
// released or cancelled.
type gate struct {
	running, peak atomic.Int32
	release       chan struct{}
	stubborn      bool // keeps running when its call is cancelled
}

func (g *gate) Run(ctx context.Context, _ map[string]any) (*engine.Response, error) {
	n := g.running.Add(1)
	defer g.running.Add(-1)
	for {
		p := g.peak.Load()
		if n <= p || g.peak.CompareAndSwap(p, n) {
			break
		}
	}
	done := ctx.Done()
	if g.stubborn {
		done = nil
	}
	select {
	case <-g.release:
		return &engine.Response{}, nil
	case <-done:
		return nil, ctx.Err()
	}
}

// limitedGate has a default concurrency limit of its own.
type limitedGate struct{ *gate }

func (limitedGate) DefaultMaxConcurrency() int { return 2 }

func newTool(t *testing.T, spec engine.ToolSpec) *engine.Tool {
	t.Helper()
	spec.Name, spec.Description = "t", "d"
	tool, err := engine.NewTool(spec, engine.DefaultSettings(), &text.Redactor{})
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

func TestMaxConcurrency(t *testing.T) {
	tests := []struct {
		name   string
		action engine.Action
		max    int
		want   int32
	}{
		{"configured", &gate{release: make(chan struct{})}, 3, 3},
		{"action default", limitedGate{&gate{release: make(chan struct{})}}, 0, 2},
		{"configured wins over the default", limitedGate{&gate{release: make(chan struct{})}}, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, ok := tt.action.(*gate)
			if !ok {
				g = tt.action.(limitedGate).gate
			}
			tool := newTool(t, engine.ToolSpec{Action: tt.action, MaxConcurrency: tt.max, Timeout: enginetest.Patience})
			var wg sync.WaitGroup
			for range 10 {
				wg.Go(func() {
					if res := tool.Call(context.Background(), nil); res.IsError {
						t.Errorf("call failed: %s", res.Text())
					}
				})
			}
			// Let the calls pile up, then release them one by one.
			deadline := time.After(enginetest.Patience)
			for range 10 {
				for g.running.Load() == 0 {
					time.Sleep(time.Millisecond)
				}
				select {
				case g.release <- struct{}{}:
				case <-deadline:
					t.Fatal("the calls did not run")
				}
			}
			wg.Wait()
			if peak := g.peak.Load(); peak != tt.want {
				t.Errorf("peak concurrency = %d, want %d", peak, tt.want)
			}
		})
	}
}

func TestBusyCallGivesUpAtItsTimeout(t *testing.T) {
	// The first call holds the only slot past its own timeout.
	g := &gate{release: make(chan struct{}), stubborn: true}
	tool := newTool(t, engine.ToolSpec{Action: g, MaxConcurrency: 1, Timeout: 200 * time.Millisecond})
	first := make(chan *engine.Result)
	go func() { first <- tool.Call(context.Background(), nil) }()
	for g.running.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	res := tool.Call(context.Background(), nil)
	if !res.IsError || !strings.Contains(res.Text(), "the tool is busy: 1 calls of it are already running (max_concurrency)") {
		t.Errorf("second call: %q", res.Text())
	}
	g.release <- struct{}{}
	if res := <-first; res.IsError {
		t.Errorf("first call: %q", res.Text())
	}
}

// TestTimeoutMessageNamesTheTimeTheCallHad checks that a call cut short by
// its caller's deadline, before the tool's own timeout, says how long it
// really had.
func TestTimeoutMessageNamesTheTimeTheCallHad(t *testing.T) {
	tests := []struct {
		name     string
		timeout  time.Duration // the tool's
		deadline time.Duration // the caller's; 0: none
		want     time.Duration // the most the message may name
	}{
		{"the tool's timeout", 200 * time.Millisecond, 0, 200 * time.Millisecond},
		{"the caller's shorter deadline", 30 * time.Second, 200 * time.Millisecond, 200 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := newTool(t, engine.ToolSpec{Action: &gate{release: make(chan struct{})}, Timeout: tt.timeout})
			ctx := context.Background()
			if tt.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.deadline)
				defer cancel()
			}
			res := tool.Call(ctx, nil)
			_, rest, ok := strings.Cut(res.Text(), "the call timed out after ")
			if !res.IsError || !ok {
				t.Fatalf("result %q, want a timeout", res.Text())
			}
			named, err := time.ParseDuration(strings.TrimSuffix(strings.Fields(rest)[0], ":"))
			if err != nil || named <= 0 || named > tt.want {
				t.Errorf("result %q names %v, want the time the call had, at most %v", res.Text(), named, tt.want)
			}
		})
	}
}

// hinted is an action that knows it only reads.
type hinted struct{}

func (hinted) Run(context.Context, map[string]any) (*engine.Response, error) {
	return &engine.Response{}, nil
}

func (hinted) Hints() engine.Annotations {
	yes, no := true, false
	return engine.Annotations{ReadOnlyHint: &yes, DestructiveHint: &no}
}

func TestHintsFillUnsetAnnotations(t *testing.T) {
	yes := true
	tool := newTool(t, engine.ToolSpec{Action: hinted{}, Annotations: &engine.Annotations{OpenWorldHint: &yes}})
	a := tool.Annotations()
	if a == nil || a.ReadOnlyHint == nil || !*a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint || a.OpenWorldHint == nil || !*a.OpenWorldHint {
		t.Errorf("annotations = %+v", a)
	}
	no := false
	tool = newTool(t, engine.ToolSpec{Action: hinted{}, Annotations: &engine.Annotations{ReadOnlyHint: &no}})
	if a := tool.Annotations(); *a.ReadOnlyHint {
		t.Errorf("the configuration's read_only_hint = false was overridden")
	}
}

// textAction answers with a text it writes only when asked, and an image.
type textAction struct{ asked atomic.Int32 }

func (a *textAction) Run(context.Context, map[string]any) (*engine.Response, error) {
	return &engine.Response{
		Vars:    map[string]any{"n": 3},
		Content: []engine.Content{{Type: engine.ImageContent, Data: []byte("png"), MIMEType: "image/png"}},
		Text:    func() string { a.asked.Add(1); return "the action's text" },
	}, nil
}

// TestResponseTextIsWrittenOnlyWhenShown checks that the engine asks an
// action for its text only when the result shows the action's content,
// and puts it before the action's other content.
func TestResponseTextIsWrittenOnlyWhenShown(t *testing.T) {
	a := &textAction{}
	res := newTool(t, engine.ToolSpec{Action: a}).Call(context.Background(), nil)
	if len(res.Content) != 2 || res.Content[0].Text != "the action's text" || res.Content[1].Type != engine.ImageContent {
		t.Fatalf("content = %+v, want the text, then the image", res.Content)
	}
	a.asked.Store(0)
	withOutputs := newTool(t, engine.ToolSpec{Action: a, Outputs: []engine.Output{{
		Output: schema.Output{Name: "n", Type: &schema.Type{Kind: schema.Integer}},
		Value:  mapping.Const(3),
	}}})
	res = withOutputs.Call(context.Background(), nil)
	if res.IsError || a.asked.Load() != 0 {
		t.Errorf("with outputs, the action's text was written %d times (result %+v)", a.asked.Load(), res)
	}
	if len(res.Content) != 2 || res.Content[0].Text != `{"n":3}` || res.Content[1].Type != engine.ImageContent {
		t.Errorf("content = %+v, want the outputs as JSON, then the image", res.Content)
	}
}

// failing answers with a failure of its own.
type failing struct{ failure string }

func (f failing) Run(context.Context, map[string]any) (*engine.Response, error) {
	return &engine.Response{Vars: map[string]any{"reason": f.failure}, Failure: f.failure}, nil
}

// TestToolErrorsHaveAMessage: a tool error always says something, even
// when error_message or the action's failure is blank, since a client
// shows that text as the whole error.
func TestToolErrorsHaveAMessage(t *testing.T) {
	tests := []struct {
		name     string
		failure  string
		errorIf  mapping.Value
		errorMsg mapping.Value
		want     string
	}{
		{"the action's failure", "HTTP 503", nil, nil, "HTTP 503"},
		{"a blank failure", " \\t", nil, nil, "the call failed, and the action gave no reason"},
		{"error_message", "HTTP 503", nil, mapping.Const("upstream down"), "upstream down"},
		{"error_message not a string", "HTTP 503", nil, mapping.Const(map[string]any{"code": 7}), `{"code":7}`},
		{"a blank error_message, the failure instead", "HTTP 503", nil, mapping.Const("  "), "HTTP 503"},
		{"error_if, no failure, a blank error_message", "", mapping.Const(true), mapping.Const(""), "the call failed: error_if matched"},
		{"error_if, no error_message", "", mapping.Const(true), nil, "the call failed: error_if matched"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			failure := strings.ReplaceAll(tt.failure, `\t`, "\t")
			res := newTool(t, engine.ToolSpec{Action: failing{failure}, ErrorIf: tt.errorIf, ErrorMsg: tt.errorMsg}).Call(context.Background(), nil)
			if !res.IsError || res.Text() != tt.want {
				t.Errorf("isError %v, text %q; want a tool error %q", res.IsError, res.Text(), tt.want)
			}
		})
	}
}

func TestResultLeavesConstantsAlone(t *testing.T) {
	// An output whose value is a constant of the configuration hands
	// every call the same map: cleaning and redacting a result must copy
	// what they change, never write into it, which would change later
	// results and race between concurrent calls.
	constant := map[string]any{"title": "\x1b]0;pwned\x07Paris", "key": []any{"supersecretvalue"}, "n": 1}
	redactor := &text.Redactor{}
	redactor.Add("supersecretvalue")
	tool, err := engine.NewTool(engine.ToolSpec{
		Name: "t", Description: "d",
		Outputs: []engine.Output{{Output: schema.Output{Name: "o", Type: &schema.Type{Kind: schema.Any}}, Value: mapping.Const(constant)}},
	}, engine.DefaultSettings(), redactor)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				res := tool.Call(context.Background(), nil)
				o := res.Structured["o"].(map[string]any)
				if o["title"] != "Paris" || o["key"].([]any)[0] != text.Mask {
					t.Errorf("structured content = %q, want the title cleaned and the key redacted", o)
					return
				}
			}
		})
	}
	wg.Wait()
	if constant["title"] != "\x1b]0;pwned\x07Paris" || constant["key"].([]any)[0] != "supersecretvalue" {
		t.Errorf("the constant changed: %q", constant)
	}
}

// TestSensitiveArgumentNeverShown checks that a validation message about a
// sensitive argument shows nothing of the value sent, whatever its type,
// not even a short number the redactor would not catch.
func TestSensitiveArgumentNeverShown(t *testing.T) {
	min := 1000.0
	spec := engine.ToolSpec{Args: []schema.Arg{
		{Name: "token", Type: &schema.Type{Kind: schema.String}, Sensitive: true},
		{Name: "pin", Type: &schema.Type{Kind: schema.Integer}, Sensitive: true, Minimum: &min},
	}, Timeout: enginetest.Patience}
	tool := newTool(t, spec)
	tests := map[string]struct{ args, shown, wanted string }{
		"number for a string":  {`{"token": 123456789, "pin": 5000}`, "123456789", "must be a string, but got a number"},
		"short number":         {`{"token": 123, "pin": 5000}`, "123", "must be a string, but got a number"},
		"object for a string":  {`{"token": {"k": "inner-secret"}, "pin": 5000}`, "inner-secret", "must be a string, but got an object"},
		"bool for a string":    {`{"token": true, "pin": 5000}`, "true", "must be a string, but got a bool"},
		"below the minimum":    {`{"token": "abcdefgh", "pin": 777}`, "777", "must be at least 1000"},
		"fraction for integer": {`{"token": "abcdefgh", "pin": 1234.5}`, "1234.5", "must be an integer"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			res := tool.Call(context.Background(), []byte(tt.args))
			text := res.Text()
			if !res.IsError {
				t.Fatalf("the call succeeded: %s", text)
			}
			if strings.Contains(text, tt.shown) {
				t.Errorf("the error shows the sensitive value %q: %s", tt.shown, text)
			}
			if !strings.Contains(text, tt.wanted) {
				t.Errorf("the error does not say %q: %s", tt.wanted, text)
			}
		})
	}
}

// echoArg is a mapping that yields args.token, built without HCL.
type echoArg struct{}

func (echoArg) Eval(env map[string]any) (any, error) {
	return "got " + env["args"].(map[string]any)["token"].(string), nil
}

// TestSecretHoldingAnother checks that a sensitive argument whose value
// holds a secret of the configuration is hidden whole, not cut around the
// inner one.
func TestSecretHoldingAnother(t *testing.T) {
	redactor := &text.Redactor{}
	redactor.Add("inner-secret")
	spec := engine.ToolSpec{Name: "t", Description: "d", Text: echoArg{}, Timeout: enginetest.Patience,
		Args: []schema.Arg{{Name: "token", Type: &schema.Type{Kind: schema.String}, Sensitive: true}}}
	tool, err := engine.NewTool(spec, engine.DefaultSettings(), redactor)
	if err != nil {
		t.Fatal(err)
	}
	res := tool.Call(context.Background(), []byte(`{"token": "outer-inner-secret-outer"}`))
	if got := res.Text(); got != "got "+text.Mask {
		t.Errorf("text = %q, want %q", got, "got "+text.Mask)
	}
}
