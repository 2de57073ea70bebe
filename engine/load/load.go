package load

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/zclconf/go-cty/cty"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/audit"
	"github.com/mcpdecl/mcpdecl/engine/auth"
	"github.com/mcpdecl/mcpdecl/engine/cache"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/ratelimit"
	"github.com/mcpdecl/mcpdecl/engine/requeststate"
	"github.com/mcpdecl/mcpdecl/engine/schema"
	"github.com/mcpdecl/mcpdecl/engine/spec"
	"github.com/mcpdecl/mcpdecl/engine/tasks"
	"github.com/mcpdecl/mcpdecl/engine/text"
	"github.com/mcpdecl/mcpdecl/engine/tracing"
)

// Options are the inputs of a load besides the files.
type Options struct {
	// Registry holds the adapters whose blocks the files may use.
	Registry *engine.Registry
	// Vars are variable values given on the command line (--var name=value);
	// they win over MCPDECL_VAR_<name> and over defaults.
	Vars map[string]string
	// LookupEnv reads the environment for env() and MCPDECL_VAR_<name>;
	// nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Logger receives what the loaded configuration logs while it serves,
	// such as refused tokens; nil discards it.
	Logger *slog.Logger
	// Redactor, when not nil, receives the configuration's secrets as they
	// are found, even when the load fails: for hiding them from the source
	// lines printed with the diagnostics.
	Redactor *text.Redactor
	// Values are variable values given with their place in a file, as by a
	// test; they win over Vars.
	Values map[string]Value
	// Overrides change top-level blocks before their adapters decode them,
	// as a test's mocks do.
	Overrides []Override
	// Read, when not nil, is told the absolute path of each file the load
	// reads or tries to read (the configuration files, file(), ca_file…),
	// once, even when the load fails: for a watcher, which then reloads
	// when a file a broken configuration is missing appears. It may be
	// called from several goroutines, one at a time.
	Read func(path string)
	// Sources replace the contents of configuration files, by the name
	// given in paths: an editor's unsaved buffers. A name in Sources need
	// not exist on disk; the cap on a file's size holds for it too.
	Sources map[string][]byte
	// Programs, when not nil, is told of every expression whose expr
	// programs the load compiles, with the variables they may read and
	// what they compiled to (see [engine.DecodeContext.Compiled]): for an
	// editor. It may be called from several goroutines at once.
	Programs func(e hcl.Expression, env mapping.Env, v mapping.Value)
}

// Files are the parsed configuration files by name, for printing
// diagnostics with their source.
type Files = map[string]*hcl.File

// EnvVarPrefix prefixes the environment variables that set variables.
const EnvVarPrefix = "MCPDECL_VAR_"

// Load reads the configuration at paths: files, or directories whose *.hcl
// files are read in name order. It returns the configuration, or nil when
// any diagnostic is an error, and every diagnostic found.
func Load(opts Options, paths ...string) (*engine.Config, Files, hcl.Diagnostics) {
	if opts.LookupEnv == nil {
		opts.LookupEnv = os.LookupEnv
	}
	if opts.Redactor == nil {
		opts.Redactor = &text.Redactor{}
	}
	l := &loader{
		opts:     opts,
		parser:   hclparse.NewParser(),
		ctxs:     map[string]*hcl.EvalContext{},
		settings: engine.DefaultSettings(),
		redactor: opts.Redactor,
		root:     &hcl.EvalContext{Variables: map[string]cty.Value{}},
		read:     &readLog{},
		schemas:  &schema.Cache{},
		programs: &mapping.Scopes{},

		localValues: &sync.Map{},

		overridden: make([]bool, len(opts.Overrides)),
	}
	cfg := l.load(paths)
	l.explainReferences()
	l.diags = l.causes()
	ExplainLabels(l.diags)
	sortDiagnostics(l.diags)
	if l.diags.HasErrors() {
		for _, r := range l.decoded {
			if c, ok := r.(io.Closer); ok {
				_ = c.Close()
			}
		}
		return nil, l.parser.Files(), l.diags
	}
	return cfg, l.parser.Files(), l.diags
}

