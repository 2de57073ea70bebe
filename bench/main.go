package main

import (
	"database/sql"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite"
)

func main() {
	calls := flag.Int("calls", 3000, "calls per run (the exec tool and large bodies make fewer, see the report)")
	rounds := flag.Int("rounds", 3, "runs of each server, alternated; the report gives medians")
	concList := flag.String("concurrency", "1,8,32", "concurrencies of the HTTP tool runs, comma-separated")
	quick := flag.Bool("quick", false, "a short run: 600 calls, 1 round, concurrency 8")
	out := flag.String("out", "BENCHMARKS.md", "the report to write; the chart goes next to it as bench/chart.svg (a run with -only or -quick writes under the temporary directory unless -out is given)")
	cpuprofile := flag.String("cpuprofile", "", "also take CPU profiles of every server under load (HTTP tool, concurrency 8, stdio and HTTP) into this directory")
	profileFor := flag.Duration("profile-for", 10*time.Second, "how long each profile samples")
	noGoBench := flag.Bool("no-gobench", false, "skip the Go benchmarks of the engine")
	before := flag.String("before", "", "also run mcpdecl as built from this git revision (such as main or a commit), side by side, to compare a change")
	observe := flag.Bool("observe", false, "also run mcpdecl with metrics on (--metrics-addr) and with traces on (every call sampled, sent over OTLP to a sink of the harness), on the main workloads")
	toolbox := flag.String("toolbox", "", "also compare with MCP Toolbox for Databases, this executable of it (built outside the repository)")
	only := flag.String("only", "", "run only these workloads, comma-separated: "+strings.Join(groups, ", ")+" (peer needs -toolbox); the report leaves the others out")
	flag.Parse()
	if *quick {
		*calls, *rounds, *concList = 600, 1, "8"
	}
	var concs []int
	for f := range strings.SplitSeq(*concList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			log.Fatalf("invalid -concurrency %q", *concList)
		}
		concs = append(concs, n)
	}
	// A partial run must not replace the report of a whole one: unless
	// -out says where, it writes next to the system's temporary files.
	outSet := false
	flag.Visit(func(f *flag.Flag) { outSet = outSet || f.Name == "out" })
	if !outSet && (*only != "" || *quick) {
		*out = filepath.Join(os.TempDir(), "mcpdecl-bench", "BENCHMARKS.md")
		if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
			log.Fatal(err)
		}
		log.Printf("a partial run (-only or -quick) leaves BENCHMARKS.md alone: its report goes to %s (-out chooses)", *out)
	}
	if _, err := os.Stat("go.mod"); err != nil {
		log.Fatal("run the harness from the root of the repository: go run ./bench")
	}
	opts := options{calls: *calls, rounds: *rounds, concs: concs, out: *out, profileDir: *cpuprofile, profileFor: *profileFor, gobench: !*noGoBench, before: *before, observe: *observe, toolbox: *toolbox}
	if *only != "" {
		opts.only = map[string]bool{}
		for g := range strings.SplitSeq(*only, ",") {
			g = strings.TrimSpace(g)
			if !slices.Contains(groups, g) {
				log.Fatalf("invalid -only %q: the workloads are %s", g, strings.Join(groups, ", "))
			}
			opts.only[g] = true
		}
		if opts.only["peer"] && *toolbox == "" {
			log.Fatal("-only peer needs -toolbox: the path of a Toolbox executable")
		}
	}
	if err := benchmark(opts); err != nil {
		log.Fatal(err)
	}
}

type options struct {
	calls, rounds int
	concs         []int
	out           string
	profileDir    string
	profileFor    time.Duration
	gobench       bool
	before        string // a git revision of mcpdecl to run too; "" for none
	observe       bool   // also run mcpdecl with metrics, and with traces
	toolbox       string // a Toolbox executable to compare with; "" for none
	only          map[string]bool
}

// groups are the workloads -only names.
var groups = []string{"main", "tools", "bodies", "steps", "peer", "examples", "inproc", "catalogue"}

// serving are the groups that run servers (or the SQLite database):
// without one of them, nothing is built or started.
var serving = []string{"main", "tools", "bodies", "steps", "peer", "examples", "inproc"}

// serves says whether some workload that runs servers is run.
func (o options) serves() bool {
	return slices.ContainsFunc(serving, o.runs)
}

// runs says whether the workloads of group are run.
func (o options) runs(group string) bool {
	if group == "peer" && o.toolbox == "" {
		return false
	}
	return o.only == nil || o.only[group]
}

// job is one workload: a call, how many, at what concurrency, with how
// many tools loaded.
type job struct {
	group, label, transport string
	c                       call
	calls, conc, tools      int
}

