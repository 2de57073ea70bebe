package testrun

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/expr-lang/expr/types"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/schema"
	"github.com/mcpdecl/mcpdecl/engine/spec"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// File is one test file: the configuration it tests, and its variables,
// mocks and tests.
type File struct {
	// Name is the file's path, as given.
	Name string
	// Config are the paths of the configuration the tests run against:
	// the config attribute's, relative to the file, else the file's own
	// directory.
	Config []string
	// Vars set variables for every test of the file.
	Vars map[string]load.Value
	// Env are what env() and MCPDECL_VAR_<name> read in the
	// configuration, before the environment, for every test of the file.
	Env map[string]string
	// Mocks stand in for upstreams in every test of the file.
	Mocks []*Mock
	// Tests are the file's tests, in order.
	Tests []*Test
}

// Test is one test block: one call of one tool, and what its result must
// be.
type Test struct {
	File  *File
	Name  string
	Range hcl.Range // the block's header

	// Kind is what the test exercises: "tool" (a call), "resource" (a
	// read, of a resource or a template's) or "prompt" (a get); Target
	// names it: the tool, the URI, the prompt.
	Kind        string
	Target      string
	TargetRange hcl.Range
	// Args are the call's arguments, as JSON.
	Args json.RawMessage
	// Answer is how the person answers the confirmation of a tool with a
	// confirm block: nil when the test's client cannot be asked.
	Answer *engine.Answer
	// ModelAnswer is what the client's model answers a tool with a
	// sample action: nil when the test's client cannot be asked.
	ModelAnswer *string
	// Roots are the client's roots: nil when the test's client cannot be
	// asked for them.
	Roots []engine.Root
	// ExpectError is whether the call must be a tool error.
	ExpectError bool
	// Vars, Env and Mocks add to (and win over) the file's.
	Vars    map[string]load.Value
	Env     map[string]string
	Mocks   []*Mock
	Asserts []*Assert
	// Snapshot is the file (joined to the test file's directory) the
	// structured content must equal; "" for none. It is under that
	// directory: snapshotRel is its path there.
	Snapshot      string
	SnapshotRange hcl.Range
	snapshotRel   string

	// argsType and structuredType are the declared types of the tool's
	// arguments and outputs, which the assertions were compiled against;
	// nil when not known.
	argsType, structuredType *schema.Type
}

// Assert is one assert block: a condition on the result.
type Assert struct {
	Condition mapping.Value
	Source    string        // the condition's program, as written
	Message   mapping.Value // nil: none given
	Range     hcl.Range     // the condition's
	// Reads are what the condition reads, shown when it fails.
	Reads []mapping.Path
}

// The kinds of blocks a mock may stand in for.
const (
	mockHTTP     = "http_api"
	mockDatabase = "database"
)

// Mock stands in for an http_api (one exchange: the request it answers
// and its response) or for a database (a fresh SQLite database).
type Mock struct {
	Kind, Name string
	Range      hcl.Range

	// An http_api's.
	Request  Match
	Response Response

	// A database's: the SQL that fills it; HasSeed false keeps the
	// database's own init.
	Seed    string
	HasSeed bool

	used atomic.Int64 // requests answered, in every test
}

// Match is what a request must be for a mock to answer it; the zero value
// matches any request.
type Match struct {
	Method  string            // "": any
	Path    string            // "": any; else exact, relative to base_url's path
	Query   map[string]string // each must be sent with this value
	Headers map[string]string // each must be sent with this value (names in any case)
	Body    any               // nil: any; a string: the exact body; else the JSON it must decode to
}

// Response is what a mock answers.
type Response struct {
	Status  int
	Headers http.Header
	Body    []byte
	Delay   time.Duration
}

// The env of assertions: what a call's result offers.
var assertEnv = mapping.Env{
	"is_error":   types.Bool,
	"structured": types.Any,
	"text":       types.String,
	"content":    mapping.Array(types.Any),
	"requests":   mapping.Array(types.Any),
	"messages":   mapping.Array(types.Any),
	"args":       types.Any,
}

// The blocks of a test file, each declared once; the reference
// (docs/language.md) lists them after the configuration's.

