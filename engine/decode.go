package engine

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// SensitiveMark is the cty mark carried by values derived from sensitive
// variables.
const SensitiveMark = "sensitive"

// DecodeContext is what an adapter has at hand while it decodes a block.
type DecodeContext struct {
	// EvalContext evaluates load-time expressions: var.*, local.*, upstream
	// references such as http_api.name, and the functions, expr() included.
	EvalContext *hcl.EvalContext
	// Env is what programs in the block may read: in an action block, args.
	Env mapping.Env
	// Settings are the server-wide defaults.
	Settings Settings
	// Redactor knows the values of the sensitive variables; adapters may add
	// secrets of their own.
	Redactor *text.Redactor
	// Dir is the directory of the file being decoded, for relative paths.
	Dir string
	// Logger receives what an upstream logs while it serves, such as a
	// database's init running; nil discards it.
	Logger *slog.Logger
	// Record, when not nil, is told the path of every file read with
	// ReadFile, read or not, so that serve --watch reloads when one
	// changes.
	Record func(path string)
	// HowToSet, when not nil, says how a user gives a value to what a
	// load-time expression reads, for a message about an empty one: "set
	// the environment variable GITHUB_TOKEN" for var.token whose default is
	// env("GITHUB_TOKEN"). It returns "" when it cannot tell.
	HowToSet func(e hcl.Expression) string
	// ReadsCaller is set when a program compiled by Value reads the
	// caller variable: the tool then gives its programs the caller.
	// CallerRead is where the first such program is written.
	ReadsCaller bool
	CallerRead  hcl.Range
	// Scopes, when not nil, shares compiled programs between the
	// DecodeContexts of one load (see [mapping.Scopes]).
	Scopes *mapping.Scopes
	// Compiled, when not nil, is told of every expression Compile
	// compiles, with the Env its programs read and what it compiled to
	// (nil when a program does not compile): for an editor, which
	// completes and describes what a program reads. It may be called from
	// several goroutines at once.
	Compiled func(e hcl.Expression, env mapping.Env, v mapping.Value)

	// scope is Env made ready for compiling, made again when Env is
	// replaced.
	scope *mapping.Scope
}

// ReadFile reads a file that a block names, such as a CA certificate:
// path is relative to the directory of the file being decoded, and the
// file is read as configuration files are (see [ReadConfigFile]) and
// recorded for watching, even when it cannot be read, so that a watcher
// reloads once it appears or is fixed. It returns the path resolved, for
// messages.
func (c *DecodeContext) ReadFile(path string) ([]byte, string, error) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(c.Dir, path)
	}
	if c.Record != nil {
		c.Record(path)
	}
	b, err := ReadConfigFile(path)
	return b, path, err
}

// Eval evaluates a load-time expression. The value may still carry marks,
// such as the one of values derived from sensitive variables.
func (c *DecodeContext) Eval(e hcl.Expression) (cty.Value, hcl.Diagnostics) {
	v, diags := e.Value(c.EvalContext)
	if diags.HasErrors() {
		return cty.DynamicVal, diags
	}
	if mapping.IsProgram(unmarked(v)) {
		return cty.DynamicVal, append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Program not allowed here",
			Detail:   "This value is fixed when the configuration loads, so it cannot be an expr(…) program. Write a plain value, or use a variable.",
			Subject:  e.Range().Ptr(),
		})
	}
	return v, diags
}

// Value evaluates an expression that may mix literals and expr(…) programs
// into a [mapping.Value], compiling the programs against c.Env. Env must
// not change while it is c.Env: give it a new map instead.
func (c *DecodeContext) Value(e hcl.Expression) (mapping.Value, hcl.Diagnostics) {
	v, diags := e.Value(c.EvalContext)
	if diags.HasErrors() {
		return nil, diags
	}
	if !v.IsWhollyKnown() {
		// It refers to a value whose errors were already reported.
		return mapping.Const(nil), diags
	}
	m, more := c.Compile(v, e)
	return m, append(diags, more...)
}

// Compile compiles v, the value of e evaluated already, into a
// [mapping.Value], as [DecodeContext.Value] does.
func (c *DecodeContext) Compile(v cty.Value, e hcl.Expression) (mapping.Value, hcl.Diagnostics) {
	if c.scope == nil || !c.scope.Of(c.Env) {
		if c.Scopes != nil {
			c.scope = c.Scopes.Scope(c.Env)
		} else {
			c.scope = mapping.NewScope(c.Env)
		}
	}
	m, diags := c.scope.Compile(v, e)
	if c.Compiled != nil && e != nil {
		c.Compiled(e, c.Env, m)
	}
	if m != nil && mapping.Reads(m, "caller") {
		if !c.ReadsCaller && e != nil {
			c.CallerRead = e.Range()
		}
		c.ReadsCaller = true
	}
	return m, diags
}

// String evaluates a load-time expression that must be a string.
func (c *DecodeContext) String(e hcl.Expression) (string, hcl.Diagnostics) {
	v, diags := c.Typed(e, cty.String, "a string")
	if diags.HasErrors() || v.IsNull() {
		return "", diags
	}
	return v.AsString(), diags
}

