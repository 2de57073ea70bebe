package main

import (
	"database/sql"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	_ "modernc.org/sqlite"
)

func main() {
	calls := flag.Int("calls", 3000, "calls per run")
	rounds := flag.Int("rounds", 3, "runs of each server, alternated; the report gives the median")
	concList := flag.String("concurrency", "1,8,32", "concurrencies of the HTTP tool runs")
	quick := flag.Bool("quick", false, "a short run: 500 calls, 1 round, concurrency 8")
	out := flag.String("out", "BENCHMARKS.md", "the report to write; the chart goes to bench/chart.svg")
	flag.Parse()
	if *quick {
		*calls, *rounds, *concList = 500, 1, "8"
	}
	var concs []int
	for f := range strings.SplitSeq(*concList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			log.Fatalf("invalid -concurrency %q", *concList)
		}
		concs = append(concs, n)
	}
	if err := benchmark(*calls, *rounds, concs, *out); err != nil {
		log.Fatal(err)
	}
}

// setup is what both servers run against.
type setup struct {
	dir, upstream, db string
	mcpdecl, baseline string // binaries
}

func benchmark(calls, rounds int, concs []int, out string) error {
	dir, err := os.MkdirTemp("", "mcpdecl-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	st := &setup{dir: dir, mcpdecl: filepath.Join(dir, "mcpdecl"), baseline: filepath.Join(dir, "baseline"), db: filepath.Join(dir, "shop.db")}
	log.Printf("building mcpdecl and the baseline into %s", dir)
	if err := gobuild(".", st.mcpdecl, "./cmd/mcpdecl"); err != nil {
		return err
	}
	if err := gobuild("bench/baseline", st.baseline, "."); err != nil {
		return err
	}
	upstream, stop, err := startUpstream()
	if err != nil {
		return err
	}
	defer stop()
	st.upstream = upstream
	if err := seed(st.db); err != nil {
		return err
	}
	for _, n := range []int{10, 100, 1000} {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("tools-%d.hcl", n)), []byte(config(st, n)), 0o600); err != nil {
			return err
		}
	}

	r := &report{calls: calls, rounds: rounds}
	mcp := func(tools int) server {
		return server{name: "mcpdecl", args: func(http bool, addr string) []string {
			a := []string{st.mcpdecl, "serve", "--log-level", "warn", filepath.Join(dir, fmt.Sprintf("tools-%d.hcl", tools))}
			if http {
				a = append(a, "--http", addr, "--log-level", "info")
			}
			return a
		}}
	}
	base := server{name: "baseline", args: func(http bool, addr string) []string {
		a := []string{st.baseline, "-upstream", st.upstream, "-db", st.db}
		if http {
			a = append(a, "-http", addr)
		}
		return a
	}}
	slideshow := call{tool: "slideshow"}

	pair := func(label, transport string, c call, conc int, tools int) error {
		var a, b []sample
		for i := range rounds {
			for _, s := range []server{mcp(tools), base} {
				log.Printf("%s %s %s concurrency %d, round %d/%d", label, transport, s.name, conc, i+1, rounds)
				smp, err := run(s, transport == "http", c, calls, conc)
				if err != nil {
					return err
				}
				if s.name == "mcpdecl" {
					a = append(a, smp)
				} else {
					b = append(b, smp)
				}
			}
		}
		r.rows = append(r.rows, row{label: label, transport: transport, conc: conc, tools: tools, mcpdecl: median(a), baseline: median(b)})
		return nil
	}

	for _, transport := range []string{"stdio", "http"} {
		for _, conc := range concs {
			if err := pair("HTTP tool (GET /json, 3 outputs)", transport, slideshow, conc, 10); err != nil {
				return err
			}
		}
	}
	if err := pair("exec tool (echo)", "stdio", call{tool: "echo", args: map[string]any{"text": "hello"}}, 8, 10); err != nil {
		return err
	}
	if err := pair("SQLite tool (top 5 rows)", "stdio", call{tool: "top"}, 8, 10); err != nil {
		return err
	}
	for _, size := range []int{1 << 10, 100 << 10, 1 << 20} {
		if err := pair(fmt.Sprintf("body of %s", human(size)), "http", call{tool: "blob", args: map[string]any{"n": size}}, 8, 10); err != nil {
			return err
		}
	}
	for _, tools := range []int{100, 1000} {
		if err := pair(fmt.Sprintf("%d tools loaded", tools), "http", slideshow, 8, tools); err != nil {
			return err
		}
	}

	log.Printf("running the Go benchmarks")
	r.gobench, err = goBenchmarks()
	if err != nil {
		return err
	}
	return r.write(out, filepath.Join("bench", "chart.svg"))
}

// gobuild builds pkg in dir into bin.
func gobuild(dir, bin, pkg string) error {
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building %s: %w", pkg, err)
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

// config is mcpdecl's configuration: the four tools the baseline has, and
// filler tools up to n.
func config(st *setup, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `http_api "up" {
  base_url = %q
}

database "shop" {
  driver = "sqlite"
  dsn    = %q
}

tool "slideshow" {
  description = "The slideshow's author, date and title."
  http {
    api  = http_api.up
    path = "/json"
  }
  output "author" {
    type  = string
    value = expr("body.slideshow.author")
  }
  output "date" {
    type  = string
    value = expr("body.slideshow.date")
  }
  output "title" {
    type  = string
    value = expr("body.slideshow.title")
  }
}

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

tool "top" {
  description = "The five dearest items."
  sql {
    database = database.shop
    query    = "SELECT name, price FROM items ORDER BY price DESC LIMIT 5"
  }
  output "rows" {
    value = expr("rows")
  }
}
`, st.upstream, st.db)
	for i := 4; i < n; i++ {
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
