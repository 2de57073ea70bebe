package load

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// variableSpec is the variable block.
var variableSpec = &spec.Block{
	Name:    "variable",
	Labels:  []string{"name"},
	Summary: "A load-time input, read as var.NAME.",
	Doc: "A value given with --var name=value wins over the environment variable MCPDECL_VAR_name " +
		"(or the same name in an --env-file), which wins over default. A variable with neither is a load error. " +
		"Values of non-string variables are written as HCL (42, [\"a\", \"b\"]).",
	Example: `variable "api_key" {
  type        = string
  default     = env("WEATHER_API_KEY")
  description = "The key of the weather API."
  sensitive   = true
}`,
	Attrs: []*spec.Attr{
		spec.TypeConstraint("type", "is an HCL type: string, number, bool, list(T), map(T), object({…}), any").DefaultIs("any"),
		spec.Any("default", `is the value when none is given; it may call functions, such as env("KEY"), but reads no other variable`).Unevaluated(),
		spec.String("description", "says what the variable is for"),
		spec.Bool("sensitive", "keeps the value, and anything derived from it, out of logs, errors, listings and what clients see").WithDefault(false),
	},
}

// variables decodes the variable blocks, applies overrides, and makes the
// values available as var.<name>.
func (l *loader) variables() {
	vars := map[string]cty.Value{}
	for _, b := range l.checkUnique(l.blocks["variable"], "variable") {
		v, ok := l.variable(b)
		if !ok {
			v = cty.DynamicVal // already reported; unknown, so as not to report it again
		}
		vars[b.Labels[0]] = v
	}
	for _, name := range slices.Sorted(maps.Keys(l.opts.Vars)) {
		if _, ok := vars[name]; !ok && !l.declared(name) {
			detail := fmt.Sprintf("A value was given for variable %q with --var, but no variable block declares it.", name)
			if best := engine.Closest(name, l.variableNames()); best != "" {
				detail += fmt.Sprintf(" Did you mean %q?", best)
			} else {
				detail += fmt.Sprintf(" Declare it with variable %q { … }, or fix the name.", name)
			}
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Unknown variable",
				Detail:   detail,
			})
		}
	}
	l.checkValues()
	l.root.Variables["var"] = cty.ObjectVal(vars)
}

// declared reports whether a variable block of that name exists.
func (l *loader) declared(name string) bool {
	for _, b := range l.blocks["variable"] {
		if b.Labels[0] == name {
			return true
		}
	}
	return false
}

// variable decodes one variable block into its value.
func (l *loader) variable(b *hcl.Block) (cty.Value, bool) {
	name := b.Labels[0]
	if !hclsyntax.ValidIdentifier(name) {
		l.error(b.LabelRanges[0], "Invalid variable name", "%q is not a valid name: use letters, digits, underscores and dashes, starting with a letter.", name)
		return cty.NilVal, false
	}
	// Defaults may call functions, but see no other variable.
	ctx := &hcl.EvalContext{Functions: l.evalContext(b.DefRange.Filename).Functions}
	v, diags := variableSpec.Decode(b.Body, &engine.DecodeContext{EvalContext: ctx, Redactor: l.redactor})
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return cty.NilVal, false
	}
	ty, sensitive := v.Type("type"), v.Bool("sensitive")
	if sensitive {
		// The files its default reads are as secret as its value: the
		// cache namespace covers them through the value, as a secret
		// (see cache.Namespace).
		ctx.Functions = functions(filepath.Dir(b.DefRange.Filename), l.lookupEnv, func(path string, _ []byte, _ error) { l.recordFile(path) })
	}
	val, ok := l.variableValue(b, name, ty, v.Attr("default"), ctx)
	if !ok {
		return cty.NilVal, false
	}
	if sensitive {
		// Every leaf is a secret, whatever the variable's type: a map of
		// headers is as secret as a token.
		l.redactor.AddValue(val)
		val = val.Mark(engine.SensitiveMark)
		l.sensitive = true
	}
	return val, true
}