// setup is what the servers run against.
type setup struct {
	dir, upstream, db          string
	mcpdecl, baseline, patched string // binaries
	static                     string // mcpdecl built with CGO_ENABLED=0
	before                     string // mcpdecl built from options.before; "" for none
	toolbox                    string // options.toolbox, absolute
	otlp                       string // the OTLP sink's URL, with -observe
}

// The servers, in the order of the report.
const (
	mcpdeclName  = "mcpdecl"
	baselineName = "baseline"
	patchedName  = "baseline, patched SDK"
	beforeName   = "mcpdecl before"
	metricsName  = "mcpdecl +metrics"
	tracesName   = "mcpdecl +traces"
	// beforeTracesName is the -before revision with traces on, when the
	// harness runs with -observe too.
	beforeTracesName = "mcpdecl before +traces"
)

func benchmark(o options) error {
	started := time.Now()
	r := &report{opts: o, started: started}
	if o.runs("catalogue") {
		// In process, and first: it takes seconds.
		log.Printf("the size of tools/list: the examples and imported documents")
		var err error
		if r.catalogues, err = catalogues(); err != nil {
			return err
		}
	}
	if !o.serves() {
		// Only tables measured in process: no servers to build, and no
		// chart.
		r.elapsed = time.Since(started)
		return r.write(o.out, "")
	}
	dir, err := os.MkdirTemp("", "mcpdecl-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	st := &setup{dir: dir, mcpdecl: filepath.Join(dir, "mcpdecl"), baseline: filepath.Join(dir, "baseline"), patched: filepath.Join(dir, "baseline-patched"), static: filepath.Join(dir, "mcpdecl-static"), db: filepath.Join(dir, "shop.db")}
	log.Printf("building mcpdecl and the baselines into %s", dir)
	if err := buildAll(st); err != nil {
		return err
	}
	if o.before != "" {
		st.before = filepath.Join(dir, "mcpdecl-before")
		if err := buildRevision(o.before, filepath.Join(dir, "before-src"), st.before); err != nil {
			return err
		}
	}
	upstream, stop, err := startUpstream()
	if err != nil {
		return err
	}
	defer stop()
	st.upstream = upstream
	if o.observe {
		sink, stop, err := startOTLPSink()
		if err != nil {
			return err
		}
		defer stop()
		st.otlp = sink
	}
	if err := seed(st.db); err != nil {
		return err
	}
	for _, n := range []int{10, 100, 1000} {
		if err := os.WriteFile(st.config(n), []byte(config(st, n)), 0o600); err != nil {
			return err
		}
	}

	if o.runs("peer") {
		if st.toolbox, err = filepath.Abs(o.toolbox); err != nil {
			return err
		}
		if r.toolboxVersion, err = st.prepareToolbox(); err != nil {
			return err
		}
	}
	servers := func(tools int) []server { return st.servers(tools) }
	slideshow := call{tool: "slideshow"}
	echo := call{tool: "echo", args: map[string]any{"text": "hello"}}
	top := call{tool: "top"}

	var jobs []job
	for _, transport := range []string{"stdio", "http"} {
		for _, conc := range o.concs {
			jobs = append(jobs, job{"main", "HTTP tool", transport, slideshow, o.calls, conc, 10})
		}
		jobs = append(jobs, job{"main", "exec tool", transport, echo, max(o.calls/4, 50), 8, 10})
		jobs = append(jobs, job{"main", "SQLite tool", transport, top, o.calls, 8, 10})
	}
	for _, tools := range []int{10, 100, 1000} {
		jobs = append(jobs, job{"tools", fmt.Sprintf("%d tools", tools), "http", slideshow, o.calls, 8, tools})
	}
	for _, size := range []int{1 << 10, 100 << 10, 1 << 20} {
		n := o.calls
		switch size {
		case 100 << 10:
			n = max(o.calls/3, 50)
		case 1 << 20:
			n = max(o.calls/10, 50)
		}
		jobs = append(jobs, job{"bodies", human(size), "http", call{tool: "blob", args: map[string]any{"n": size}}, n, 8, 10})
	}
	jobs = append(jobs, peerJobs(o.calls)...)

	for _, j := range jobs {
		if !o.runs(j.group) {
			continue
		}
		ss := servers(j.tools)
		switch j.group {
		case "main":
			ss = append(ss, st.observed(j.tools)...)
		case "peer":
			ss = []server{ss[0], st.toolboxServer()}
		}
		res := &result{group: j.group, label: j.label, transport: j.transport, conc: j.conc, tools: j.tools, calls: j.calls, samples: map[string][]sample{}}
		for round := range o.rounds {
			// Rotate the order each round, so that neither server always
			// runs first after a change of workload.
			for k := range ss {
				s := ss[(k+round)%len(ss)]
				log.Printf("%s %s, %s, concurrency %d: %s, round %d/%d", j.group, j.label, j.transport, j.conc, s.name, round+1, o.rounds)
				smp, err := run(s, j.transport == "http", j.c, j.calls, j.conc, runOpts{})
				if err != nil {
					return fmt.Errorf("%s %s over %s: %w", j.group, j.label, j.transport, err)
				}
				res.samples[s.name] = append(res.samples[s.name], smp)
			}
		}
		r.results = append(r.results, res)
	}

	if o.runs("steps") {
		log.Printf("a three-step tool and its three one-step tools")
		if r.steps, err = runSteps(st, o); err != nil {
			return err
		}
	}

	if o.runs("examples") {
		log.Printf("the example configurations")
		if r.examples, err = runExamples(st, o); err != nil {
			return err
		}
	}

	if o.runs("inproc") {
		log.Printf("SQLite in process: the engine and raw database/sql")
		if r.inproc, err = sqlInProcess(st, o); err != nil {
			return err
		}
	}

	if o.profileDir != "" {
		if r.profiles, err = profileAll(st, o); err != nil {
			return err
		}
	}

	if o.gobench {
		log.Printf("running the Go benchmarks")
		r.gobench = goBenchmarks()
	}
	r.elapsed = time.Since(started)
	chart := filepath.Join(filepath.Dir(o.out), "bench", "chart.svg")
	return r.write(o.out, chart)
}

// config is the path of mcpdecl's configuration with n tools.
func (st *setup) config(n int) string {
	return filepath.Join(st.dir, fmt.Sprintf("tools-%d.hcl", n))
}

// mcpdeclServer is mcpdecl as built at bin serving the configuration with
// tools tools, with more arguments.
func (st *setup) mcpdeclServer(name, bin string, tools int, more ...string) server {
	return server{name: name, args: func(http bool, addr, pprof string) []string {
		a := []string{bin, "serve", "--log-level", "warn"}
		if http {
			a = append(a, "--http", addr, "--log-level", "info")
		}
		if pprof != "" {
			a = append(a, "--pprof", pprof)
		}
		a = append(a, more...)
		return append(a, st.config(tools))
	}}
}

// observed are mcpdecl with metrics on, and with traces on, when the
// harness runs with -observe.
func (st *setup) observed(tools int) []server {
	if st.otlp == "" {
		return nil
	}
	addr, err := freeAddr()
	if err != nil {
		log.Fatal(err)
	}
	tracedEnv := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + st.otlp, "OTEL_TRACES_SAMPLER=always_on"}
	traced := st.mcpdeclServer(tracesName, st.mcpdecl, tools)
	traced.env = tracedEnv
	out := []server{st.mcpdeclServer(metricsName, st.mcpdecl, tools, "--metrics-addr", addr), traced}
	if st.before != "" {
		before := st.mcpdeclServer(beforeTracesName, st.before, tools)
		before.env = tracedEnv
		out = append(out, before)
	}
	return out
}