// loader holds the state of one load.
type loader struct {
	opts     Options
	parser   *hclparse.Parser
	diags    hcl.Diagnostics
	root     *hcl.EvalContext            // var, local and resource references
	ctxs     map[string]*hcl.EvalContext // per file: the functions, file() relative to it
	settings engine.Settings
	redactor *text.Redactor
	// sensitive is whether a variable is sensitive: until one is, no
	// value carries [engine.SensitiveMark] and nothing needs checking
	// for it. Written while variables decode, before anything reads it.
	sensitive bool
	decoded   []any                   // what the adapters decoded from top-level blocks
	limits    *rateLimits             // shared by the tool workers
	cache     *resultCache            // shared by the tool workers
	blocks    map[string][]*hcl.Block // the root blocks of every file, by type
	// outer are the configuration's layers of each tool's per-call path
	// (ToolSpec.Outer), decoded before the tools.
	outer []engine.CallLayer

	read *readLog // every file read: configuration and file(); shared by the tool workers

	overridden []bool // which of opts.Overrides a block took

	// syntax are the syntax errors of the files, by file name: decoding
	// what HCL recovered of such a file reports nothing more of it.
	syntax map[string]hcl.Diagnostics

	// defaults are the default expressions of the variables that took
	// their default, by name: written while variables decode, read only
	// after, for HowToSet.
	defaults map[string]hcl.Expression

	// claims are the JWT claims programs may read as caller.claims.<name>
	// (the auth block's oauth claims), known before the tools decode.
	claims []string

	// schemas compiles the tools' schemas, each distinct one once; shared
	// by the tool workers.
	schemas *schema.Cache
	// programs compiles the tools' expr programs, each once for tools
	// whose variables have the same types; shared by the tool workers.
	programs *mapping.Scopes
	// localValues are the values of the locals that tools' schemas and
	// metadata read, by name, converted once (see localJSON); shared by
	// the tool workers.
	localValues *sync.Map
}

// readLog is the absolute paths of every file a load read, in the order
// first read, the SHA-256 of the contents of those that file() read, and
// what env() read (see setCacheNamespace); safe for concurrent use.
type readLog struct {
	mu    sync.Mutex
	paths []string
	sums  [][sha256.Size]byte
	env   map[string]*string // nil: not set
}

// lookupEnv is env()'s reading of the environment: it notes each name
// read and its value, which the cache namespace covers.
func (l *loader) lookupEnv(name string) (string, bool) {
	v, ok := l.opts.LookupEnv(name)
	l.read.mu.Lock()
	defer l.read.mu.Unlock()
	if l.read.env == nil {
		l.read.env = map[string]*string{}
	}
	if ok {
		l.read.env[name] = &v
	} else {
		l.read.env[name] = nil
	}
	return v, ok
}

// recordFile notes that the load read the file at path (made absolute), so
// that --watch can watch it.
func (l *loader) recordFile(path string) {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	l.read.mu.Lock()
	defer l.read.mu.Unlock()
	if !slices.Contains(l.read.paths, path) {
		l.read.paths = append(l.read.paths, path)
		if l.opts.Read != nil {
			l.opts.Read(path)
		}
	}
}

// fileRead notes a file that file() read (see fileReader): its path, for
// --watch, and the sum of its contents, for the cache namespace.
func (l *loader) fileRead(path string, contents []byte, err error) {
	l.recordFile(path)
	if err != nil {
		return
	}
	sum := sha256.Sum256(contents)
	l.read.mu.Lock()
	defer l.read.mu.Unlock()
	if !slices.Contains(l.read.sums, sum) {
		l.read.sums = append(l.read.sums, sum)
	}
}