// variableValue picks the value of a variable: a given Value, --var, then the environment,
// then the default.
func (l *loader) variableValue(b *hcl.Block, name string, ty cty.Type, attr *hcl.Attribute, ctx *hcl.EvalContext) (cty.Value, bool) {
	if given, ok := l.opts.Values[name]; ok {
		v, err := convert.Convert(given.Value, ty)
		if err != nil {
			l.error(given.Range, "Invalid value for variable", "The value given for variable %q does not fit its type %s: %s.", name, typeexpr.TypeString(ty), err)
			return cty.NilVal, false
		}
		return v, true
	}
	if raw, ok := l.opts.Vars[name]; ok {
		return l.parseOverride(b, name, ty, raw, "--var "+name+"=…")
	}
	if raw, ok := l.opts.LookupEnv(EnvVarPrefix + name); ok {
		return l.parseOverride(b, name, ty, raw, "the environment variable "+EnvVarPrefix+name)
	}
	if attr == nil {
		l.error(b.DefRange, "No value for required variable",
			"Variable %q has no default. Give it a value with --var %s=VALUE or the environment variable %s%s, or add a default.", name, name, EnvVarPrefix, name)
		return cty.NilVal, false
	}
	v, diags := attr.Expr.Value(ctx)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return cty.NilVal, false
	}
	if l.defaults == nil {
		l.defaults = map[string]hcl.Expression{}
	}
	l.defaults[name] = attr.Expr
	cv, err := convert.Convert(v, ty)
	if err != nil {
		l.error(attr.Expr.Range(), "Invalid default value", "The default of variable %q does not fit its type %s: %s.", name, typeexpr.TypeString(ty), err)
		return cty.NilVal, false
	}
	return cv, true
}

// parseOverride reads a variable's value given as text: taken as is for a
// string (or untyped) variable, else parsed as an HCL expression.
func (l *loader) parseOverride(b *hcl.Block, name string, ty cty.Type, raw, from string) (cty.Value, bool) {
	if ty == cty.String || ty == cty.DynamicPseudoType {
		return cty.StringVal(raw), true
	}
	expr, diags := hclsyntax.ParseExpression([]byte(raw), from, hcl.InitialPos)
	var v cty.Value
	if !diags.HasErrors() {
		v, diags = expr.Value(nil)
	}
	if !diags.HasErrors() {
		var err error
		if v, err = convert.Convert(v, ty); err == nil {
			return v, true
		}
	}
	l.error(b.DefRange, "Invalid value for variable",
		"The value given by %s is not a valid %s. Write it as an HCL value, for example 42, true, [\"a\", \"b\"] or {k = \"v\"}.", from, typeexpr.TypeString(ty))
	return cty.NilVal, false
}

// howToSet says how a user gives a value to what e reads: the environment
// variables that e, or the default of a variable it reads, passes to env(),
// else --var for the variables it reads. See engine.DecodeContext.HowToSet.
func (l *loader) howToSet(e hcl.Expression) string {
	envs := envNames(e)
	var vars []string
	for _, tr := range e.Variables() {
		if tr.RootName() != "var" || len(tr) < 2 {
			continue
		}
		if a, ok := tr[1].(hcl.TraverseAttr); ok {
			vars = append(vars, a.Name)
			if d, ok := l.defaults[a.Name]; ok {
				envs = append(envs, envNames(d)...)
			}
		}
	}
	slices.Sort(envs)
	envs = slices.Compact(envs)
	switch {
	case len(envs) == 1:
		return "set the environment variable " + envs[0]
	case len(envs) > 1:
		return "set the environment variables " + strings.Join(envs, ", ")
	case len(vars) > 0:
		return fmt.Sprintf("give variable %q a value with --var %s=VALUE or the environment variable %s%s", vars[0], vars[0], EnvVarPrefix, vars[0])
	}
	return ""
}

// envNames are the names that e passes to env() as literal strings.
func envNames(e hcl.Expression) []string {
	var names []string
	se, ok := e.(hclsyntax.Expression)
	if !ok {
		return nil
	}
	_ = hclsyntax.VisitAll(se, func(n hclsyntax.Node) hcl.Diagnostics {
		call, ok := n.(*hclsyntax.FunctionCallExpr)
		if !ok || call.Name != "env" || len(call.Args) == 0 {
			return nil
		}
		if v, diags := call.Args[0].Value(nil); !diags.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
			names = append(names, v.AsString())
		}
		return nil
	})
	return names
}