// fileSpec is the body of a test file.
var fileSpec = &spec.Block{
	Name:    "test file",
	Summary: "A file whose name ends in .test.hcl: the configuration its tests run against, and its variables, env, mocks and tests.",
	Attrs: []*spec.Attr{
		spec.Any("config", "is the configuration the file's tests run against: a path or a list of paths (files or directories), relative to the file").
			DefaultIs("the .hcl files of the file's own directory"),
	},
	Blocks: []spec.Nested{{Block: variablesSpec, Max: 1}, {Block: envSpec, Max: 1}, {Block: mockSpec}, {Block: testSpec}},
}

var variablesSpec = &spec.Block{
	Name:    "variables",
	Summary: "In a test file or a test: values of the configuration's variables, one attribute each; they win over --var, the environment and defaults.",
	Doc:     "A test's variables add to the file's and win over them.",
	Example: `variables {
  api_key = "test-key"
}`,
	Open: true,
}

var envSpec = &spec.Block{
	Name:    "env",
	Summary: "In a test file or a test: what env(\"NAME\") (and MCPDECL_VAR_name) read in the configuration, before the process's environment, one attribute each.",
	Example: `env {
  WEATHER_TOKEN = "test-token"
}`,
	Open: true,
}

var mockSpec = &spec.Block{
	Name:   "mock",
	Labels: []string{"kind", "name"},
	Summary: "In a test file or a test: stands in for an http_api (one exchange, a request and its response) or a database " +
		"(a fresh SQLite database for each test).",
	Doc: "mock \"http_api\" \"name\" answers the requests to that http_api that match its request block with its response block; the first mock whose request matches answers. " +
		"mock \"database\" \"name\" makes that database a fresh SQLite database for each test, filled by seed or, without it, by the database's own init; " +
		"a SQLite dsn's settings, such as _pragma=foreign_keys(1), are kept. A test's own mocks add to the file's, and are tried first.",
	Example: `mock "http_api" "weather" {
  request {
    method = "GET"
    path   = "/weather/Paris"
  }
  response {
    status = 200
    body   = { main = { temp = 21.5 } }
  }
}`,
	Attrs: []*spec.Attr{
		spec.String("seed", "is, for a database mock, the SQL that fills it, usually file(\"seed.sql\")").DefaultIs("the database's own init"),
	},
	Blocks: []spec.Nested{{Block: requestSpec, Max: 1}, {Block: responseSpec, Max: 1}},
}

var requestSpec = &spec.Block{
	Name:    "request",
	In:      "mock",
	Summary: "What a request must be for an http_api mock to answer it; each attribute is optional.",
	Example: `request {
  method = "GET"
  path   = "/weather/Paris"
}`,
	Attrs: []*spec.Attr{
		spec.String("method", "is the request's method, such as \"GET\""),
		spec.String("path", "is the request's path, relative to the http_api's base_url, such as \"/users/42\""),
		spec.Map("query", spec.KindString, "are query parameters the request must carry, with these values"),
		spec.Map("headers", spec.KindString, "are headers the request must carry, with these values (names in any case)"),
		spec.Any("body", "is a string the body must be, or a value its JSON must equal"),
	},
}

var responseSpec = &spec.Block{
	Name:    "response",
	In:      "mock",
	Summary: "What an http_api mock answers.",
	Example: `response {
  status = 200
  body   = { main = { temp = 21.5 } }
}`,
	Attrs: []*spec.Attr{
		spec.Int("status", "is the response's HTTP status").Range(100, 599).WithDefault(200),
		spec.Map("headers", spec.KindString, "are the response's headers"),
		spec.Any("body", "is the response's body: a string sent as is, or any other value sent as JSON"),
		spec.String("body_file", "is, instead of body, a file sent as is with its detected type, relative to the test file"),
		spec.Duration("delay", "is how long the mock waits before it answers"),
	},
}

