package load

import (
	"slices"

	"github.com/expr-lang/expr/types"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/spec"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// maxStepItems bounds a step's max_items: what for_each may run per call.
const maxStepItems = 10000

// stepSpec is the step block of a tool: one action of any kind, run after
// the steps before it. Its action block is declared by its adapter (see
// loader.withActions).
var stepSpec = &spec.Block{
	Name:    "step",
	In:      "tool",
	Labels:  []string{"name"},
	Summary: "One step of a multi-step tool: an action run after the steps before it, whose programs read their results.",
	Doc: "A tool declares either one action or an ordered list of steps, each with one action block (http, graphql, exec or sql). " +
		"A step's programs read args, caller and the results of the steps before it as steps.<name> (its action's variables: steps.customer.body, steps.orders.rows), typed, so that reading a step that comes later, or a field a step does not produce, is a load error. " +
		"The tool's outputs, text and content read every step. A step whose when is false is skipped, its result null. " +
		"With for_each, the step runs once per item of a list, reading each.value and each.index, at most max_concurrency at once; its result is the list of the runs' results, in the items' order. " +
		"A step that fails (its action's rule, or its error_if) fails the call with a message that names it, and the steps after it do not run. " +
		"The tool is read-only only when every step is.",
	Example: `http_api "shop" {
  base_url = "https://shop.example.com/api"
}

tool "open_orders" {
  description = "The open orders of a customer, by e-mail."
  arg "email" {
    type = string
  }
  step "customer" {
    http {
      api   = http_api.shop
      path  = "/customers"
      query = { email = expr("args.email") }
    }
  }
  step "orders" {
    for_each  = expr("steps.customer.body.order_ids")
    max_items = 50
    http {
      api         = http_api.shop
      path        = "/orders/{id}"
      path_params = { id = expr("string(each.value)") }
    }
  }
  output "orders" {
    type  = list(any)
    value = expr("filter(map(steps.orders, .body), .status == 'open')")
  }
}`,
	Attrs: []*spec.Attr{
		spec.Expr("when", "decides, per call, whether the step runs: an expr() program yielding a bool; a skipped step's result is null").Unevaluated(),
		spec.Expr("for_each", "runs the step once per item of the list an expr() program yields; the step's programs read each.value and each.index").Unevaluated(),
		spec.Int("max_items", "bounds the items of for_each: a call whose list is longer fails; required with for_each").Range(1, maxStepItems),
		spec.Int("max_concurrency", "bounds the runs of for_each under way at once").Range(1, 64).WithDefault(int64(4)),
		spec.Expr("error_if", "decides whether the step failed, replacing its action's rule: an expr() program that also reads the step's own result").Unevaluated(),
	},
}

// steps decodes the step blocks of a tool into its action, and returns the
// type of the steps variable that the tool's outputs read. env is what the
// tool's action would see: args, caller, and confirm when it asks.
func (l *loader) steps(ctx *engine.DecodeContext, blocks hcl.Blocks, bodySpec *spec.Block, env mapping.Env) (engine.Action, types.Map) {
	done := types.Map{} // the steps decoded so far, by name
	var steps []engine.Step
	seen := map[string]hcl.Range{}
	broken := false
	for _, b := range blocks {
		name := b.Labels[0]
		if !hclsyntax.ValidIdentifier(name) {
			l.error(b.LabelRanges[0], "Invalid step name", "%q cannot be read as steps.%s: a step's name is a letter or an underscore, then letters, digits and underscores.", name, name)
			broken = true
		}
		if first, ok := seen[name]; ok {
			l.error(b.LabelRanges[0], "Duplicate step", "A step named %q is declared at %s: steps are read by name, so give each its own.", name, first)
			broken = true
		}
		seen[name] = b.DefRange

		// What the step's programs read: the steps before it, not itself
		// nor those after it.
		before := types.Map{}
		for k, t := range done {
			before[k] = t
		}
		stepEnv := mapping.Env{"steps": before}
		for k, t := range env {
			stepEnv[k] = t
		}
		ctx.Env = stepEnv
		v, diags := bodySpec.Decode(b.Body, ctx)
		l.diags = append(l.diags, diags...)
		st := engine.Step{Name: name, MaxConcurrency: int(v.Int("max_concurrency")), MaxItems: int(v.Int("max_items"))}
		st.When = l.stepProgram(ctx, v, "when")
		st.ForEach = l.stepProgram(ctx, v, "for_each")
		if v.Written("for_each") && !v.Has("max_items") {
			l.error(v.Attr("for_each").NameRange, "Missing max_items",
				"A step with for_each needs max_items, the most items it runs per call (at most %d), so that a long list cannot run it without end: add max_items = 100, or the bound that fits.", maxStepItems)
		}
		if v.Written("max_items") && !v.Written("for_each") {
			l.error(v.Attr("max_items").NameRange, "max_items without for_each", "max_items bounds the items of for_each, which this step does not have: remove it, or add for_each.")
		}
		actionEnv := stepEnv
		if v.Written("for_each") {
			actionEnv = mapping.Env{"each": types.Map{"value": types.Any, "index": types.Int}}
			for k, t := range stepEnv {
				actionEnv[k] = t
			}
		}
		ctx.Env = actionEnv

		var actions hcl.Blocks
		for _, kind := range l.opts.Registry.ActionKinds() {
			actions = append(actions, v.Blocks(kind)...)
		}
		slices.SortFunc(actions, func(x, y *hcl.Block) int { return x.DefRange.Start.Byte - y.DefRange.Start.Byte })
		if len(actions) == 0 {
			l.error(b.DefRange, "Missing action", "A step runs one action: add an %s block.", text.Or(l.opts.Registry.ActionKinds()))
			broken = true
		}
		var result types.Type = types.Map{}
		fields := result.(types.Map)
		for i, ab := range actions {
			if i > 0 {
				l.error(ab.DefRange, "More than one action", "This step already has %s action at %s. A step runs one action; make it two steps.", text.WithArticle(actions[0].Type), actions[0].DefRange)
				continue
			}
			adapter, _ := l.opts.Registry.Action(ab.Type)
			action, diags := adapter.DecodeAction(ctx, ab)
			l.diags = append(l.diags, diags...)
			if action == nil {
				// Said already: what reads this step is not to blame.
				broken, result = true, types.Any
				continue
			}
			st.Action = action
			for k, t := range adapter.Result() {
				fields[k] = t
			}
			if rt, ok := action.(engine.ResultTyper); ok {
				for k, t := range rt.ResultTypes() {
					fields[k] = t
				}
			}
		}
		if a := v.Attr("error_if"); a != nil {
			errEnv := mapping.Env{}
			for k, t := range actionEnv {
				errEnv[k] = t
			}
			for k, t := range fields {
				errEnv[k] = t
			}
			ctx.Env = errEnv
			p, diags := ctx.Value(a.Expr)
			l.diags = append(l.diags, diags...)
			st.ErrorIf = p
		}
		if v.Written("for_each") {
			done[name] = types.Array(result)
		} else {
			done[name] = result
		}
		steps = append(steps, st)
	}
	ctx.Env = env
	if broken {
		return nil, done
	}
	return engine.NewSteps(steps), done
}

// stepProgram compiles a step's when or for_each, which read the steps
// before it but not each.
func (l *loader) stepProgram(ctx *engine.DecodeContext, v *spec.Values, name string) mapping.Value {
	a := v.Attr(name)
	if a == nil {
		return nil
	}
	p, diags := ctx.Value(a.Expr)
	l.diags = append(l.diags, diags...)
	return p
}