// servers are the three servers under test, with tools tools loaded.
func (st *setup) servers(tools int) []server {
	mcpdecl := func(name, bin string) server { return st.mcpdeclServer(name, bin, tools) }
	base := func(name, bin string) server {
		return server{name: name, args: func(http bool, addr, pprof string) []string {
			a := []string{bin, "-upstream", st.upstream, "-db", st.db, "-tools", strconv.Itoa(tools)}
			if http {
				a = append(a, "-http", addr)
			}
			if pprof != "" {
				a = append(a, "-pprof", pprof)
			}
			return a
		}}
	}
	out := []server{mcpdecl(mcpdeclName, st.mcpdecl), base(baselineName, st.baseline), base(patchedName, st.patched)}
	if st.before != "" {
		out = append(out, mcpdecl(beforeName, st.before))
	}
	return out
}

// buildAll builds mcpdecl, the baseline on go-sdk v1.8.0 as released (its
// own module's go.mod), and the same baseline on the SDK as mcpdecl builds
// it (third_party/go-sdk, through a go.mod that adds the root's replace
// directive).
func buildAll(st *setup) error {
	var err error
	for range 10 { // others may be halfway through an edit: wait and retry
		if err = gobuild(".", st.mcpdecl, "./cmd/mcpdecl"); err == nil {
			break
		}
		log.Printf("building mcpdecl failed; retrying in 30s")
		time.Sleep(30 * time.Second)
	}
	if err != nil {
		return err
	}
	if err := gobuildEnv(".", st.static, "./cmd/mcpdecl", []string{"CGO_ENABLED=0"}); err != nil {
		return err
	}
	if err := gobuild("bench/baseline", st.baseline, "."); err != nil {
		return err
	}
	mod, err := os.ReadFile("bench/baseline/go.mod")
	if err != nil {
		return err
	}
	for module, dir := range map[string]string{
		"github.com/modelcontextprotocol/go-sdk": "third_party/go-sdk/src",
	} {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return err
		}
		mod = append(mod, fmt.Sprintf("\nreplace %s => %s\n", module, abs)...)
	}
	var sum []byte
	for _, f := range []string{"bench/baseline/go.sum", "go.sum"} {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		sum = append(sum, b...)
	}
	modfile := filepath.Join(st.dir, "patched.mod")
	if err := os.WriteFile(modfile, mod, 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(strings.TrimSuffix(modfile, ".mod")+".sum", sum, 0o600); err != nil {
		return err
	}
	return gobuild("bench/baseline", st.patched, ".", "-modfile", modfile)
}

