package execaction

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/spec"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// DefaultMaxOutput is how many bytes of stdout, and of stderr, a run keeps
// when the block does not set max_output.
const DefaultMaxOutput = 1 << 20

// defaultPath is the PATH programs see when the server itself has none.
const defaultPath = "/usr/local/bin:/usr/bin:/bin"

// parseMode says how stdout reaches programs.
type parseMode int

const (
	parseText parseMode = iota
	parseJSON
	parseLines
)

var parseModes = map[string]parseMode{"text": parseText, "json": parseJSON, "lines": parseLines}

// action is a decoded exec block: everything a call needs, resolved.
type action struct {
	name    string     // the program as written, its argv[0]
	path    string     // the program, resolved at load time
	span    string     // the name of a run's span: "exec " and name
	args    []argument // command[1:]
	fixed   []string   // command[1:] when no element runs a program
	dir     string     // the working directory, absolute; "" for the server's
	env     []string   // the environment fixed at load: PATH unless inherited, then env's literal entries
	envVars []envVar   // the entries of env computed per call
	inherit bool       // the server's environment comes first

	stdin      mapping.Value // computed per call; nil when fixed or absent
	stdinFixed []byte        // the input, when fixed at load
	hasStdin   bool          // stdin is set and not null

	timeout     time.Duration
	killTimeout time.Duration // the grace between SIGTERM and SIGKILL
	maxOutput   int
	truncate    bool
	parse       parseMode
	logStderr   string // the level of the log messages of stderr's lines; "" for none
	// progress matches the lines of stdout and stderr that report the
	// program's progress; nil for none.
	progress *regexp.Regexp
	dynamic  bool // some value runs a program, so programs need an env

	// cgroups is where each run gets a cgroup of its own: the server's
	// cgroup v2 directory, found once at load; "" when runs can have none.
	cgroups string
}

var _ engine.Action = (*action)(nil)

// argument is one element of command after the program.
type argument struct {
	index int           // its position in command, for messages
	value mapping.Value // nil when fixed
	fixed []string      // the arguments it stands for, when fixed
	where string        // file:line of the element, for messages
}

// envVar is an entry of env computed per call.
type envVar struct {
	name  string
	value mapping.Value
	where string
}

// parseChoices are the ways stdout reaches programs.
var parseChoices = []spec.Choice{
	{Value: "text", Doc: "the output as a string, the default"},
	{Value: "json", Doc: "the output decoded"},
	{Value: "lines", Doc: "a list of its lines"},
}

// ActionSpec is the exec block of a tool.
var ActionSpec = &spec.Block{
	Name:    "exec",
	In:      "tool",
	Summary: "Runs a program once per call, with an argument vector, never through a shell.",
	Doc: "An argument element yields a string, a number or bool (written plainly), or a list of those, spliced in place: " +
		"expr(\"args.v ? ['-v'] : []\") adds one argument or none. An argument such as \"; rm -rf / #\" reaches the program as that one literal argument; " +
		"put \"--\" before values that come from the call. The program does not see the server's environment, so its secrets stay out: it sees PATH plus what env names. " +
		"After the run, programs see stdout, stderr, exit_code and truncated.",
	Example: `exec {
  command = ["echo", "--", expr("args.id")]
  env     = { LANG = "C.UTF-8" }
  timeout = "10s"
  parse   = "lines"
}`,
	Attrs: []*spec.Attr{
		spec.List("command", spec.KindExpr, "is the program then its arguments, passed as an argument vector. "+
			"command[0] is fixed and resolved at load: a bare name is looked up on the server's PATH, a relative path is relative to the file; a missing program is a load error. "+
			"The other elements may be expr(…) over args").Mandatory().Unevaluated(),
		spec.String("dir", "is the working directory, relative to the file; it must exist").DefaultIs("the file's directory"),
		spec.Map("env", spec.KindExpr, "is the program's environment variables; values may be expr(…); null leaves one out").Unevaluated(),
		spec.Bool("inherit_env", "makes the program also see the server's whole environment, env winning").WithDefault(false),
		spec.Expr("stdin", "is what the program reads: a string as is, any other value as JSON plus a newline").DefaultIs("nothing"),
		spec.Duration("timeout", "bounds one run (the tool's timeout applies too)").DefaultIs("the tool's timeout"),
		spec.Duration("kill_timeout", "is how long the program, and every process it started, has to exit after SIGTERM when the run's time runs out or the call is cancelled, before SIGKILL; it also bounds the wait for output pipes that a process left behind holds open").
			Range(int64(time.Millisecond), int64(time.Hour)).WithDefault(DefaultKillTimeout),
		spec.Int("max_output", "is how many bytes of stdout, and of stderr, are kept, such as 1048576 for 1 MiB; a program that writes more is stopped there").Range(1, 1<<40).WithDefault(DefaultMaxOutput),
		spec.Bool("truncate", "cuts output beyond max_output, truncated being true and exit_code 0; otherwise the call fails").WithDefault(false),
		spec.Enum("parse", "is how stdout reaches programs", parseChoices...).WithDefault("text"),
		spec.Enum("log_stderr", "is the level at which each line the program writes to stderr is sent to the client as a log message", spec.Choices(engine.LogLevels...)...),
		spec.String("progress", `is a regular expression matching the lines of stdout and stderr that report the program's progress: with one group a percentage ("(\\d+)%"), with two done and total ("(\\d+) of (\\d+)")`),
	},
}

