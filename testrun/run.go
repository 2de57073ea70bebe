package testrun

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/calltrace"
	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/schema"
	"github.com/mcpdecl/mcpdecl/internal/words"
)

// Runner runs tests. Its fields are set before Run, and not changed after.
type Runner struct {
	// Registry holds the adapters the configurations use.
	Registry *engine.Registry
	// Vars are variable values given on the command line (--var
	// name=value); the test files' variables win over them.
	Vars map[string]string
	// LookupEnv reads the environment for env() and MCPDECL_VAR_<name>;
	// nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Update writes snapshots instead of comparing with them.
	Update bool
	// Parallel is how many tests run at once; 0 means one per CPU.
	Parallel int
	// Match selects the tests to run by "FILE/TEST" name, such as
	// "weather.test.hcl/paris"; nil runs them all.
	Match *regexp.Regexp
	// Logger receives what the configurations log; nil discards it.
	Logger *slog.Logger
}

// grace is how long past its tool's timeout a call may take before its
// test is reported as hung.
const grace = 5 * time.Second

// Result is the outcome of one test.
type Result struct {
	Test *Test
	// Failures say what went wrong, each with its place; none: passed.
	Failures []Failure
	// Diags, with Files, are the errors that kept the configuration from
	// loading with the test's variables and mocks.
	Diags hcl.Diagnostics
	Files load.Files
	// Redactor hides the configuration's secrets from what is printed of
	// the result.
	Redactor *engine.Redactor
	// Trace is every stage of the call, to show with the failures.
	Trace []calltrace.Stage
	// Took is the time of the test, the configuration's load included.
	Took time.Duration
	// Updated is set when --update wrote the test's snapshot.
	Updated bool
}

// Passed reports whether the test passed.
func (r *Result) Passed() bool { return len(r.Failures) == 0 && !r.Diags.HasErrors() }

// Failure is one thing a test found wrong.
type Failure struct {
	// Message says what is wrong, in a sentence.
	Message string
	// Range is where the test says what it expected, when it does.
	Range *hcl.Range
	// Diff is a unified diff of a snapshot and what the call returned.
	Diff string
}

// Selected lists the tests of files that r.Match selects, in order.
func (r *Runner) Selected(files []*File) []*Test {
	var tests []*Test
	for _, f := range files {
		for _, t := range f.Tests {
			if r.Match == nil || r.Match.MatchString(t.ID()) {
				tests = append(tests, t)
			}
		}
	}
	return tests
}

// ID names a test in reports and for --run: its file's name and its own.
func (t *Test) ID() string { return filepath.ToSlash(t.File.Name) + "/" + t.Name }

// Run runs tests, as many at once as r.Parallel says, and calls report
// with each result in the order of tests, as soon as it and those before
// it are done.
func (r *Runner) Run(ctx context.Context, tests []*Test, report func(*Result)) error {
	tmp, err := os.MkdirTemp("", "mcpdecl-test-")
	if err != nil {
		return fmt.Errorf("cannot make a directory for the mock databases: %w", err)
	}
	defer os.RemoveAll(tmp)
	n := r.Parallel
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	results := make([]chan *Result, len(tests))
	for i := range results {
		results[i] = make(chan *Result, 1)
	}
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	go func() {
		for i, t := range tests {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				results[i] <- r.run(ctx, t, filepath.Join(tmp, fmt.Sprintf("t%d", i)))
			})
		}
	}()
	for _, c := range results {
		report(<-c)
	}
	wg.Wait()
	return nil
}

