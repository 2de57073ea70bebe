package testrun

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
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

var (
	fileSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "config"}},
		Blocks: []hcl.BlockHeaderSchema{
			{Type: "variables"},
			{Type: "env"},
			{Type: "mock", LabelNames: []string{"kind", "name"}},
			{Type: "test", LabelNames: []string{"name"}},
		},
	}
	testSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{
			{Name: "tool"},
			{Name: "resource"},
			{Name: "prompt"},
			{Name: "args"},
			{Name: "answer"},
			{Name: "model_answer"},
			{Name: "expect_error"},
			{Name: "snapshot"},
		},
		Blocks: []hcl.BlockHeaderSchema{
			{Type: "variables"},
			{Type: "env"},
			{Type: "mock", LabelNames: []string{"kind", "name"}},
			{Type: "assert"},
		},
	}
	assertSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
		{Name: "condition", Required: true},
		{Name: "error_message"},
	}}
	httpMockSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
		{Type: "request"},
		{Type: "response"},
	}}
	requestSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
		{Name: "method"}, {Name: "path"}, {Name: "query"}, {Name: "headers"}, {Name: "body"},
	}}
	responseSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
		{Name: "status"}, {Name: "headers"}, {Name: "body"}, {Name: "body_file"}, {Name: "delay"},
	}}
	databaseMockSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "seed"}}}
)

// testName is what a test may be called: it names it in reports and in
// --run.
var testName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// Parse reads the test files at names. It returns the files without
// errors, the parsed sources (for printing diagnostics) and every
// diagnostic.
func Parse(names []string, lookupEnv func(string) (string, bool)) ([]*File, load.Files, hcl.Diagnostics) {
	parser := hclparse.NewParser()
	var files []*File
	var diags hcl.Diagnostics
	outlines := map[string]*load.Outline{} // by configuration paths
	for _, name := range names {
		src, err := engine.ReadConfigFile(name)
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
		d := &decoder{ctx: &hcl.EvalContext{Functions: load.Functions(filepath.Dir(name), lookupEnv)}, dir: filepath.Dir(name), src: hf.Bytes, outlines: outlines}
		f := d.file(name, hf.Body)
		diags = append(diags, d.diags...)
		if !d.diags.HasErrors() {
			files = append(files, f)
		}
	}
	return files, parser.Files(), diags
}

// decoder holds the state of one test file's decoding.
type decoder struct {
	ctx   *hcl.EvalContext
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
}

func (d *decoder) error(rng hcl.Range, summary, detail string, args ...any) {
	d.diags = append(d.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(detail, args...), Subject: rng.Ptr()})
}

// eval evaluates a load-time expression; ok is false when it failed (and
// was reported) or holds an expr() program.
func (d *decoder) eval(e hcl.Expression) (cty.Value, bool) {
	v, diags := e.Value(d.ctx)
	d.diags = append(d.diags, diags...)
	if diags.HasErrors() {
		return cty.NilVal, false
	}
	if _, err := mapping.FromCty(v); err != nil {
		d.error(e.Range(), "Invalid value", "%s.", upperFirst(err.Error()))
		return cty.NilVal, false
	}
	return v, true
}

// typed evaluates a load-time expression that must convert to ty.
func (d *decoder) typed(e hcl.Expression, ty cty.Type, what string) (cty.Value, bool) {
	v, ok := d.eval(e)
	if !ok {
		return cty.NilVal, false
	}
	cv, err := convert.Convert(v, ty)
	if err != nil || cv.IsNull() {
		d.error(e.Range(), "Invalid value", "This must be %s.", what)
		return cty.NilVal, false
	}
	cv, _ = cv.Unmark()
	return cv, true
}