var testSpec = &spec.Block{
	Name:   "test",
	Labels: []string{"name"},
	Summary: "In a test file: one test, a call of a tool (or a read of a resource, or a get of a prompt) and what its result must be. " +
		"Its name is letters, digits, underscores, dashes and dots.",
	Doc: "At the top of a test file, config names the configuration its tests run against: a path or a list of paths (files or directories), relative to the file; " +
		"without it, the .hcl files of the file's own directory. " +
		"A test exercises exactly one of tool, resource and prompt. Each test loads the configuration afresh with its variables and mocks. " +
		"It fails when an assertion is false, when the call fails (unless expect_error), when a mocked http_api is sent a request no mock matches, " +
		"when one of its own mocks answers no request, and when the call does not return within the tool's timeout.",
	Example: `test "paris" {
  tool = "get_weather"
  args = { city = "Paris" }
  assert {
    condition = expr("structured.temperature == 21.5")
  }
}`,
	Attrs: []*spec.Attr{
		spec.String("tool", "is the name of the tool the test calls"),
		spec.String("resource", "is the URI the test reads: a resource's or a template's"),
		spec.String("prompt", "is the name of the prompt the test gets"),
		spec.Any("args", "are the call's arguments, an object; a prompt's are text; path.dir is the test file's directory, absolute, as in \"${path.dir}/testdata/notes.txt\"").DefaultIs("{}"),
		spec.Any("answer", `is how the person answers the tool's (or the prompt's) confirmation or question: "accept", "decline", "cancel", or an object of the form's fields (which accepts)`),
		spec.String("model_answer", `is the text the client's model answers a tool's sample action with, such as "Paris."`),
		spec.List("roots", spec.KindString, `are the client's roots, which a tool with an argument within_roots (or a roots block) asks for: file:// URIs, or paths relative to the test file's directory, such as ["testdata"]`),
		spec.Bool("expect_error", "says the call must be a tool error; otherwise a tool error fails the test, showing its message").WithDefault(false),
		spec.String("snapshot", "is a JSON file, under the test file's directory, that the structured content must equal; mcpdecl test --update writes it"),
	},
	Blocks: []spec.Nested{{Block: variablesSpec, Max: 1}, {Block: envSpec, Max: 1}, {Block: mockSpec}, {Block: assertSpec}},
}

var assertSpec = &spec.Block{
	Name:    "assert",
	In:      "test",
	Summary: "A condition on the result that must be true.",
	Doc: "The condition is compiled when the file is read. It reads is_error, structured, text, content, messages, args and requests; " +
		"in a test of a tool, args and structured are typed by the tool's arg and output blocks.",
	Example: `assert {
  condition     = expr("structured.temperature == 21.5")
  error_message = "the temperature is read from main.temp"
}`,
	Attrs: []*spec.Attr{
		spec.Expr("condition", "is an expr program that must yield true").Mandatory().Unevaluated(),
		spec.Expr("error_message", "is what a false condition says; it may be an expr program").Unevaluated(),
	},
}

// Language is the blocks of a test file, in the order of the reference.
func Language() []*spec.Block {
	return []*spec.Block{testSpec, assertSpec, mockSpec, requestSpec, responseSpec, variablesSpec, envSpec}
}

// testName is what a test may be called: it names it in reports and in
// --run.
var testName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// Parse reads the test files at names. It returns the files without
// errors, the parsed sources (for printing diagnostics) and every
// diagnostic.
func Parse(names []string, lookupEnv func(string) (string, bool)) ([]*File, load.Files, hcl.Diagnostics) {
	return ParseSources(names, nil, lookupEnv)
}

// ParseSources is Parse with sources in place of the files they name, as
// an editor's unsaved buffers; the cap on a file's size holds for them.
func ParseSources(names []string, sources map[string][]byte, lookupEnv func(string) (string, bool)) ([]*File, load.Files, hcl.Diagnostics) {
	return ParseSourcesWith(names, sources, lookupEnv, nil)
}