// decodeAction decodes an exec block. It returns nil when the block has
// errors, or refers to values whose errors were reported elsewhere; it
// reports all of its own.
func decodeAction(ctx *engine.DecodeContext, block *hcl.Block) (*action, hcl.Diagnostics) {
	v, diags := ActionSpec.Decode(block.Body, ctx)
	if !supported {
		diags = append(diags, errorf(block.DefRange, "exec is not supported here",
			"The exec action runs programs in process groups, which needs a Unix system such as Linux or macOS."))
	}
	a := &action{cgroups: ownCgroupDir(), inherit: v.Bool("inherit_env"), timeout: v.Duration("timeout"), killTimeout: v.Duration("kill_timeout"), maxOutput: int(v.Int("max_output")),
		truncate: v.Bool("truncate"), parse: parseModes[v.String("parse")], logStderr: v.String("log_stderr")}
	broken := false // a value refers to something whose errors were already reported

	base := ctx.Dir
	if base != "" {
		if abs, err := filepath.Abs(base); err == nil {
			base = abs
		}
	}
	a.dir = base
	if v.Has("dir") {
		dir, err := resolveDir(v.String("dir"), base)
		if err != nil {
			diags = append(diags, errorf(v.Attr("dir").Expr.Range(), "Invalid dir", "%s.", text.UpperFirst(err.Error())))
		}
		a.dir = dir
	}
	if attr := v.Attr("command"); attr != nil {
		ok, more := a.decodeCommand(ctx, attr, base)
		diags = append(diags, more...)
		broken = broken || !ok
	}
	if !a.inherit {
		path := os.Getenv("PATH")
		if path == "" {
			path = defaultPath
		}
		a.env = append(a.env, "PATH="+path)
	}
	if attr := v.Attr("env"); attr != nil {
		ok, more := a.decodeEnv(ctx, attr)
		diags = append(diags, more...)
		broken = broken || !ok
	}
	if m := v.Program("stdin"); m != nil {
		if c, fixed := mapping.IsConst(m); fixed {
			in, err := stdinBytes(c)
			if err != nil {
				diags = append(diags, errorf(v.Attr("stdin").Expr.Range(), "Invalid stdin", "%s.", text.UpperFirst(err.Error())))
			}
			a.stdinFixed, a.hasStdin = in, c != nil
		} else {
			a.stdin, a.hasStdin, a.dynamic = m, true, true
		}
	}
	if v.Has("progress") {
		re, err := regexp.Compile(v.String("progress"))
		msg := ""
		if err != nil {
			msg = err.Error()
		} else {
			msg = checkProgressPattern(re)
		}
		if msg != "" {
			diags = append(diags, errorf(v.Attr("progress").Expr.Range(), "Invalid progress",
				"progress is a regular expression matching the lines of stdout and stderr that report the program's progress: %s.", msg))
		}
		a.progress = re
	}
	if broken || diags.HasErrors() {
		return nil, diags
	}
	return a, diags
}

// element is one element of command: its load-time value and the
// expression to point at.
type element struct {
	value cty.Value
	expr  hcl.Expression
}