func (l *loader) load(paths []string) *engine.Config {
	// A syntax error or an unknown block hides no other error: what HCL
	// could parse of every file is loaded, and every error found reported.
	files := l.readFiles(paths)
	l.collectBlocks(files)
	l.variables()
	l.locals()
	info := l.server()
	l.upstreams()
	l.checkOverrides()
	// Values that failed above are unknown from here on, so that the tools
	// referring to them report their own errors and not the same ones again.
	l.auditBlock()
	l.tracing()
	l.authBlock()
	l.rateLimitBlock()
	l.cacheBlock()
	l.requestStatesBlock()
	l.tasksBlock()
	tools := l.tools()
	resources, templates := l.resources()
	prompts := l.prompts()
	toolsets := l.toolsets()
	l.decoded = append(l.decoded, l.limits.madeStore()...)
	l.decoded = append(l.decoded, l.cache.madeStore()...)
	if l.diags.HasErrors() {
		return nil
	}
	// Every file is read by now: the namespace of the cache keys covers them.
	l.setCacheNamespace()
	cfg := engine.NewConfig(info, l.settings, tools, l.redactor, l.decoded)
	cfg.Layers = l.outer
	cfg.Resources, cfg.Templates, cfg.Prompts = resources, templates, prompts
	cfg.Toolsets = toolsets
	cfg.SetFiles(l.read.paths)
	return cfg
}

// NoFilesError is a directory named as configuration that holds no .hcl
// files.
type NoFilesError struct{ Dir string }

func (e *NoFilesError) Error() string {
	return fmt.Sprintf("the directory %s holds no .hcl files", e.Dir)
}

// TestFileSuffix ends the names of test files, read by mcpdecl test: a
// directory's configuration is its other .hcl files.
const TestFileSuffix = ".test.hcl"

// IsTestFile reports whether the file name is a test file's.
func IsTestFile(name string) bool { return strings.HasSuffix(name, TestFileSuffix) }

// ConfigFiles lists the configuration files that paths name, as Load reads
// them: a file as it is, a directory as its *.hcl files in name order, test
// files left out, each file once. A path that cannot be read (the error of
// os.Stat), or a directory without configuration files (a *NoFilesError),
// is left out and its error returned in errs.
func ConfigFiles(paths []string) (names []string, errs []error) {
	return hclFiles(paths, false)
}

// SourceFiles lists the HCL files that paths name as [ConfigFiles] does,
// test files included: all that mcpdecl fmt formats.
func SourceFiles(paths []string) (names []string, errs []error) {
	return hclFiles(paths, true)
}

func hclFiles(paths []string, tests bool) (names []string, errs []error) {
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !info.IsDir() {
			names = append(names, p)
			continue
		}
		matches, _ := filepath.Glob(filepath.Join(p, "*.hcl"))
		if !tests {
			matches = slices.DeleteFunc(matches, IsTestFile)
		}
		if len(matches) == 0 {
			errs = append(errs, &NoFilesError{Dir: p})
			continue
		}
		slices.Sort(matches)
		names = append(names, matches...)
	}
	return slices.Compact(names), errs
}

// readFiles parses the files at paths.
func (l *loader) readFiles(paths []string) []*hcl.File {
	// Files given by their contents are named as they are, on disk or not.
	var given []string
	paths = slices.DeleteFunc(slices.Clone(paths), func(p string) bool {
		if _, ok := l.opts.Sources[p]; ok {
			given = append(given, p)
			return true
		}
		return false
	})
	names, errs := ConfigFiles(paths)
	if len(given) > 0 {
		names = append(names, given...)
		slices.Sort(names)
		names = slices.Compact(names)
	}
	for _, err := range errs {
		var none *NoFilesError
		if errors.As(err, &none) {
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "No configuration files",
				Detail:   fmt.Sprintf("The directory %s holds no .hcl files.", none.Dir),
			})
			continue
		}
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Cannot read configuration",
			Detail:   fmt.Sprintf("%s. Give the path of an .hcl file, or of a directory that holds some.", err),
		})
	}
	if len(paths) == 0 && len(given) == 0 {
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "No configuration files",
			Detail:   "Give the path of an .hcl file, or of a directory that holds some.",
		})
	}
	// A test file named as configuration is said to be one, rather than
	// reported block by block.
	names = slices.DeleteFunc(names, func(name string) bool {
		if !IsTestFile(name) {
			return false
		}
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "A test file is not configuration",
			Detail:   fmt.Sprintf("%s is a test file (it ends in %s): run it with mcpdecl test %s, and give the configuration it tests here.", name, TestFileSuffix, name),
		})
		return true
	})
	// Parse the files on every CPU, then record them in order.
	for _, name := range names {
		l.recordFile(name)
	}
	parsed := make([]*hcl.File, len(names))
	diags := make([]hcl.Diagnostics, len(names))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, name := range names {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			src, err := l.source(name)
			if err != nil {
				diags[i] = hcl.Diagnostics{{
					Severity: hcl.DiagError,
					Summary:  "Cannot read configuration",
					Detail:   fmt.Sprintf("%s.", err),
				}}
				return
			}
			parsed[i], diags[i] = ParseConfig(src, name)
		})
	}
	wg.Wait()
	var files []*hcl.File
	for i, f := range parsed {
		l.diags = append(l.diags, diags[i]...)
		if diags[i].HasErrors() {
			if l.syntax == nil {
				l.syntax = map[string]hcl.Diagnostics{}
			}
			l.syntax[names[i]] = diags[i]
		}
		if f != nil {
			l.parser.AddFile(names[i], f)
			files = append(files, f) // with a syntax error, what HCL recovered
		}
	}
	return files
}

