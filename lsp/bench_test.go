//go:build unix

package lsp

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	protocol "github.com/tliron/glsp/protocol_3_16"

	httpaction "github.com/mcpdecl/mcpdecl/adapters/http"
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// largeConfig is the generated configuration of n tools the command's
// benchmarks load (enginetest.LargeConfig), in one file, with a variable
// that http_api reads.
func largeConfig(n int) string {
	src := enginetest.LargeConfig(n, 1)[0]
	return "variable \"base_url\" {\n  type    = string\n  default = \"http://127.0.0.1:1\"\n}\n" +
		strings.Replace(src, `base_url = "http://127.0.0.1:1"`, "base_url = var.base_url", 1)
}

// cpuTime is the CPU time the process has used, on every thread.
func cpuTime() time.Duration {
	var u syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// reportCPU reports the CPU time per operation since start: on a machine
// shared with other work, a figure that wall time per operation is not.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
}

// edited opens the 1,000-tool file in a new server and returns it, the
// document, and the text with one edit more (a letter typed in the last
// tool's description), for each iteration.
func edited(b *testing.B) (*server, string, func(i int) *document) {
	dir := b.TempDir()
	path := filepath.Join(dir, "large.hcl")
	text := largeConfig(1000)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	s := newServer(Options{Registry: engine.NewRegistry(httpaction.New())})
	at := strings.LastIndex(text, "Current weather")
	return s, dir, func(i int) *document {
		t := text[:at] + strings.Repeat("x", (i+7)%7) + text[at:]
		d := &document{uri: pathURI(path), path: path, version: int32(i), text: t}
		s.mu.Lock()
		s.docs[path] = d
		s.mu.Unlock()
		return d
	}
}

// BenchmarkDiagnosticsAfterEdit is the time from an edit of a 1,000-tool
// file to its diagnostics (the debounce aside): the whole load, as
// validate does it, of the edited buffer.
func BenchmarkDiagnosticsAfterEdit(b *testing.B) {
	s, dir, edit := edited(b)
	defer reportCPU(b, cpuTime())
	for i := 0; b.Loop(); i++ {
		edit(i)
		if diags := s.diagnose(dir); len(diags) != 1 {
			b.Fatalf("diagnostics for %d files", len(diags))
		}
	}
}

// BenchmarkCompletionAfterEdit is the time from an edit of a 1,000-tool
// file to a completion in it, the diagnostics having run on the version
// before the edit (as they do when the typing pauses): after var., and
// after args. in an expr program of the last tool.
func BenchmarkCompletionAfterEdit(b *testing.B) {
	for _, c := range []struct {
		name, at string
		want     string
	}{
		{"var", "var.base_url", "base_url"},
		{"expr", `expr("args.units")`, "city"},
	} {
		b.Run(c.name, func(b *testing.B) {
			s, dir, edit := edited(b)
			edit(-1)
			s.diagnose(dir)
			defer reportCPU(b, cpuTime())
			for i := 0; b.Loop(); i++ {
				d := edit(i)
				off := strings.LastIndex(d.text, c.at) + strings.Index(c.at, ".") + 1
				if items := s.complete(d, off); len(items) == 0 || items[0].Label != c.want {
					b.Fatalf("completion: %+v", items)
				}
			}
		})
	}
}

// Editing a file many times keeps no memory per edit: the heap after
// 10,000 edits is about the heap after 100.
func TestMemoryBoundedAcrossEdits(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.hcl")
	s := newServer(Options{Registry: engine.NewRegistry(httpaction.New())})
	text := largeConfig(20)
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var after100 uint64
	for i := range 10000 {
		d := &document{uri: pathURI(path), path: path, version: int32(i), text: text + strings.Repeat("#", i%50) + "\n"}
		s.mu.Lock()
		s.docs[path] = d
		s.mu.Unlock()
		s.complete(d, strings.Index(d.text, "var.base_url")+4)
		if i%1000 == 0 {
			s.diagnose(dir)
		}
		if i == 100 {
			after100 = heap()
		}
	}
	if after := heap(); after > after100+8<<20 {
		t.Errorf("the heap grew from %d bytes after 100 edits to %d after 10,000", after100, after)
	}
}

// A 50 MB buffer is refused for its size, at once, and nothing is
// completed in it. (Over the wire such a message passes: the cap on one
// message is MaxMessageBytes.)
func TestHugeBuffer(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.hcl")
	s := newServer(Options{Registry: engine.NewRegistry(httpaction.New())})
	text := strings.Repeat("# a comment that goes on and on\n", 50<<20/32)
	if err := s.didOpen(nil, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: pathURI(path), Version: 1, Text: text}}); err != nil {
		t.Fatal(err)
	}
	diags := s.diagnose(dir)[path]
	if len(diags) != 1 || !strings.Contains(diags[0].Message, "more than the 10485760 bytes (10 MiB)") {
		t.Errorf("diagnostics of a 50 MB buffer: %+v", diags)
	}
	s.mu.Lock()
	d := s.docs[path]
	s.mu.Unlock()
	if items := s.complete(d, len(text)/2); items != nil {
		t.Errorf("completion in a 50 MB buffer: %v", items)
	}
}