// Int evaluates a load-time expression that must be a whole number.
func (c *DecodeContext) Int(e hcl.Expression) (int64, hcl.Diagnostics) {
	v, diags := c.Typed(e, cty.Number, "a whole number")
	if diags.HasErrors() || v.IsNull() {
		return 0, diags
	}
	i, d := WholeNumber(v, e.Range())
	if d != nil {
		return 0, append(diags, d)
	}
	return i, diags
}

// WholeNumber reads v, a known number written at rng, as a whole number,
// or returns the error that says it is not one.
func WholeNumber(v cty.Value, rng hcl.Range) (int64, *hcl.Diagnostic) {
	i, acc := v.AsBigFloat().Int64()
	if acc != 0 {
		return 0, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid number",
			Detail:   fmt.Sprintf("This must be a whole number; got %s.", v.AsBigFloat().String()),
			Subject:  rng.Ptr(),
		}
	}
	return i, nil
}

// Bool evaluates a load-time expression that must be true or false.
func (c *DecodeContext) Bool(e hcl.Expression) (bool, hcl.Diagnostics) {
	v, diags := c.Typed(e, cty.Bool, "true or false")
	if diags.HasErrors() || v.IsNull() {
		return false, diags
	}
	return v.True(), diags
}

// Duration evaluates a load-time expression that must be a duration such as
// "10s" or "1m30s".
func (c *DecodeContext) Duration(e hcl.Expression) (time.Duration, hcl.Diagnostics) {
	s, diags := c.String(e)
	if diags.HasErrors() {
		return 0, diags
	}
	d, bad := DurationAt(s, e.Range())
	if bad != nil {
		return 0, append(diags, bad)
	}
	return d, diags
}

// DurationAt reads s, written at rng, as [ParseDuration] does, or returns
// the error that says what is expected.
func DurationAt(s string, rng hcl.Range) (time.Duration, *hcl.Diagnostic) {
	d, err := ParseDuration(s)
	if err != nil {
		return 0, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid duration",
			Detail:   err.Error(),
			Subject:  rng.Ptr(),
		}
	}
	return d, nil
}

// ParseDuration reads a positive duration such as "500ms", "10s" or "2m",
// with an error that says what is expected.
func ParseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration; write a number with a unit, such as \"500ms\", \"10s\" or \"2m\"", s)
	}
	return d, nil
}

// Upstream evaluates a reference to a top-level block of the given kind,
// such as http_api.weather, and returns what its adapter decoded. It
// returns nil and no diagnostics when the block referred to has errors of
// its own, already reported: the caller should then decode the rest of its
// block, to report every error, and return no action.
func (c *DecodeContext) Upstream(e hcl.Expression, kind string) (any, hcl.Diagnostics) {
	v, diags := e.Value(c.EvalContext)
	if diags.HasErrors() {
		return nil, diags
	}
	if !v.IsWhollyKnown() {
		return nil, diags
	}
	if ref, ok := UpstreamOf(v, kind); ok {
		return ref, diags
	}
	return nil, append(diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Invalid reference",
		Detail:   fmt.Sprintf("This must refer to %s block by its name, like %s.example.", text.WithArticle(kind), kind),
		Subject:  e.Range().Ptr(),
	})
}

// Typed evaluates a load-time expression and converts it to ty, unmarked;
// what names ty in the error, as in "a string". A value that derives from
// one with errors comes back null with an error that
// [FollowsFromError] recognizes.
func (c *DecodeContext) Typed(e hcl.Expression, ty cty.Type, what string) (cty.Value, hcl.Diagnostics) {
	v, diags := c.Eval(e)
	if diags.HasErrors() {
		return v, diags
	}
	v = unmarked(v)
	if !v.IsKnown() {
		// It derives from a value whose errors were already reported: no
		// check of it can be right, so none is made.
		return cty.NullVal(ty), append(diags, followsFrom(e.Range()))
	}
	cv, err := convert.Convert(v, ty)
	if err != nil {
		return cty.NullVal(ty), append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Incorrect value type",
			Detail:   fmt.Sprintf("This must be %s; got %s.", what, v.Type().FriendlyName()),
			Subject:  e.Range().Ptr(),
		})
	}
	return cv, diags
}

func unmarked(v cty.Value) cty.Value {
	v, _ = v.UnmarkDeep()
	return v
}

// followsError marks, in a diagnostic's Extra, an error that only follows
// from another one already reported (see [FollowsFromError]).
type followsError struct{}

// followsFrom is the error of a value that is unknown at rng because what it
// derives from failed: a variable without a value, a local or a block with
// errors. It makes the decoder skip the checks of the value; the load leaves
// it out of what it reports.
func followsFrom(rng hcl.Range) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Value not known",
		Detail:   "This value derives from one that has errors, reported with it; fix those first.",
		Subject:  rng.Ptr(),
		Extra:    followsError{},
	}
}

// FollowsFromError reports whether d is an error that only follows from
// another one, already reported: a check skipped because the value it
// checks derives from a variable, a local or a block that failed. Such a
// diagnostic fails the load, but need not be shown.
func FollowsFromError(d *hcl.Diagnostic) bool {
	_, ok := d.Extra.(followsError)
	return ok
}
