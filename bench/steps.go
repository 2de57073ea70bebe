package main

import (
	"fmt"
	"log"
	"strings"
	"time"
)

// The steps workload compares a three-step tool with the three one-step
// tools that do its steps' work: chain runs slideshow's request, item's
// statement and echo_author's request, the last reading the first's
// result; its outputs are theirs together. Issue #36's target: the
// three-step tool's server CPU per call is at most the sum of the three
// tools' plus 10%.

// work is what a one-step tool does, which a step of chain does again:
// an action block, its error_if, and the outputs read from its result.
type work struct {
	action  string // the action block, indented as a tool's body has it
	errorIf string // an expr program; "" for none
	outputs []workOutput
}

// workOutput is an output of a work: value is an expr program that reads
// the action's result (body, rows).
type workOutput struct{ name, typ, value string }

// slideshowWork is slideshow's: go-httpbin's /json, whose slideshow's
// author, date and title it reads.
var slideshowWork = work{
	action: `http {
  api  = http_api.up
  path = "/json"
}`,
	outputs: []workOutput{
		{"author", "string", "body.slideshow.author"},
		{"date", "string", "body.slideshow.date"},
		{"title", "string", "body.slideshow.title"},
	},
}

// itemWork is item's: one row of the seeded table by args.id.
var itemWork = work{
	action: `sql {
  database = database.shop
  query    = "` + itemQuery + `"
  params   = [expr("args.id")]
}`,
	errorIf: "len(rows) == 0",
	outputs: []workOutput{
		{"name", "string", "rows[0].name"},
		{"price", "number", "rows[0].price"},
	},
}

// echoWork is echo_author's: author, an expr program, sent to
// go-httpbin's /anything and read back.
func echoWork(author string) work {
	return work{
		action: `http {
  api   = http_api.up
  path  = "/anything"
  query = { author = expr("` + author + `") }
}`,
		outputs: []workOutput{{"echoed", "string", "body.args.author[0]"}},
	}
}