// source reads the configuration file name, or takes its contents from
// Options.Sources.
func (l *loader) source(name string) ([]byte, error) {
	src, ok := l.opts.Sources[name]
	if !ok {
		return engine.ReadConfigFile(name)
	}
	if len(src) > engine.MaxConfigFileBytes {
		return nil, fmt.Errorf("cannot read %s: it has %d bytes, more than the %d bytes (10 MiB) a configuration may read from one file", name, len(src), engine.MaxConfigFileBytes)
	}
	return src, nil
}

// rootSpec is what the top of a file holds, in the order of the reference
// (see Language). The connection blocks
// (http_api, database) are declared by their adapters: rootBlock adds them
// from the registry.
var rootSpec = &spec.Block{Name: "file", Blocks: []spec.Nested{
	{Block: serverSpec}, {Block: variableSpec}, {Block: localsSpec}, {Block: toolSpec},
	{Block: resourceSpec}, {Block: resourceTemplateSpec}, {Block: promptSpec}, {Block: toolsetSpec},
	{Block: auth.Spec}, {Block: ratelimit.ConfigSpec}, {Block: cache.ConfigSpec}, {Block: audit.Spec}, {Block: tracing.Spec},
	{Block: requeststate.ConfigSpec}, {Block: tasks.ConfigSpec},
}}

// rootBlock is rootSpec with the connection blocks of reg's adapters.
func rootBlock(reg *engine.Registry) *spec.Block {
	root := &spec.Block{Name: rootSpec.Name, Blocks: slices.Clone(rootSpec.Blocks)}
	for _, kind := range reg.UpstreamKinds() {
		root.Blocks = append(root.Blocks, spec.Nested{Block: &spec.Block{Name: kind, Labels: []string{"name"}}})
	}
	return root
}

// RootBlocks are the blocks allowed at the top of a configuration file
// whose adapters are reg's: for an editor's completion.
func RootBlocks(reg *engine.Registry) []hcl.BlockHeaderSchema {
	var out []hcl.BlockHeaderSchema
	for _, n := range rootBlock(reg).Blocks {
		out = append(out, n.Block.Header())
	}
	return out
}

// collectBlocks sorts the root blocks of every file by type. A block that
// may appear once is checked across files by loader.single.
func (l *loader) collectBlocks(files []*hcl.File) {
	l.blocks = map[string][]*hcl.Block{}
	root := rootBlock(l.opts.Registry)
	for _, f := range files {
		v, diags := root.Decode(f.Body, nil)
		l.diags = append(l.diags, diags...)
		for _, n := range root.Blocks {
			l.blocks[n.Block.Name] = append(l.blocks[n.Block.Name], v.Blocks(n.Block.Name)...)
		}
	}
}

// evalContext returns the context for expressions of the named file.
func (l *loader) evalContext(filename string) *hcl.EvalContext {
	if ctx, ok := l.ctxs[filename]; ok {
		return ctx
	}
	ctx := l.root.NewChild()
	ctx.Functions = functions(filepath.Dir(filename), l.lookupEnv, l.fileRead)
	l.ctxs[filename] = ctx
	return ctx
}

