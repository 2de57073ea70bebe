package main

import (
	"bufio"
	"bytes"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// profile is where one server spent its CPU under load.
type profile struct {
	server, transport string
	path              string        // the .pprof file
	total             time.Duration // CPU sampled
	callsPerSec       float64       // during the profile
	shares            []share       // exclusive buckets, in bucketOrder
	alloc             float64       // share of samples under runtime.mallocgc (overlaps the buckets)
}

type share struct {
	bucket string
	frac   float64
}

// The buckets a sample is put in: the first that matches its stack.
var bucketOrder = []struct {
	name  string
	match func(frames []string) bool
}{
	{"GC (background mark, sweep, scavenge)", has("runtime.gcBgMarkWorker", "runtime.bgsweep", "runtime.bgscavenge")},
	{"upstream: dialing and closing connections", has("net/http.(*Transport).dialConn", "net/http.(*persistConn).closeLocked", "net/http.(*persistConn).close", "net/http.(*Transport).removeIdleConn")},
	{"upstream: requests and responses (client, its connection goroutines)", has("net/http.(*Client)", "net/http.(*Transport)", "net/http.(*persistConn)", "resty", "httpaction.", "adapters/http.", "main.getJSON")},
	{"the tool: input/output validation (engine)", both(has("engine.(*Tool).Call"), has("jsonschema"))},
	{"the tool: expr mappings (engine)", both(has("engine.(*Tool).Call"), has("expr-lang", "engine/mapping"))},
	{"the tool: the rest (exec, SQL, result building, redaction, …)", has("engine.(*Tool).Call", "main.main.func")},
	{"SDK: schema validation of typed tools (jsonschema-go)", has("google/jsonschema-go")},
	{"SDK: reading `_meta` (extractRequestMeta)", has("mcp.extractRequestMeta", "mcp.validateRequestMeta")},
	{"SDK: decoding JSON (batch, message, params)", has("go-sdk/internal/json.", "jsonrpc2.DecodeMessage", "jsonrpc.DecodeMessage", "mcp.readBatch", "Unmarshal", "segmentio/encoding/json.Parse", "segmentio/encoding/json.(*Decoder)")},
	{"SDK: encoding JSON (answers)", has("jsonrpc2.EncodeMessage", "jsonrpc.EncodeMessage", "encoding/json.Marshal", "encoding/json.(*Encoder)", "json.Marshal", "MarshalJSON")},
	{"SDK: the rest (dispatch, sessions, transports)", has("modelcontextprotocol/go-sdk")},
	{"stdio pipes", has("os.(*File).Read", "os.(*File).Write")},
	{"net/http server and loopback I/O", has("net/http.(*conn)", "net.(*conn)", "net/http.(*response)", "bufio.")},
	{"syscalls", has("syscall.", "internal/runtime/syscall", "runtime.netpoll")},
	{"Go scheduler and the rest of the runtime", has("runtime.")},
	{"other", func([]string) bool { return true }},
}

func has(subs ...string) func([]string) bool {
	return func(frames []string) bool {
		for _, f := range frames {
			for _, s := range subs {
				if strings.Contains(f, s) {
					return true
				}
			}
		}
		return false
	}
}

func both(a, b func([]string) bool) func([]string) bool {
	return func(f []string) bool { return a(f) && b(f) }
}

// profileAll profiles each server under the HTTP tool at concurrency 8,
// over stdio and HTTP, through its profiler listener (mcpdecl's
// `serve --pprof`, the baseline's -pprof); with -observe, mcpdecl with
// metrics and with traces too.
func profileAll(st *setup, o options) ([]profile, error) {
	if err := os.MkdirAll(o.profileDir, 0o755); err != nil {
		return nil, err
	}
	bins := map[string]string{mcpdeclName: st.mcpdecl, baselineName: st.baseline, patchedName: st.patched}
	servers := st.servers(10)
	if o.observe {
		// With metrics and with traces too, to see what each costs.
		for _, s := range st.observed(10) {
			bins[s.name] = st.mcpdecl
			servers = append(servers, s)
		}
	}
	var out []profile
	for _, transport := range []string{"stdio", "http"} {
		for _, s := range servers {
			slug := strings.NewReplacer(", ", "-", " ", "-").Replace(s.name)
			path, _ := filepath.Abs(filepath.Join(o.profileDir, slug+"-"+transport+".pprof"))
			log.Printf("profiling %s over %s for %s", s.name, transport, o.profileFor)
			smp, err := run(s, transport == "http", call{tool: "slideshow"}, 0, 8, runOpts{profile: path, profileFor: o.profileFor})
			if err != nil {
				return nil, err
			}
			p := profile{server: s.name, transport: transport, path: path, callsPerSec: smp.callsPerSec}
			if err := summarize(bins[s.name], &p); err != nil {
				return nil, err
			}
			top, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount=40", bins[s.name], path).Output()
			if err != nil {
				return nil, fmt.Errorf("go tool pprof -top %s: %w", path, err)
			}
			if err := os.WriteFile(strings.TrimSuffix(path, ".pprof")+".top.txt", top, 0o644); err != nil {
				return nil, err
			}
			// The binaries live in a temporary directory: keep a copy with
			// the profile, so that it can be explored later.
			if b, err := os.ReadFile(bins[s.name]); err == nil {
				_ = os.WriteFile(filepath.Join(o.profileDir, strings.SplitN(slug, "-", 2)[0]+"-"+binSuffix(s.name)), b, 0o755)
			}
			out = append(out, p)
		}
	}
	return out, nil
}

func binSuffix(name string) string {
	switch name {
	case patchedName:
		return "patched.bin"
	}
	return "bin"
}

// summarize sorts the samples of p's profile into the buckets, from the
// stacks `go tool pprof -traces` prints.
func summarize(bin string, p *profile) error {
	raw, err := exec.Command("go", "tool", "pprof", "-traces", bin, p.path).Output()
	if err != nil {
		return fmt.Errorf("go tool pprof -traces %s: %w", p.path, err)
	}
	sums := make([]time.Duration, len(bucketOrder))
	var alloc time.Duration
	var total time.Duration
	flush := func(v time.Duration, frames []string) {
		if v == 0 || len(frames) == 0 {
			return
		}
		total += v
		if has("runtime.mallocgc")(frames) {
			alloc += v
		}
		for i, b := range bucketOrder {
			if b.match(frames) {
				sums[i] += v
				return
			}
		}
	}
	var v time.Duration
	var frames []string
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "-----------+") {
			flush(v, frames)
			v, frames = 0, nil
			continue
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if d, err := time.ParseDuration(f[0]); err == nil && len(f) >= 2 && frames == nil {
			v = d
			frames = append(frames, f[1])
			continue
		}
		if frames != nil {
			frames = append(frames, f[0])
		}
	}
	flush(v, frames)
	if total == 0 {
		return fmt.Errorf("%s: no samples", p.path)
	}
	p.total = total
	for i, b := range bucketOrder {
		p.shares = append(p.shares, share{b.name, float64(sums[i]) / float64(total)})
	}
	p.alloc = float64(alloc) / float64(total)
	return nil
}