// ParseSourcesWith is ParseSources that tells programs, when not nil, of
// every expression whose expr programs it compiles (an assertion's
// condition), with the variables they may read and what they compiled to
// (nil when a program does not compile): for an editor.
func ParseSourcesWith(names []string, sources map[string][]byte, lookupEnv func(string) (string, bool), programs func(e hcl.Expression, env mapping.Env, v mapping.Value)) ([]*File, load.Files, hcl.Diagnostics) {
	parser := hclparse.NewParser()
	var files []*File
	var diags hcl.Diagnostics
	outlines := map[string]*load.Outline{} // by configuration paths
	for _, name := range names {
		src, err := sourceOf(name, sources)
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read test file", Detail: fmt.Sprintf("%s.", err)})
			continue
		}
		hf, more := load.ParseConfig(src, name)
		parser.AddFile(name, hf)
		diags = append(diags, more...)
		if more.HasErrors() {
			continue
		}
		// path.dir is the test file's directory, absolute: for arguments
		// that are paths, such as those within_roots.
		abs, _ := filepath.Abs(filepath.Dir(name))
		vars := map[string]cty.Value{"path": cty.ObjectVal(map[string]cty.Value{"dir": cty.StringVal(abs)})}
		d := &decoder{ctx: &hcl.EvalContext{Functions: load.Functions(filepath.Dir(name), lookupEnv), Variables: vars}, dir: filepath.Dir(name), src: hf.Bytes, outlines: outlines, compiled: programs}
		d.dctx = &engine.DecodeContext{EvalContext: d.ctx, Dir: d.dir, Redactor: &text.Redactor{}, Compiled: programs}
		f := d.file(name, hf.Body)
		diags = append(diags, d.diags...)
		if !d.diags.HasErrors() {
			files = append(files, f)
		}
	}
	load.ExplainLabels(diags)
	return files, parser.Files(), diags
}

// sourceOf reads the file name, or takes it from sources.
func sourceOf(name string, sources map[string][]byte) ([]byte, error) {
	src, ok := sources[name]
	if !ok {
		return engine.ReadConfigFile(name)
	}
	if len(src) > engine.MaxConfigFileBytes {
		return nil, fmt.Errorf("cannot read %s: it has %d bytes, more than the %d bytes (10 MiB) a configuration may read from one file", name, len(src), engine.MaxConfigFileBytes)
	}
	return src, nil
}

// decoder holds the state of one test file's decoding.
type decoder struct {
	ctx   *hcl.EvalContext
	dctx  *engine.DecodeContext // ctx, for decoding through specs
	dir   string
	src   []byte // the file's source, for quoting conditions
	diags hcl.Diagnostics

	// outline is what the configuration the file tests (at configs)
	// declares; nil when it cannot be read, and the tests then report why.
	// outlines are those already read, by the paths of their
	// configuration.
	outline  *load.Outline
	configs  []string
	outlines map[string]*load.Outline

	// compiled, when not nil, is told of every expression compiled (see
	// ParseSourcesWith).
	compiled func(e hcl.Expression, env mapping.Env, v mapping.Value)
}

func (d *decoder) error(rng hcl.Range, summary, detail string, args ...any) {
	d.diags = append(d.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(detail, args...), Subject: rng.Ptr()})
}

func (d *decoder) file(name string, body hcl.Body) *File {
	f := &File{Name: name, Config: []string{filepath.Dir(name)}}
	v := d.decode(fileSpec, body)
	if a := v.Attr("config"); v.Has("config") {
		f.Config = d.config(a, v.Value("config"))
	}
	d.readOutline(f.Config)
	for _, b := range v.Blocks("env") {
		f.Env = d.env(b)
	}
	for _, b := range v.Blocks("variables") {
		f.Vars = d.variables(b)
	}
	for _, b := range v.Blocks("mock") {
		if m := d.mock(b); m != nil {
			f.Mocks = append(f.Mocks, m)
		}
	}
	d.checkDatabaseMocks(f.Mocks)
	seen := map[string]*Test{}
	for _, b := range v.Blocks("test") {
		t := d.test(f, b)
		if prev, dup := seen[t.Name]; dup {
			d.error(b.LabelRanges[0], "Duplicate test", "A test named %q is already declared at %s; rename one.", t.Name, prev.Range)
			continue
		}
		seen[t.Name] = t
		f.Tests = append(f.Tests, t)
	}
	if len(f.Tests) == 0 && !d.diags.HasErrors() {
		d.error(hcl.Range{Filename: name, Start: hcl.InitialPos, End: hcl.InitialPos}, "No tests",
			"This test file declares no test block. Add one, such as test \"name\" { tool = \"…\" assert { … } }.")
	}
	return f
}

// decode reads body through sp, and keeps its errors.
func (d *decoder) decode(sp *spec.Block, body hcl.Body) *spec.Values {
	v, diags := sp.Decode(body, d.dctx)
	d.diags = append(d.diags, diags...)
	return v
}