// decodeCommand decodes command: the program, resolved now, and its
// arguments. ok is false when the value refers to something broken.
func (a *action) decodeCommand(ctx *engine.DecodeContext, attr *hcl.Attribute, base string) (ok bool, diags hcl.Diagnostics) {
	var elems []element
	if exprs, more := hcl.ExprList(attr.Expr); !more.HasErrors() {
		// A list written out: each element has its own range.
		for _, e := range exprs {
			v, more := e.Value(ctx.EvalContext)
			diags = append(diags, more...)
			if more.HasErrors() {
				return true, diags
			}
			if !v.IsWhollyKnown() {
				return false, diags
			}
			elems = append(elems, element{v, e})
		}
	} else {
		// A list computed at load time, such as var.command.
		v, more := attr.Expr.Value(ctx.EvalContext)
		diags = append(diags, more...)
		if more.HasErrors() {
			return true, diags
		}
		if !v.IsWhollyKnown() {
			return false, diags
		}
		u, _ := v.Unmark()
		if u.IsNull() || !(u.Type().IsListType() || u.Type().IsTupleType()) {
			return true, append(diags, errorf(attr.Expr.Range(), "Invalid command",
				`command must be a list: the program, then its arguments, such as ["git", "status"]. Its arguments may be expr(…) programs; the list itself may not.`))
		}
		for it := u.ElementIterator(); it.Next(); {
			_, ev := it.Element()
			elems = append(elems, element{ev, attr.Expr})
		}
	}
	if len(elems) == 0 {
		return true, append(diags, errorf(attr.Expr.Range(), "Empty command",
			`command needs at least the program to run, such as ["date"].`))
	}

	prog, more := programName(elems[0])
	diags = append(diags, more...)
	if !more.HasErrors() {
		path, err := resolveProgram(prog, base)
		if err != nil {
			summary := "Program cannot be run"
			if errors.Is(err, errNotFound) {
				summary = "Program not found"
			}
			diags = append(diags, errorf(elems[0].expr.Range(), summary, "%s.", text.UpperFirst(err.Error())))
		}
		a.name, a.path = prog, path
		a.span = "exec " + prog
	}

	dynamic := false
	for i, el := range elems[1:] {
		arg := argument{index: i + 1, where: where(el.expr.Range())}
		m, more := ctx.Compile(el.value, el.expr)
		diags = append(diags, more...)
		if more.HasErrors() {
			continue
		}
		if c, fixed := mapping.IsConst(m); fixed {
			args, err := appendArgs(nil, c)
			if err != nil {
				diags = append(diags, errorf(el.expr.Range(), "Invalid argument",
					"command[%d] %s.", arg.index, err))
			}
			arg.fixed = args
		} else {
			if rt := mapping.ResultType(m); rt != nil && !argKind(rt) {
				diags = append(diags, errorf(el.expr.Range(), "Invalid argument",
					"command[%d] always yields %s, but an argument must be a string, a number, a bool, or a list of them to splice in.", arg.index, mapping.KindName(rt)))
			}
			arg.value = m
			dynamic = true
		}
		a.args = append(a.args, arg)
	}
	if runtime.GOOS == "windows" && a.path != "" {
		if why := windowsRefusal(a.path, dynamic); why != "" {
			diags = append(diags, errorf(elems[0].expr.Range(), "Program cannot be run", "%s.", text.UpperFirst(why)))
		}
	}
	if dynamic {
		a.dynamic = true
	} else {
		a.fixed = []string{}
		for _, arg := range a.args {
			a.fixed = append(a.fixed, arg.fixed...)
		}
		a.args = nil
	}
	return true, diags
}

// programName reads command[0], which must be a string fixed at load time.
func programName(el element) (string, hcl.Diagnostics) {
	v, _ := el.value.UnmarkDeep()
	rng := el.expr.Range().Ptr()
	if mapping.IsProgram(v) {
		return "", hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Program must be fixed",
			Detail:   "command[0], the program to run, is resolved when the configuration loads, so it cannot be an expr(…) program. The arguments after it may be.",
			Subject:  rng,
		}}
	}
	s, err := convert.Convert(v, cty.String)
	if err != nil || s.IsNull() {
		return "", hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid program",
			Detail:   fmt.Sprintf("command[0] must be the name or path of the program to run, a string; got %s.", friendly(v)),
			Subject:  rng,
		}}
	}
	if s.AsString() == "" {
		return "", hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid program",
			Detail:   "command[0] must be the name or path of the program to run; it is empty.",
			Subject:  rng,
		}}
	}
	return s.AsString(), nil
}

// errNotFound marks a program that does not exist.
var errNotFound = errors.New("not found")

// notFound is an error that says why a program was not found.
type notFound struct{ msg string }

func (e notFound) Error() string        { return e.msg }
func (e notFound) Is(target error) bool { return target == errNotFound }