// decodeContext returns what an adapter or a block decoder needs for a
// block declared in the named file.
func (l *loader) decodeContext(filename string) *engine.DecodeContext {
	return &engine.DecodeContext{
		EvalContext: l.evalContext(filename),
		Settings:    l.settings,
		Redactor:    l.redactor,
		Dir:         filepath.Dir(filename),
		Logger:      l.opts.Logger,
		Record:      l.recordFile,
		HowToSet:    l.howToSet,
		Scopes:      l.programs,
		Compiled:    l.opts.Programs,
	}
}

// single returns the one top-level block of a kind that may appear once,
// nil when there is none, and reports every other one: already is the
// start of the sentence that says where the first one is.
func (l *loader) single(kind, already string) *hcl.Block {
	blocks := l.blocks[kind]
	for _, b := range blocks[min(1, len(blocks)):] {
		l.error(b.DefRange, "Duplicate "+kind+" block", "%s at %s; merge the two blocks.", already, blocks[0].DefRange)
	}
	if len(blocks) == 0 {
		return nil
	}
	return blocks[0]
}

// checkUnique reports blocks of one type that share a name.
func (l *loader) checkUnique(blocks []*hcl.Block, what string) []*hcl.Block {
	seen := map[string]*hcl.Block{}
	var out []*hcl.Block
	for _, b := range blocks {
		name := b.Labels[0]
		if first, dup := seen[name]; dup {
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Duplicate " + what,
				Detail: fmt.Sprintf("A %s named %q is already declared at %s. Names must be unique across all files; rename or remove one.",
					what, name, first.DefRange.String()),
				Subject: b.LabelRanges[0].Ptr(),
			})
			continue
		}
		seen[name] = b
		out = append(out, b)
	}
	return out
}

// error appends an error diagnostic.
func (l *loader) error(rng hcl.Range, summary, detail string, args ...any) {
	l.diags = append(l.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   fmt.Sprintf(detail, args...),
		Subject:  rng.Ptr(),
	})
}

// explainReferences rewords HCL's "Unsupported attribute" for references to
// blocks that do not exist, such as http_api.nope, naming those that do.
func (l *loader) explainReferences() {
	for _, d := range l.diags {
		if d.Summary != "Unsupported attribute" || d.Expression == nil {
			continue
		}
		vars := d.Expression.Variables()
		if len(vars) != 1 || len(vars[0]) < 2 {
			continue
		}
		root := vars[0].RootName()
		attr, ok := vars[0][1].(hcl.TraverseAttr)
		if !ok {
			continue
		}
		var kind string
		switch {
		case root == "var":
			kind = "variable"
		case root == "local":
			kind = "local value"
		case slices.Contains(l.opts.Registry.UpstreamKinds(), root):
			kind = root + " block"
		default:
			continue
		}
		names := l.names(root)
		d.Summary = "Reference to an undeclared " + kind
		d.Detail = fmt.Sprintf("There is no %s named %q.", kind, attr.Name)
		if len(names) > 0 {
			d.Detail += fmt.Sprintf(" Declared: %s.", strings.Join(names, ", "))
		} else {
			d.Detail += " None is declared."
		}
	}
}

// names lists the names declared under a root such as var or http_api.
func (l *loader) names(root string) []string {
	v, ok := l.root.Variables[root]
	if !ok || !v.Type().IsObjectType() {
		return nil
	}
	return slices.Sorted(maps.Keys(v.Type().AttributeTypes()))
}

// sortDiagnostics orders diagnostics by file and position, those without a
// place first, keeping the order of equal ones.
func sortDiagnostics(diags hcl.Diagnostics) {
	slices.SortStableFunc(diags, func(a, b *hcl.Diagnostic) int {
		switch {
		case a.Subject == nil && b.Subject == nil:
			return 0
		case a.Subject == nil:
			return -1
		case b.Subject == nil:
			return 1
		}
		if c := strings.Compare(a.Subject.Filename, b.Subject.Filename); c != 0 {
			return c
		}
		return a.Subject.Start.Byte - b.Subject.Start.Byte
	})
}