// config reads the config attribute, v: a path or a list of paths,
// relative to the test file.
func (d *decoder) config(a *hcl.Attribute, v cty.Value) []string {
	v, _ = v.UnmarkDeep()
	if v.Type() == cty.String {
		v = cty.TupleVal([]cty.Value{v})
	}
	lv, err := convert.Convert(v, cty.List(cty.String))
	if err != nil || lv.IsNull() || lv.LengthInt() == 0 {
		d.error(a.Expr.Range(), "Invalid config", "config names the configuration the tests run against: a path, or a list of paths, of .hcl files or directories, relative to this file.")
		return nil
	}
	var paths []string
	for _, p := range lv.AsValueSlice() {
		path := p.AsString()
		if !filepath.IsAbs(path) {
			path = filepath.Join(d.dir, path)
		}
		if _, err := os.Stat(path); err != nil {
			d.error(a.Expr.Range(), "Configuration not found", "config names %s, which cannot be read: %s. Paths are relative to the test file.", p.AsString(), err)
			continue
		}
		paths = append(paths, path)
	}
	return paths
}

// variables reads a variables block.
func (d *decoder) variables(b *hcl.Block) map[string]load.Value {
	attrs, diags := b.Body.JustAttributes()
	d.diags = append(d.diags, diags...)
	vars := map[string]load.Value{}
	for name, a := range attrs {
		v, diags := d.dctx.Eval(a.Expr)
		if d.diags = append(d.diags, diags...); !diags.HasErrors() {
			vars[name] = load.Value{Value: v, Range: a.Expr.Range()}
		}
	}
	return vars
}

// env reads an env block: names and the text env() reads for them.
func (d *decoder) env(b *hcl.Block) map[string]string {
	attrs, diags := b.Body.JustAttributes()
	d.diags = append(d.diags, diags...)
	env := map[string]string{}
	for name, a := range attrs {
		s, diags := d.dctx.String(a.Expr)
		if d.diags = append(d.diags, diags...); !diags.HasErrors() {
			env[name] = s
		}
	}
	return env
}

func (d *decoder) test(f *File, b *hcl.Block) *Test {
	t := &Test{File: f, Name: b.Labels[0], Range: b.DefRange, Args: json.RawMessage("{}")}
	if !testName.MatchString(t.Name) {
		d.error(b.LabelRanges[0], "Invalid test name", "%q is not a valid test name: use letters, digits, underscores, dashes and dots.", t.Name)
	}
	n := len(d.diags)
	v := d.decode(testSpec, b.Body)
	bodyErrs := d.diags[n:].HasErrors()
	var kinds []*hcl.Attribute
	for _, kind := range []string{"tool", "resource", "prompt"} {
		if a := v.Attr(kind); a != nil {
			kinds = append(kinds, a)
			if v.Has(kind) {
				t.Kind, t.Target, t.TargetRange = kind, v.String(kind), a.Expr.Range()
			}
		}
	}
	switch {
	case len(kinds) == 0 && !bodyErrs:
		d.error(b.DefRange, "Nothing to test", "A test names what it exercises: tool = \"NAME\" (a call), resource = \"URI\" (a read) or prompt = \"NAME\".")
	case len(kinds) > 1:
		d.error(kinds[1].NameRange, "More than one subject", "A test exercises one thing: a tool, a resource or a prompt; %s and %s are both given. Split it into two tests.", kinds[0].Name, kinds[1].Name)
	}
	if v.Has("args") {
		t.Args = d.args(v.Attr("args"), v.Value("args"))
	}
	if v.Has("answer") {
		t.Answer = d.answer(v.Attr("answer"), v.Value("answer"))
	}
	if v.Has("model_answer") {
		s := v.String("model_answer")
		t.ModelAnswer = &s
	}
	if v.Has("roots") {
		t.Roots = []engine.Root{}
		for _, r := range v.Strings("roots") {
			if !strings.HasPrefix(r, "file://") {
				if !filepath.IsAbs(r) {
					r = filepath.Join(d.dir, r)
				}
				if abs, err := filepath.Abs(r); err == nil {
					r = abs
				}
				r = (&url.URL{Scheme: "file", Path: filepath.ToSlash(r)}).String()
				if !strings.HasPrefix(r, "file:///") {
					r = "file:///" + strings.TrimPrefix(r, "file://") // C:/x on Windows
				}
			}
			t.Roots = append(t.Roots, engine.Root{URI: r})
		}
	}
	env := d.assertEnv(t)
	t.ExpectError = v.Bool("expect_error")
	if a := v.Attr("snapshot"); v.Has("snapshot") {
		t.Snapshot, t.SnapshotRange = v.String("snapshot"), a.Expr.Range()
		if !filepath.IsAbs(t.Snapshot) {
			t.Snapshot = filepath.Join(d.dir, t.Snapshot)
		}
		t.snapshotRel = d.snapshotPath(a.Expr.Range(), v.String("snapshot"), t.Snapshot, t.Name)
	}
	for _, sb := range v.Blocks("env") {
		t.Env = d.env(sb)
	}
	for _, sb := range v.Blocks("variables") {
		t.Vars = d.variables(sb)
	}
	for _, sb := range v.Blocks("mock") {
		if m := d.mock(sb); m != nil {
			t.Mocks = append(t.Mocks, m)
		}
	}
	for _, sb := range v.Blocks("assert") {
		if a := d.assert(sb, env); a != nil {
			t.Asserts = append(t.Asserts, a)
		}
	}
	d.checkDatabaseMocks(t.Mocks)
	return t
}