// run runs one test; dbDir is where its mock databases go.
func (r *Runner) run(ctx context.Context, t *Test, dbDir string) *Result {
	res := &Result{Test: t, Redactor: &engine.Redactor{}}
	began := time.Now()
	defer func() { res.Took = time.Since(began) }()

	servers, overrides, err := r.mocks(t, dbDir)
	defer func() {
		for _, s := range servers {
			s.Close()
		}
	}()
	if err != nil {
		res.fail(nil, "%s.", err)
		return res
	}
	values := maps.Clone(t.File.Vars)
	if values == nil {
		values = map[string]load.Value{}
	}
	maps.Copy(values, t.Vars)
	redactor := res.Redactor
	cfg, files, diags := load.Load(load.Options{
		Registry:  r.Registry,
		Vars:      r.Vars,
		LookupEnv: r.lookupEnv(t),
		Logger:    r.Logger,
		Redactor:  redactor,
		Values:    values,
		Overrides: overrides,
	}, t.File.Config...)
	if diags.HasErrors() {
		res.Diags, res.Files = diags, files
		return res
	}
	defer cfg.Close()
	rec := &calltrace.Recorder{}
	callCtx, cancel := context.WithCancel(calltrace.With(ctx, rec))
	defer cancel()
	run, limit, err := subject(cfg, t)
	if err != nil {
		res.fail(&t.TargetRange, "%s.", words.UpperFirst(err.Error()))
		return res
	}
	done := make(chan *outcome, 1)
	go func() { done <- run(callCtx) }()
	var out *outcome
	timer := time.NewTimer(limit + grace)
	defer timer.Stop()
	select {
	case out = <-done:
	case <-timer.C:
		cancel()
		res.Trace = rec.Stages()
		res.fail(&t.Range, "The %s did not return within its timeout (%s) and %s more; it hangs.", t.verb(), limit, grace)
		return res
	}
	res.Trace = rec.Stages()

	var requests []any
	for _, s := range servers {
		reqs, failures := s.report()
		for _, q := range reqs {
			requests = append(requests, q)
		}
		for _, f := range failures {
			res.fail(&t.Range, "%s.", f)
		}
	}
	if out.err != nil {
		res.fail(&t.Range, "The result cannot be read: %s.", out.err)
		return res
	}
	env := out.env(t.Args, requests)
	// The values of the types the assertions were compiled against: an
	// integer as an int, not as the float64 JSON decodes it to.
	if t.argsType != nil {
		env["args"] = schema.Coerce(env["args"], t.argsType)
	}
	if t.structuredType != nil {
		env["structured"] = schema.Coerce(env["structured"], t.structuredType)
	}
	hide := hider(res.Redactor, env["args"], out.sensitive)
	if out.isError != t.ExpectError {
		if out.isError {
			res.fail(&t.Range, "The %s failed: %s", t.verb(), out.text)
		} else {
			res.fail(&t.Range, "The %s succeeded, but the test expects an error (expect_error = true).", t.verb())
		}
	}
	for _, a := range t.Asserts {
		r.check(res, a, env, hide)
	}
	if t.Snapshot != "" {
		r.snapshot(res, t, out)
	}
	return res
}

// lookupEnv reads the test's env, then its file's, then the environment.
func (r *Runner) lookupEnv(t *Test) func(string) (string, bool) {
	next := r.LookupEnv
	if next == nil {
		next = os.LookupEnv
	}
	if len(t.Env) == 0 && len(t.File.Env) == 0 {
		return next
	}
	return func(name string) (string, bool) {
		if v, ok := t.Env[name]; ok {
			return v, true
		}
		if v, ok := t.File.Env[name]; ok {
			return v, true
		}
		return next(name)
	}
}

// fail records a failure at rng (nil: the test as a whole).
func (res *Result) fail(rng *hcl.Range, format string, args ...any) {
	res.Failures = append(res.Failures, Failure{Message: res.Redactor.Redact(fmt.Sprintf(format, args...)), Range: rng})
}

// check evaluates one assertion; hide hides the secrets of the call from
// what it read.
func (r *Runner) check(res *Result, a *Assert, env map[string]any, hide *hiding) {
	v, err := a.Condition.Eval(env)
	if err != nil {
		res.fail(&a.Range, "The condition %s failed to run: %s.%s", a.Source, reason(err), hide.reads(a, env))
		return
	}
	if ok, isBool := v.(bool); !isBool {
		res.fail(&a.Range, "The condition %s yielded %s, not true or false.", a.Source, jsonenc.Text(v))
		return
	} else if ok {
		return
	}
	msg := "The condition " + a.Source + " is false."
	if a.Message != nil {
		m, err := a.Message.Eval(env)
		switch s, isText := m.(string); {
		case err != nil:
			msg += " (Its error_message failed to run: " + reason(err) + ".)"
		case isText:
			msg = s + " (" + a.Source + ")"
		default:
			msg = jsonenc.Text(m) + " (" + a.Source + ")"
		}
	}
	res.fail(&a.Range, "%s%s", msg, hide.reads(a, env))
}

// hiding is what must not be shown of a call: the configuration's secrets,
// and its sensitive arguments, by name and by value.
type hiding struct {
	sensitive []string
	redact    func(string) string
}

// hider is the hiding of a call with args, whose sensitive arguments are
// named sensitive.
func hider(config *engine.Redactor, args any, sensitive []string) *hiding {
	values := &engine.Redactor{}
	var collect func(v any)
	collect = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, e := range v {
				collect(e)
			}
		case []any:
			for _, e := range v {
				collect(e)
			}
		case string:
			values.Add(v)
		case nil:
		default:
			values.Add(jsonenc.Text(v))
		}
	}
	m, _ := args.(map[string]any)
	for _, name := range sensitive {
		collect(m[name])
	}
	return &hiding{sensitive: sensitive, redact: func(s string) string { return values.Redact(config.Redact(s)) }}
}