func (d *decoder) file(name string, body hcl.Body) *File {
	f := &File{Name: name, Config: []string{filepath.Dir(name)}}
	content, diags := body.Content(fileSchema)
	d.diags = append(d.diags, diags...)
	if a, ok := content.Attributes["config"]; ok {
		f.Config = d.config(a)
	}
	d.readOutline(f.Config)
	once := map[string]*hcl.Block{}
	for _, b := range content.Blocks {
		switch b.Type {
		case "variables", "env":
			if prev, dup := once[b.Type]; dup {
				d.error(b.DefRange, "Duplicate "+b.Type+" block", "A test file takes one %s block; one is already declared at %s. Merge them.", b.Type, prev.DefRange)
				continue
			}
			once[b.Type] = b
			if b.Type == "env" {
				f.Env = d.env(b)
			} else {
				f.Vars = d.variables(b)
			}
		case "mock":
			if m := d.mock(b); m != nil {
				f.Mocks = append(f.Mocks, m)
			}
		}
	}
	d.checkDatabaseMocks(f.Mocks)
	seen := map[string]*Test{}
	for _, b := range content.Blocks {
		if b.Type != "test" {
			continue
		}
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

// config reads the config attribute: a path or a list of paths, relative
// to the test file.
func (d *decoder) config(a *hcl.Attribute) []string {
	v, ok := d.eval(a.Expr)
	if !ok {
		return nil
	}
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
		if v, ok := d.eval(a.Expr); ok {
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
		if v, ok := d.typed(a.Expr, cty.String, "the text of the environment variable"); ok {
			env[name] = v.AsString()
		}
	}
	return env
}

func (d *decoder) test(f *File, b *hcl.Block) *Test {
	t := &Test{File: f, Name: b.Labels[0], Range: b.DefRange, Args: json.RawMessage("{}")}
	if !testName.MatchString(t.Name) {
		d.error(b.LabelRanges[0], "Invalid test name", "%q is not a valid test name: use letters, digits, underscores, dashes and dots.", t.Name)
	}
	content, diags := b.Body.Content(testSchema)
	d.diags = append(d.diags, diags...)
	var kinds []*hcl.Attribute
	for _, kind := range []string{"tool", "resource", "prompt"} {
		a, ok := content.Attributes[kind]
		if !ok {
			continue
		}
		kinds = append(kinds, a)
		if v, ok := d.typed(a.Expr, cty.String, "the name of a "+kind+" of the configuration"); ok {
			t.Kind, t.Target, t.TargetRange = kind, v.AsString(), a.Expr.Range()
		}
	}
	switch {
	case len(kinds) == 0 && !diags.HasErrors():
		d.error(b.DefRange, "Nothing to test", "A test names what it exercises: tool = \"NAME\" (a call), resource = \"URI\" (a read) or prompt = \"NAME\".")
	case len(kinds) > 1:
		d.error(kinds[1].NameRange, "More than one subject", "A test exercises one thing: a tool, a resource or a prompt; %s and %s are both given. Split it into two tests.", kinds[0].Name, kinds[1].Name)
	}
	if a, ok := content.Attributes["args"]; ok {
		t.Args = d.args(a)
	}
	if a, ok := content.Attributes["answer"]; ok {
		t.Answer = d.answer(a)
	}
	if a, ok := content.Attributes["model_answer"]; ok {
		if v, ok := d.typed(a.Expr, cty.String, `the text the client's model answers, such as "Paris."`); ok && !v.IsNull() {
			s := v.AsString()
			t.ModelAnswer = &s
		}
	}
	env := d.assertEnv(t)
	if a, ok := content.Attributes["expect_error"]; ok {
		if v, ok := d.typed(a.Expr, cty.Bool, "true or false"); ok {
			t.ExpectError = v.True()
		}
	}
	if a, ok := content.Attributes["snapshot"]; ok {
		if v, ok := d.typed(a.Expr, cty.String, "the path of a JSON file, relative to this file"); ok {
			t.Snapshot, t.SnapshotRange = v.AsString(), a.Expr.Range()
			if !filepath.IsAbs(t.Snapshot) {
				t.Snapshot = filepath.Join(d.dir, t.Snapshot)
			}
			t.snapshotRel = d.snapshotPath(a.Expr.Range(), v.AsString(), t.Snapshot, t.Name)
		}
	}
	once := map[string]*hcl.Block{}
	for _, sb := range content.Blocks {
		switch sb.Type {
		case "variables", "env":
			if prev, dup := once[sb.Type]; dup {
				d.error(sb.DefRange, "Duplicate "+sb.Type+" block", "A test takes one %s block; one is already declared at %s. Merge them.", sb.Type, prev.DefRange)
				continue
			}
			once[sb.Type] = sb
			if sb.Type == "env" {
				t.Env = d.env(sb)
			} else {
				t.Vars = d.variables(sb)
			}
		case "mock":
			if m := d.mock(sb); m != nil {
				t.Mocks = append(t.Mocks, m)
			}
		case "assert":
			if a := d.assert(sb, env); a != nil {
				t.Asserts = append(t.Asserts, a)
			}
		}
	}
	d.checkDatabaseMocks(t.Mocks)
	return t
}

// args reads a test's arguments: an object, written as JSON.
func (d *decoder) args(a *hcl.Attribute) json.RawMessage {
	v, ok := d.eval(a.Expr)
	if !ok {
		return nil
	}
	if !v.Type().IsObjectType() && !v.Type().IsMapType() {
		d.error(a.Expr.Range(), "Invalid args", "args are the call's arguments: an object such as { city = \"Paris\" }.")
		return nil
	}
	g, _ := mapping.FromCty(v)
	b, err := json.Marshal(g)
	if err != nil {
		d.error(a.Expr.Range(), "Invalid args", "The arguments cannot be written as JSON: %s.", err)
		return nil
	}
	return b
}

// answer reads how the person answers a confirmation: "accept",
// "decline" or "cancel", or the form's values, which accept.
func (d *decoder) answer(a *hcl.Attribute) *engine.Answer {
	const what = `answer is how the person answers the tool's confirmation: "accept", "decline", "cancel", or the form's values, such as { reason = "duplicate" }, which accept`
	v, ok := d.eval(a.Expr)
	if !ok {
		return nil
	}
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
	content, diags := b.Body.Content(assertSchema)
	d.diags = append(d.diags, diags...)
	a := &Assert{}
	if attr, ok := content.Attributes["condition"]; ok {
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
	if attr, ok := content.Attributes["error_message"]; ok {
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
	switch m.Kind {
	case mockHTTP:
		d.httpMock(m, b.Body)
	case mockDatabase:
		d.databaseMock(m, b.Body)
	default:
		d.error(b.LabelRanges[0], "Unknown mock kind", "A mock stands in for an http_api or a database: write mock \"http_api\" \"NAME\" or mock \"database\" \"NAME\", not %q.", m.Kind)
		return nil
	}
	if d.outline != nil && !slices.Contains(d.outline.Blocks[m.Kind], m.Name) {
		names := d.outline.Blocks[m.Kind]
		detail := fmt.Sprintf("The configuration (%s) declares no %s named %q", strings.Join(d.configs, ", "), m.Kind, m.Name)
		switch best := engine.Closest(m.Name, names); {
		case best != "":
			detail += fmt.Sprintf(". Did you mean %q?", best)
		case len(names) > 0:
			detail += "; it declares " + quoteAll(names) + ". Name one of them, or remove the mock."
		default:
			detail += ", nor any other " + m.Kind + ": remove the mock."
		}
		d.error(b.LabelRanges[1], "Mock of an undeclared "+m.Kind, "%s", detail)
	}
	return m
}

// quoteAll renders names as "a", "b", "c".
func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

func (d *decoder) httpMock(m *Mock, body hcl.Body) {
	content, diags := body.Content(httpMockSchema)
	d.diags = append(d.diags, diags...)
	m.Response.Status = http.StatusOK
	m.Response.Headers = http.Header{}
	seen := map[string]*hcl.Block{}
	for _, b := range content.Blocks {
		if prev, dup := seen[b.Type]; dup {
			d.error(b.DefRange, "Duplicate "+b.Type+" block", "A mock answers one request with one response; this mock already has a %s block at %s. Declare another mock for another exchange.", b.Type, prev.DefRange)
			continue
		}
		seen[b.Type] = b
		switch b.Type {
		case "request":
			d.request(&m.Request, b.Body)
		case "response":
			d.response(&m.Response, b.Body)
		}
	}
}

func (d *decoder) request(r *Match, body hcl.Body) {
	content, diags := body.Content(requestSchema)
	d.diags = append(d.diags, diags...)
	if a, ok := content.Attributes["method"]; ok {
		if v, ok := d.typed(a.Expr, cty.String, "an HTTP method such as \"GET\""); ok {
			r.Method = strings.ToUpper(v.AsString())
		}
	}
	if a, ok := content.Attributes["path"]; ok {
		if v, ok := d.typed(a.Expr, cty.String, "a path such as \"/users/42\""); ok {
			r.Path = v.AsString()
			if !strings.HasPrefix(r.Path, "/") {
				d.error(a.Expr.Range(), "Invalid path", "A mock's path starts with /, as the tool's path does: it is relative to the http_api's base_url, such as \"/users/42\".")
			}
		}
	}
	if a, ok := content.Attributes["query"]; ok {
		r.Query = d.stringMap(a, "the query parameters the request must carry, such as { units = \"metric\" }")
	}
	if a, ok := content.Attributes["headers"]; ok {
		r.Headers = map[string]string{}
		for k, v := range d.stringMap(a, "the headers the request must carry, such as { Accept = \"application/json\" }") {
			r.Headers[http.CanonicalHeaderKey(k)] = v
		}
	}
	if a, ok := content.Attributes["body"]; ok {
		if v, ok := d.eval(a.Expr); ok && !v.IsNull() {
			r.Body, _ = mapping.FromCty(v)
			if _, isText := r.Body.(string); !isText {
				r.Body = normalJSON(r.Body)
			}
		}
	}
}

func (d *decoder) response(r *Response, body hcl.Body) {
	content, diags := body.Content(responseSchema)
	d.diags = append(d.diags, diags...)
	if a, ok := content.Attributes["status"]; ok {
		if v, ok := d.typed(a.Expr, cty.Number, "an HTTP status code from 100 to 599"); ok {
			n, acc := v.AsBigFloat().Int64()
			if acc != 0 || n < 100 || n > 599 {
				d.error(a.Expr.Range(), "Invalid status", "The status of a response is a code from 100 to 599.")
			}
			r.Status = int(n)
		}
	}
	if a, ok := content.Attributes["headers"]; ok {
		for k, v := range d.stringMap(a, "the response's headers, such as { \"Content-Type\" = \"text/csv\" }") {
			r.Headers.Set(k, v)
		}
	}
	if a, ok := content.Attributes["body"]; ok {
		if v, ok := d.eval(a.Expr); ok && !v.IsNull() {
			g, _ := mapping.FromCty(v)
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
	}
	if a, ok := content.Attributes["body_file"]; ok {
		if _, both := content.Attributes["body"]; both {
			d.error(a.NameRange, "Both body and body_file", "A response has one body: write it with body, or read it from a file with body_file, not both.")
		} else if v, ok := d.typed(a.Expr, cty.String, "the path of a file, relative to this file"); ok {
			path := v.AsString()
			if !filepath.IsAbs(path) {
				path = filepath.Join(d.dir, path)
			}
			b, err := engine.ReadConfigFile(path)
			if err != nil {
				d.error(a.Expr.Range(), "Cannot read body_file", "%s. The path is relative to the test file.", upperFirst(err.Error()))
			}
			r.Body = b
			if r.Headers.Get("Content-Type") == "" {
				r.Headers.Set("Content-Type", http.DetectContentType(b))
			}
		}
	}
	if a, ok := content.Attributes["delay"]; ok {
		if v, ok := d.typed(a.Expr, cty.String, "a duration such as \"2s\""); ok {
			t, err := engine.ParseDuration(v.AsString())
			if err != nil {
				d.error(a.Expr.Range(), "Invalid delay", "%s.", err)
			}
			r.Delay = t
		}
	}
}

func (d *decoder) databaseMock(m *Mock, body hcl.Body) {
	content, diags := body.Content(databaseMockSchema)
	d.diags = append(d.diags, diags...)
	if a, ok := content.Attributes["seed"]; ok {
		if v, ok := d.typed(a.Expr, cty.String, "SQL statements, usually file(\"seed.sql\")"); ok {
			m.Seed, m.HasSeed = v.AsString(), true
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

// stringMap reads an attribute that must be a map of strings.
func (d *decoder) stringMap(a *hcl.Attribute, what string) map[string]string {
	v, ok := d.typed(a.Expr, cty.Map(cty.String), what)
	if !ok {
		return nil
	}
	out := map[string]string{}
	for k, e := range v.AsValueMap() {
		if e.IsNull() {
			d.error(a.Expr.Range(), "Invalid value", "The value of %q is null; write %s.", k, what)
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

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// sortedKeys is m's keys, sorted.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