// args reads a test's arguments, v: an object, written as JSON.
func (d *decoder) args(a *hcl.Attribute, v cty.Value) json.RawMessage {
	v, _ = v.UnmarkDeep()
	if !v.Type().IsObjectType() && !v.Type().IsMapType() {
		d.error(a.Expr.Range(), "Invalid args", "args are the call's arguments: an object such as { city = \"Paris\" }.")
		return nil
	}
	g, err := mapping.FromCty(v)
	if err != nil {
		d.error(a.Expr.Range(), "Invalid args", "%s.", text.UpperFirst(err.Error()))
		return nil
	}
	b, err := json.Marshal(g)
	if err != nil {
		d.error(a.Expr.Range(), "Invalid args", "The arguments cannot be written as JSON: %s.", err)
		return nil
	}
	return b
}

// answer reads how the person answers a confirmation: "accept",
// "decline" or "cancel", or the form's values, which accept.
func (d *decoder) answer(a *hcl.Attribute, v cty.Value) *engine.Answer {
	const what = `answer is how the person answers the tool's confirmation: "accept", "decline", "cancel", or the form's values, such as { reason = "duplicate" }, which accept`
	switch {
	case v.Type() == cty.String && !v.IsNull():
		switch s := v.AsString(); s {
		case engine.AnswerAccept, engine.AnswerDecline, engine.AnswerCancel:
			return &engine.Answer{Action: s}
		}
	case v.Type().IsObjectType() || v.Type().IsMapType():
		g, _ := mapping.FromCty(v)
		if m, ok := g.(map[string]any); ok {
			return &engine.Answer{Action: engine.AnswerAccept, Content: m}
		}
	}
	d.error(a.Expr.Range(), "Invalid answer", "%s.", what)
	return nil
}

// readOutline reads the outline of the configuration at paths, once for
// every file that tests it.
func (d *decoder) readOutline(paths []string) {
	d.configs = paths
	key := strings.Join(paths, "\x00")
	o, done := d.outlines[key]
	if !done {
		o, _ = load.ReadOutline(paths...)
		d.outlines[key] = o
	}
	d.outline = o
}

// assertEnv is what the assertions of t read: for a tool of the
// configuration, its arguments and outputs as declared, so that a name
// that is not one of them is an error now rather than a nil when the test
// runs.
func (d *decoder) assertEnv(t *Test) mapping.Env {
	if t.Kind != "tool" || d.outline == nil {
		return assertEnv
	}
	tool := d.outline.Tools[t.Target]
	if tool == nil {
		return assertEnv // the test reports the unknown tool
	}
	env := maps.Clone(assertEnv)
	args, _ := tool.Args.ExprType().(types.Map)
	if tool.OpenArgs {
		args[types.Extra] = types.Any
	}
	env["args"], t.argsType = args, tool.Args
	if tool.Outputs != nil {
		env["structured"], t.structuredType = tool.Outputs.ExprType(), tool.Outputs
	}
	return env
}

