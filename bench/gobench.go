package main

import (
	"bufio"
	"bytes"
	"fmt"
	"log"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// gobench is the result of one Go benchmark, or why it has none.
type gobench struct {
	pkg, name   string
	nsOp, bytes float64
	allocs      float64
	failed      string
}

// goBenchmarks runs the Go benchmarks that measure the engine alone, three
// times each, and keeps the best of each (the median would need all three
// to be comparable; the best is what the code can do on this machine). A
// benchmark that fails is reported as such, and the run goes on.
func goBenchmarks() []gobench {
	runs := [][]string{
		{"^BenchmarkCallEngine$|^BenchmarkCallHTTP$|^BenchmarkCallHTTPSteps3$|^BenchmarkLoad1000$", "./engine/load/"},
		{"^BenchmarkHTTPCall$|^BenchmarkStdioCall$", "./engine/server/"},
		{"^BenchmarkLoad1000$", "./cmd/mcpdecl/"},
		{"^BenchmarkSQLite(Tool|Raw|RawPrepared)$", "./adapters/sql/"},
		{"^BenchmarkParts$", "./bench/"},
	}
	re := regexp.MustCompile(`^(Benchmark\S+?)(-\d+)?\s+\d+\s+([\d.]+) ns/op(?:\s+([\d.]+) B/op\s+([\d.]+) allocs/op)?`)
	var out []gobench
	for _, r := range runs {
		log.Printf("go test -bench %s %s", r[0], r[1])
		cmd := exec.Command("go", "test", "-run", "^$", "-bench", r[0], "-benchmem", "-count", "3", r[1])
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		err := cmd.Run()
		best := map[string]gobench{}
		var order []string
		sc := bufio.NewScanner(bytes.NewReader(buf.Bytes()))
		for sc.Scan() {
			m := re.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			ns, _ := strconv.ParseFloat(m[3], 64)
			by, _ := strconv.ParseFloat(m[4], 64)
			allocs, _ := strconv.ParseFloat(m[5], 64)
			if b, ok := best[m[1]]; !ok || ns < b.nsOp {
				if !ok {
					order = append(order, m[1])
				}
				best[m[1]] = gobench{pkg: r[1], name: m[1], nsOp: ns, bytes: by, allocs: allocs}
			}
		}
		for _, name := range order {
			out = append(out, best[name])
		}
		if err != nil {
			why := firstFailure(buf.String())
			log.Printf("go test -bench %s %s failed: %v: %s", r[0], r[1], err, why)
			out = append(out, gobench{pkg: r[1], name: r[0], failed: why})
		}
	}
	return out
}

// firstFailure is the first line of go test's output that says why a
// benchmark failed.
func firstFailure(s string) string {
	for line := range strings.SplitSeq(s, "\n") {
		line = strings.TrimSpace(line)
		if strings.Contains(line, ".go:") || strings.HasPrefix(line, "#") || strings.Contains(line, "cannot") {
			return line
		}
	}
	return fmt.Sprintf("%.200s", strings.TrimSpace(s))
}