// resolveProgram finds the program to run: a name is looked up in PATH, a
// path is taken relative to base, the directory of the file.
func resolveProgram(name, base string) (string, error) {
	if strings.ContainsRune(name, 0) {
		return "", fmt.Errorf("the program name %q holds a NUL byte", name)
	}
	if strings.Contains(name, "/") || (filepath.Separator == '\\' && strings.Contains(name, `\`)) {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(base, p)
		}
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return "", fmt.Errorf("the program %s cannot be run: it is a directory", p)
		}
		if _, err := exec.LookPath(p); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return "", notFound{fmt.Sprintf("the program %s does not exist", p)}
			}
			return "", fmt.Errorf("the program %s cannot be run: %s", p, lookError(err))
		}
		return p, nil
	}
	p, err := exec.LookPath(name)
	if err != nil {
		path := os.Getenv("PATH")
		switch {
		case errors.Is(err, exec.ErrDot):
			return "", fmt.Errorf("%q was found only in a relative directory of PATH (%s), which is not trusted; write its path instead, such as \"./%s\"", name, path, name)
		case errors.Is(err, exec.ErrNotFound) && path == "":
			return "", notFound{fmt.Sprintf("%q cannot be looked up: the server has no PATH; write the program's absolute path instead", name)}
		case errors.Is(err, exec.ErrNotFound):
			return "", notFound{fmt.Sprintf("%q was not found in any directory of PATH (%s); install it, or write the program's absolute path", name, path)}
		}
		return "", fmt.Errorf("%q cannot be run: %s", name, lookError(err))
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return p, nil
}

// lookError words why exec.LookPath refused a path.
func lookError(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file"
	case errors.Is(err, fs.ErrPermission):
		return "it is not executable"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err.Error()
	}
	return err.Error()
}

// resolveDir checks the working directory, relative to base.
func resolveDir(dir, base string) (string, error) {
	if dir == "" {
		return "", fmt.Errorf("dir is empty; leave it out to run in the directory of the file")
	}
	p := dir
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("the directory %s does not exist", p)
	case err != nil:
		return "", fmt.Errorf("the directory %s cannot be used: %s", p, lookError(err))
	case !fi.IsDir():
		return "", fmt.Errorf("%s is not a directory", p)
	}
	return p, nil
}

// decodeEnv decodes env, a map whose values may be programs. ok is false
// when the value refers to something broken.
func (a *action) decodeEnv(ctx *engine.DecodeContext, attr *hcl.Attribute) (ok bool, diags hcl.Diagnostics) {
	v, diags := ctx.Value(attr.Expr)
	if diags.HasErrors() {
		return true, diags
	}
	keys, values, isMap := mapping.Fields(v)
	if !isMap {
		c, fixed := mapping.IsConst(v)
		if fixed && c == nil {
			return true, diags // null: nothing to add
		}
		return true, append(diags, errorf(attr.Expr.Range(), "Invalid env",
			`env must be a map of variable names to values, such as { LANG = "C.UTF-8", TOKEN = var.token }; its values may be expr(…) programs, the map itself may not.`))
	}
	ranges := mapRanges(ctx, attr.Expr)
	for i, name := range keys {
		rng, found := ranges[name]
		if !found {
			rng = [2]hcl.Range{attr.Expr.Range(), attr.Expr.Range()}
		}
		if name == "" || strings.ContainsAny(name, "=\x00") {
			diags = append(diags, errorf(rng[0], "Invalid environment variable name",
				"%q cannot name an environment variable: a name is not empty and holds neither \"=\" nor a NUL byte.", name))
			continue
		}
		if c, fixed := mapping.IsConst(values[i]); fixed {
			s, set, err := envValue(c)
			if err != nil {
				diags = append(diags, errorf(rng[1], "Invalid environment value", "env %s %s.", name, err))
				continue
			}
			if set {
				a.env = append(a.env, name+"="+s)
			}
			continue
		}
		if rt := mapping.ResultType(values[i]); rt != nil && !mapping.ScalarKind(rt.Kind()) {
			diags = append(diags, errorf(rng[1], "Invalid environment value",
				"env %s always yields %s, but an environment value must be a string, a number or a bool (or null, to leave it out).", name, mapping.KindName(rt)))
			continue
		}
		a.envVars = append(a.envVars, envVar{name: name, value: values[i], where: where(rng[1])})
		a.dynamic = true
	}
	return true, diags
}

// mapRanges finds, in a map written out in the file, the ranges of each
// entry's key and value, by key.
func mapRanges(ctx *engine.DecodeContext, e hcl.Expression) map[string][2]hcl.Range {
	pairs, diags := hcl.ExprMap(e)
	if diags.HasErrors() {
		return nil
	}
	out := make(map[string][2]hcl.Range, len(pairs))
	for _, p := range pairs {
		k, diags := p.Key.Value(ctx.EvalContext)
		if diags.HasErrors() || !k.IsKnown() || k.IsNull() || k.Type() != cty.String {
			continue
		}
		out[k.AsString()] = [2]hcl.Range{p.Key.Range(), p.Value.Range()}
	}
	return out
}

// argKind reports whether a program yielding values of type t can make
// arguments.
func argKind(t reflect.Type) bool {
	return mapping.ScalarKind(t.Kind()) || t.Kind() == reflect.Slice || t.Kind() == reflect.Array
}

// friendly names the type of a load-time value for people.
func friendly(v cty.Value) string {
	if v.IsNull() {
		return "null"
	}
	return v.Type().FriendlyName()
}

// where is the file:line of r, for messages.
func where(r hcl.Range) string {
	return fmt.Sprintf("%s:%d", r.Filename, r.Start.Line)
}

// errorf is an error diagnostic.
var errorf = spec.Errorf