func (d *decoder) assert(b *hcl.Block, env mapping.Env) *Assert {
	v := d.decode(assertSpec, b.Body)
	a := &Assert{}
	if attr := v.Attr("condition"); attr != nil {
		a.Range = attr.Expr.Range()
		a.Condition, a.Source = d.program(attr, reflect.Bool, env)
		if a.Condition == nil {
			return nil
		}
		for _, p := range mapping.Paths(a.Condition) {
			if _, known := env[p.Root()]; known {
				a.Reads = append(a.Reads, p)
			}
		}
	}
	if attr := v.Attr("error_message"); attr != nil {
		a.Message, _ = d.program(attr, reflect.Invalid, env)
	}
	if a.Condition == nil {
		return nil
	}
	return a
}

// program compiles an attribute that may be an expr() program against env,
// the result of a call. want is the kind it must yield (reflect.Invalid:
// any).
func (d *decoder) program(a *hcl.Attribute, want reflect.Kind, env mapping.Env) (mapping.Value, string) {
	v, diags := a.Expr.Value(d.ctx)
	d.diags = append(d.diags, diags...)
	if diags.HasErrors() {
		return nil, ""
	}
	m, diags := mapping.Compile(v, a.Expr, env)
	if d.compiled != nil {
		d.compiled(a.Expr, env, m)
	}
	d.diags = append(d.diags, diags...)
	if diags.HasErrors() {
		return nil, ""
	}
	source := strings.TrimSpace(string(a.Expr.Range().SliceBytes(d.src)))
	if want == reflect.Bool {
		if c, isConst := mapping.IsConst(m); isConst {
			if _, ok := c.(bool); !ok {
				d.error(a.Expr.Range(), "Invalid condition", "A condition is an expr(…) program that yields true or false, such as expr(\"structured.count == 3\").")
				return nil, ""
			}
			d.error(a.Expr.Range(), "Constant condition", "This condition is always %v, whatever the call returns. Write it as an expr(…) program that reads the result, such as expr(\"!is_error\").", c)
			return nil, ""
		}
		if rt := mapping.ResultType(m); rt != nil && rt.Kind() != reflect.Bool && rt.Kind() != reflect.Interface {
			d.error(a.Expr.Range(), "Invalid condition", "A condition must yield true or false, but this yields %s.", rt)
			return nil, ""
		}
	}
	return m, source
}

func (d *decoder) mock(b *hcl.Block) *Mock {
	m := &Mock{Kind: b.Labels[0], Name: b.Labels[1], Range: b.DefRange}
	if m.Kind != mockHTTP && m.Kind != mockDatabase {
		d.error(b.LabelRanges[0], "Unknown mock kind", "A mock stands in for an http_api or a database: write mock \"http_api\" \"NAME\" or mock \"database\" \"NAME\", not %q.", m.Kind)
		return nil
	}
	v := d.decode(mockSpec, b.Body)
	d.checkMockKind(m.Kind, v)
	if m.Kind == mockDatabase {
		m.Seed, m.HasSeed = v.String("seed"), v.Has("seed")
	}
	m.Response = Response{Status: http.StatusOK, Headers: http.Header{}}
	for _, rb := range v.Blocks("request") {
		d.request(&m.Request, rb.Body)
	}
	for _, rb := range v.Blocks("response") {
		d.response(&m.Response, rb.Body)
	}
	if d.outline != nil && !slices.Contains(d.outline.Blocks[m.Kind], m.Name) {
		names := d.outline.Blocks[m.Kind]
		detail := fmt.Sprintf("The configuration (%s) declares no %s named %q", strings.Join(d.configs, ", "), m.Kind, m.Name)
		switch best := engine.Closest(m.Name, names); {
		case best != "":
			detail += fmt.Sprintf(". Did you mean %q?", best)
		case len(names) > 0:
			detail += "; it declares " + strings.Join(text.Quoted(names), ", ") + ". Name one of them, or remove the mock."
		default:
			detail += ", nor any other " + m.Kind + ": remove the mock."
		}
		d.error(b.LabelRanges[1], "Mock of an undeclared "+m.Kind, "%s", detail)
	}
	return m
}