// tool is the one-step tool name doing w, with a description, its
// arguments' blocks and an error_message ("" for none).
func (w work) tool(name, description, args, errorMessage string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\ntool %q {\n  description = %q\n", name, description)
	if args != "" {
		b.WriteString("  " + args + "\n")
	}
	w.writeAction(&b, "  ")
	if errorMessage != "" {
		fmt.Fprintf(&b, "  error_message = expr(%q)\n", errorMessage)
	}
	w.writeOutputs(&b, "")
	b.WriteString("}\n")
	return b.String()
}

// writeAction writes w's action block and error_if, indented by indent.
func (w work) writeAction(b *strings.Builder, indent string) {
	b.WriteString(indent + strings.ReplaceAll(w.action, "\n", "\n"+indent) + "\n")
	if w.errorIf != "" {
		fmt.Fprintf(b, "%serror_if = expr(%q)\n", indent, w.errorIf)
	}
}

// writeOutputs writes w's output blocks, their programs reading the
// result at from ("" for the tool's own action, "steps.NAME." for a
// step's).
func (w work) writeOutputs(b *strings.Builder, from string) {
	for _, o := range w.outputs {
		fmt.Fprintf(b, "  output %q {\n    type  = %s\n    value = expr(%q)\n  }\n", o.name, o.typ, from+o.value)
	}
}

// stepsTools are mcpdecl's tools of the steps workload besides slideshow
// and item, which the configuration has already: echo_author, and chain,
// whose three steps do the work of slideshow, item and echo_author, the
// last sending the author the first read.
func stepsTools() string {
	steps := []struct {
		name string
		work work
	}{{"show", slideshowWork}, {"item", itemWork}, {"echo", echoWork("steps.show.body.slideshow.author")}}
	var b strings.Builder
	b.WriteString(echoWork("args.author").tool("echo_author", "Sends an author to go-httpbin's /anything and reads it back.", `arg "author" { type = string }`, ""))
	b.WriteString("\ntool \"chain\" {\n  description = \"The slideshow, one item by its id, and the slideshow's author sent back: three steps.\"\n  arg \"id\" { type = integer }\n")
	for _, s := range steps {
		fmt.Fprintf(&b, "  step %q {\n", s.name)
		s.work.writeAction(&b, "    ")
		b.WriteString("  }\n")
	}
	for _, s := range steps {
		s.work.writeOutputs(&b, "steps."+s.name+".")
	}
	b.WriteString("}\n")
	return b.String()
}

// stepsOneStep are the one-step tools whose work chain's steps do, and
// chain itself, in the order of a round.
var (
	stepsOneStep = []call{
		{tool: "slideshow"},
		{tool: "item", args: map[string]any{"id": 42}},
		{tool: "echo_author", args: map[string]any{"author": "Yours Truly"}},
	}
	stepsChain = call{tool: "chain", args: map[string]any{"id": 42}}
)

// stepsResult is the steps workload over one transport: mcpdecl's samples
// of each tool, one per round.
type stepsResult struct {
	transport string
	conc      int
	calls     int
	samples   map[string][]sample // by tool
}

// runSteps runs the steps workload: in each round, over each transport,
// the three one-step tools and the three-step one, each on a fresh
// mcpdecl server, in an order that rotates each round.
func runSteps(st *setup, o options) ([]*stepsResult, error) {
	srv := st.servers(10)[0]
	calls := append(append([]call{}, stepsOneStep...), stepsChain)
	var out []*stepsResult
	for _, transport := range []string{"stdio", "http"} {
		res := &stepsResult{transport: transport, conc: 8, calls: o.calls, samples: map[string][]sample{}}
		for round := range o.rounds {
			for k := range calls {
				c := calls[(k+round)%len(calls)]
				log.Printf("steps %s, %s, concurrency %d, round %d/%d", c.tool, transport, res.conc, round+1, o.rounds)
				smp, err := run(srv, transport == "http", c, res.calls, res.conc, runOpts{})
				if err != nil {
					return nil, fmt.Errorf("steps %s over %s: %w", c.tool, transport, err)
				}
				res.samples[c.tool] = append(res.samples[c.tool], smp)
			}
		}
		out = append(out, res)
	}
	return out, nil
}

// sumCPU is the sum of the one-step tools' CPU per call in round i.
func (x *stepsResult) sumCPU(i int) float64 {
	var sum float64
	for _, c := range stepsOneStep {
		sum += cpu(x.samples[c.tool][i])
	}
	return sum
}

// ratio is the median over rounds of the three-step tool's CPU per call
// over the sum of the one-step tools' in the same round.
func (x *stepsResult) ratio() float64 {
	var v []float64
	for i, s := range x.samples[stepsChain.tool] {
		if d := x.sumCPU(i); d > 0 {
			v = append(v, cpu(s)/d)
		}
	}
	return medianOf(v)
}

// stepsTarget is issue #36's bound on the ratio.
const stepsTarget = 1.10

// stepsTargets writes the steps workload's rows of the targets table.
func (r *report) stepsTargets(b *strings.Builder) {
	for _, x := range r.steps {
		ratio := x.ratio()
		var parts []string
		var sum float64
		for _, c := range stepsOneStep {
			m := median(x.samples[c.tool]).cpuPerCall
			sum += float64(m)
			parts = append(parts, fmt.Sprintf("`%s` %s", c.tool, ms(m)))
		}
		fmt.Fprintf(b, "| a three-step tool (http, sql, http) costs ≤ the sum of its three one-step tools + 10%% of server CPU per call, over %s at concurrency %d | %.2f× (`chain` %s vs %s = %s) | %s |\n",
			x.transport, x.conc, ratio, ms(median(x.samples[stepsChain.tool]).cpuPerCall), strings.Join(parts, " + "), ms(time.Duration(sum)), verdict(ratio <= stepsTarget))
	}
}

// stepsTable writes the steps workload's section.
func (r *report) stepsTable(b *strings.Builder) {
	if len(r.steps) == 0 {
		return
	}
	b.WriteString("\n## Multi-step tools\n\nA three-step tool, `chain` (`bench/steps.go`): go-httpbin's `/json` as `slideshow` GETs it, one row of the SQLite table by its id as `item` reads it, and go-httpbin's `/anything` with the slideshow's author as `echo_author` sends it, its outputs those of the three together; against the three one-step tools, each run on a fresh mcpdecl server, next to each other in every round. The ratio is the median over rounds of `chain`'s server CPU per call over the sum of the three tools' in the same round. Target (#36): ≤ 1.10×. One call of `chain` saves two calls' protocol work, which the sum counts three times.\n\n")
	tableHead(b, []string{"transport", "concurrency", "calls", "`slideshow`", "`item`", "`echo_author`", "sum", "`chain`", "chain ÷ sum", "≤ 1.10×", "calls/s `chain`", "calls/s `slideshow`"})
	for _, x := range r.steps {
		med := func(tool string) sample { return median(x.samples[tool]) }
		var sum float64
		for _, c := range stepsOneStep {
			sum += float64(med(c.tool).cpuPerCall)
		}
		ratio := x.ratio()
		fmt.Fprintf(b, "| %s | %d | %d | %s | %s | %s | %s | %s | %.2f× | %s | %.0f | %.0f |\n", x.transport, x.conc, x.calls,
			ms(med("slideshow").cpuPerCall), ms(med("item").cpuPerCall), ms(med("echo_author").cpuPerCall), ms(time.Duration(sum)),
			ms(med(stepsChain.tool).cpuPerCall), ratio, verdict(ratio <= stepsTarget), med(stepsChain.tool).callsPerSec, med("slideshow").callsPerSec)
	}
}

// stepsBenchTarget writes the Go benchmark's row of the target: a tool of
// three HTTP steps against three calls of the one-step tool, in process.
func (r *report) stepsBenchTarget(b *strings.Builder) {
	one, ok1 := r.bench("./engine/load/", "BenchmarkCallHTTP")
	three, ok3 := r.bench("./engine/load/", "BenchmarkCallHTTPSteps3")
	if !ok1 || !ok3 {
		return
	}
	ratio := three.nsOp / (3 * one.nsOp)
	fmt.Fprintf(b, "| the same in process: three HTTP steps ≤ three calls of the one-step tool + 10%% (`BenchmarkCallHTTPSteps3` vs 3 × `BenchmarkCallHTTP`) | %.2f× (%s vs 3 × %s; %.0f vs 3 × %.0f allocs) | %s |\n",
		ratio, nsText(three.nsOp), nsText(one.nsOp), three.allocs, one.allocs, verdict(ratio <= stepsTarget))
}