// buildRevision builds mcpdecl as it was at the git revision rev, from a
// copy of that tree in src, into bin.
func buildRevision(rev, src, bin string) error {
	if err := os.MkdirAll(src, 0o755); err != nil {
		return err
	}
	archive := exec.Command("git", "archive", "--format=tar", rev)
	untar := exec.Command("tar", "-x", "-C", src)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return err
	}
	untar.Stdin = pipe
	archive.Stderr, untar.Stderr = os.Stderr, os.Stderr
	if err := untar.Start(); err != nil {
		return err
	}
	if err := archive.Run(); err != nil {
		return fmt.Errorf("git archive %s: %w", rev, err)
	}
	if err := untar.Wait(); err != nil {
		return fmt.Errorf("unpack %s: %w", rev, err)
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	return gobuild(src, abs, "./cmd/mcpdecl")
}

// gobuild builds pkg in dir into bin.
func gobuild(dir, bin, pkg string, flags ...string) error {
	return gobuildEnv(dir, bin, pkg, nil, flags...)
}

// gobuildEnv builds pkg in dir into bin with env added to the environment.
func gobuildEnv(dir, bin, pkg string, env []string, flags ...string) error {
	args := append([]string{"build"}, flags...)
	cmd := exec.Command("go", append(args, "-o", bin, pkg)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building %s in %s: %w", pkg, dir, err)
	}
	return nil
}

// seed creates the SQLite database of the top tool.
func seed(path string) error {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return err
	}
	defer db.Close()
	stmts := []string{"CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL NOT NULL)"}
	for i := range 200 {
		stmts = append(stmts, fmt.Sprintf("INSERT INTO items (name, price) VALUES ('item %d', %d.5)", i, (i*37)%500))
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			return err
		}
	}
	return nil
}

// topQuery is the statement of the SQLite tool, in every server and in the
// in-process comparison.
const topQuery = "SELECT name, price FROM items ORDER BY price DESC LIMIT 5"

// config is mcpdecl's configuration: the four tools the baseline has, the
// one-row SQLite tool of the comparison with Toolbox, the tools of the
// steps workload, and filler tools up to n.
func config(st *setup, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `http_api "up" {
  base_url = %q
}

database "shop" {
  driver = "sqlite"
  dsn    = %q
}
`, st.upstream, st.db)
	b.WriteString(slideshowWork.tool("slideshow", "The slideshow's author, date and title.", "", ""))
	b.WriteString(`
tool "blob" {
  description = "Fetches a body of n bytes and says how long it was."
  arg "n" { type = integer }
  max_result_bytes = 4194304
  http {
    api   = http_api.up
    path  = "/blob"
    query = { n = expr("args.n") }
  }
  output "size" {
    type  = integer
    value = expr("len(body.data)")
  }
}

tool "echo" {
  description = "Runs echo."
  arg "text" { type = string }
  exec {
    command = ["echo", expr("args.text")]
  }
  output "stdout" {
    type  = string
    value = expr("trim(stdout)")
  }
}
`)
	b.WriteString(itemWork.tool("item", "One item by its id.", `arg "id" { type = integer }`, "'There is no item ' + string(args.id) + '.'"))
	fmt.Fprintf(&b, `
tool "top" {
  description = "The five dearest items."
  sql {
    database = database.shop
    query    = %q
  }
  output "rows" {
    type = list(object({
      name  = string
      price = number
    }))
    value = expr("rows")
  }
}
`, topQuery)
	b.WriteString(stepsTools())
	for i := 7; i < n; i++ {
		fmt.Fprintf(&b, `
tool "filler_%d" {
  description = "A tool that is only listed."
  arg "q" {
    type       = string
    max_length = 100
  }
  text = expr("args.q")
}
`, i)
	}
	return b.String()
}

func human(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