// checkMockKind reports what a mock of kind holds that only the other
// kind takes: seed for a database, request and response for an http_api.
func (d *decoder) checkMockKind(kind string, v *spec.Values) {
	if a := v.Attr("seed"); a != nil && kind == mockHTTP {
		d.error(a.NameRange, "Unexpected seed", "seed fills a mocked database; a mock of an http_api answers with its response block instead.")
	}
	if kind != mockDatabase {
		return
	}
	for _, name := range []string{"request", "response"} {
		for _, b := range v.Blocks(name) {
			d.error(b.DefRange, "Unexpected "+name+" block", "A mocked database answers with SQL: fill it with seed = file(\"seed.sql\"); request and response blocks are for a mock of an http_api.")
		}
	}
}

func (d *decoder) request(r *Match, body hcl.Body) {
	v := d.decode(requestSpec, body)
	r.Method = strings.ToUpper(v.String("method"))
	if a := v.Attr("path"); v.Has("path") {
		r.Path = v.String("path")
		if !strings.HasPrefix(r.Path, "/") {
			d.error(a.Expr.Range(), "Invalid path", "A mock's path starts with /, as the tool's path does: it is relative to the http_api's base_url, such as \"/users/42\".")
		}
	}
	if v.Has("query") {
		r.Query = d.stringMap(v, "query")
	}
	if v.Has("headers") {
		r.Headers = map[string]string{}
		for k, val := range d.stringMap(v, "headers") {
			r.Headers[http.CanonicalHeaderKey(k)] = val
		}
	}
	if b := v.Value("body"); v.Has("body") {
		r.Body, _ = mapping.FromCty(b)
		if _, isText := r.Body.(string); !isText {
			r.Body = normalJSON(r.Body)
		}
	}
}

func (d *decoder) response(r *Response, body hcl.Body) {
	v := d.decode(responseSpec, body)
	r.Status, r.Delay = int(v.Int("status")), v.Duration("delay")
	for k, val := range d.stringMap(v, "headers") {
		r.Headers.Set(k, val)
	}
	if v.Has("body") {
		g, _ := mapping.FromCty(v.Value("body"))
		if s, isText := g.(string); isText {
			r.Body = []byte(s)
			if r.Headers.Get("Content-Type") == "" {
				r.Headers.Set("Content-Type", "text/plain; charset=utf-8")
			}
		} else {
			r.Body, _ = json.Marshal(g)
			if r.Headers.Get("Content-Type") == "" {
				r.Headers.Set("Content-Type", "application/json")
			}
		}
	}
	a := v.Attr("body_file")
	switch {
	case a != nil && v.Attr("body") != nil:
		d.error(a.NameRange, "Both body and body_file", "A response has one body: write it with body, or read it from a file with body_file, not both.")
	case v.Has("body_file"):
		path := v.String("body_file")
		if !filepath.IsAbs(path) {
			path = filepath.Join(d.dir, path)
		}
		b, err := engine.ReadConfigFile(path)
		if err != nil {
			d.error(a.Expr.Range(), "Cannot read body_file", "%s. The path is relative to the test file.", text.UpperFirst(err.Error()))
		}
		r.Body = b
		if r.Headers.Get("Content-Type") == "" {
			r.Headers.Set("Content-Type", http.DetectContentType(b))
		}
	}
}

// checkDatabaseMocks reports a database mocked twice in one scope.
func (d *decoder) checkDatabaseMocks(mocks []*Mock) {
	seen := map[string]*Mock{}
	for _, m := range mocks {
		if m.Kind != mockDatabase {
			continue
		}
		if prev, dup := seen[m.Name]; dup {
			d.error(m.Range, "Duplicate database mock", "Database %q is already mocked at %s; one mock stands for one database.", m.Name, prev.Range)
			continue
		}
		seen[m.Name] = m
	}
}

// stringMap reads name, a map of strings, none of them null.
func (d *decoder) stringMap(v *spec.Values, name string) map[string]string {
	if !v.Has(name) {
		return nil
	}
	out := map[string]string{}
	for k, e := range v.Value(name).AsValueMap() {
		if e.IsNull() {
			d.error(v.Attr(name).Expr.Range(), "Invalid value", "The value of %q is null; write a string, or leave it out.", k)
			continue
		}
		out[k] = e.AsString()
	}
	return out
}

// normalJSON is v as JSON decoding gives it, so that values written in HCL
// compare equal to what a request sent.
func normalJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}