// reads says what an assertion read, a line each, such as
// "structured.words = 4", to follow the failure's message.
func (h *hiding) reads(a *Assert, env map[string]any) string {
	var b strings.Builder
	for _, p := range a.Reads {
		v, ok := p.Lookup(env)
		if !ok {
			fmt.Fprintf(&b, "\n  %s is absent", p)
			continue
		}
		if p.Root() == "args" && len(h.sensitive) > 0 {
			if slices.Contains(h.sensitive, p.Field()) {
				fmt.Fprintf(&b, "\n  %s = %s", p, engine.Mask)
				continue
			}
			if m, whole := v.(map[string]any); whole && p.Field() == "" {
				m = maps.Clone(m)
				for _, name := range h.sensitive {
					if _, given := m[name]; given {
						m[name] = engine.Mask
					}
				}
				v = m
			}
		}
		text := engine.Excerpt(engine.WithRedaction(context.Background(), h.redact), jsonenc.Text(v))
		fmt.Fprintf(&b, "\n  %s = %s", p, text)
	}
	return b.String()
}

// mocks starts the test's mock servers and says how each mocked block is
// overridden.
func (r *Runner) mocks(t *Test, dbDir string) ([]*mockServer, []load.Override, error) {
	var servers []*mockServer
	var overrides []load.Override
	apis := map[string]bool{}
	dbs := map[string]bool{}
	for _, m := range append(t.Mocks[:len(t.Mocks):len(t.Mocks)], t.File.Mocks...) {
		switch m.Kind {
		case mockHTTP:
			if apis[m.Name] {
				continue
			}
			apis[m.Name] = true
			s, err := startMock(m.Name, ofAPI(t.Mocks, m.Name), ofAPI(t.File.Mocks, m.Name))
			if err != nil {
				return servers, nil, err
			}
			servers = append(servers, s)
			overrides = append(overrides, load.Override{
				Kind: mockHTTP, Name: m.Name, Range: m.Range,
				Rewrite: map[string]func(cty.Value) (cty.Value, error){"base_url": s.rebase},
			})
		case mockDatabase:
			if dbs[m.Name] {
				continue // the test's own wins over the file's
			}
			dbs[m.Name] = true
			if err := os.MkdirAll(dbDir, 0o700); err != nil {
				return servers, nil, fmt.Errorf("cannot make a directory for the mock databases: %w", err)
			}
			overrides = append(overrides, databaseOverride(m, dbDir))
		}
	}
	return servers, overrides, nil
}

// ofAPI lists the mocks of the http_api named name.
func ofAPI(mocks []*Mock, name string) []*Mock {
	var out []*Mock
	for _, m := range mocks {
		if m.Kind == mockHTTP && m.Name == name {
			out = append(out, m)
		}
	}
	return out
}

// databaseOverride points a database at a fresh SQLite file in dir, filled
// by the mock's seed or else by the database's own init. A SQLite dsn's
// settings (such as _pragma=foreign_keys(1)) are kept.
func databaseOverride(m *Mock, dir string) load.Override {
	file := filepath.Join(dir, url.PathEscape(m.Name)+".db")
	o := load.Override{
		Kind: mockDatabase, Name: m.Name, Range: m.Range,
		Set: map[string]cty.Value{"driver": cty.StringVal("sqlite")},
		Rewrite: map[string]func(cty.Value) (cty.Value, error){"dsn": func(v cty.Value) (cty.Value, error) {
			dsn := "file:" + filepath.ToSlash(file)
			if v.Type() == cty.String && !v.IsNull() {
				if params := sqliteParams(v.AsString()); params != "" {
					dsn += "?" + params
				}
			}
			return cty.StringVal(dsn), nil
		}},
	}
	if m.HasSeed {
		o.Set["init"] = cty.StringVal(m.Seed)
	}
	return o
}

// sqliteParams keeps of a dsn the settings of a SQLite connection, those
// that do not choose the file: none for a Postgres or MySQL dsn.
func sqliteParams(dsn string) string {
	if strings.Contains(dsn, "://") || strings.Contains(dsn, "@") || strings.Contains(dsn, "=") && !strings.Contains(dsn, "?") {
		return ""
	}
	_, query, ok := strings.Cut(dsn, "?")
	if !ok {
		return ""
	}
	var keep []string
	for _, p := range strings.Split(query, "&") {
		name, _, _ := strings.Cut(p, "=")
		switch name {
		case "mode", "cache", "immutable", "vfs", "":
			continue
		}
		keep = append(keep, p)
	}
	return strings.Join(keep, "&")
}

// Unused lists the file-level mocks of files that answered no request in
// any test, once tests have run.
func Unused(files []*File) []*Mock {
	var out []*Mock
	for _, f := range files {
		for _, m := range f.Mocks {
			if m.Kind == mockHTTP && m.used.Load() == 0 {
				out = append(out, m)
			}
		}
	}
	return out
}

// reason is what went wrong in a program, without its place, which the
// failure gives.
func reason(err error) string {
	var me *mapping.Error
	if errors.As(err, &me) {
		return me.Reason()
	}
	return err.Error()
}
