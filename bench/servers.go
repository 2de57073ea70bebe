package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// server is how to start one of the servers under test.
type server struct {
	name string
	// args are the command and its arguments; http adds the flags for an
	// HTTP listener on addr, pprof (when not empty) those for a profiler
	// listener.
	args func(http bool, addr, pprof string) []string
	// env is added to the server's environment.
	env []string
	// endpoint, when set, is the MCP endpoint of a server that listens on
	// the address it is given (a free port chosen by the harness) rather
	// than choosing one and logging it; the harness waits for the port.
	endpoint func(addr string) string
}

// sample is what one run measured.
type sample struct {
	calls       int
	callsPerSec float64
	p50, p99    time.Duration
	rssKB       int64 // peak (VmHWM)
	anonKB      int64 // at the end: anonymous (heap, stacks)
	fileKB      int64 // at the end: pages of the executable and other files
	firstList   time.Duration
	errors      int           // failed calls
	cpuPerCall  time.Duration // the server's CPU time (user + system) over the calls, per call
}

// call is one tool call of a workload.
type call struct {
	tool string
	args map[string]any
}

// runOpts are the optional parts of a run.
type runOpts struct {
	// profile, when set, is where to write a CPU profile of the server,
	// taken through its profiler listener over the whole call loop, which
	// then lasts profileFor instead of a number of calls.
	profile    string
	profileFor time.Duration
}

// run starts s, lists its tools, makes n calls of c at concurrency conc,
// reads the server's peak RSS, and stops it.
func run(s server, overHTTP bool, c call, n, conc int, o runOpts) (sample, error) {
	var out sample
	pprofAddr := ""
	if o.profile != "" {
		addr, err := freeAddr()
		if err != nil {
			return out, err
		}
		pprofAddr = addr
	}
	listen := "127.0.0.1:0"
	if s.endpoint != nil {
		addr, err := freeAddr()
		if err != nil {
			return out, err
		}
		listen = addr
	}
	argv := s.args(overHTTP, listen, pprofAddr)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(append(os.Environ(), "GOMAXPROCS=2"), s.env...)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	var cs *mcp.ClientSession
	start := time.Now()
	var err error
	if overHTTP {
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			return out, err
		}
		defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
		var endpoint string
		if s.endpoint != nil {
			go func() { _, _ = io.Copy(io.Discard, stderr) }()
			endpoint, err = s.endpoint(listen), awaitPort(listen)
		} else {
			endpoint, err = awaitURL(stderr)
		}
		if err != nil {
			return out, fmt.Errorf("%s: %w", s.name, err)
		}
		hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc}}
		cs, err = client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc}, nil)
		if err != nil {
			return out, err
		}
	} else {
		cmd.Stderr = io.Discard
		cs, err = client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			return out, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		return out, fmt.Errorf("%s: tools/list: %w", s.name, err)
	}
	out.firstList = time.Since(start)

	var deadline time.Time
	var profErr chan error
	if o.profile != "" {
		// The profiler answers once it has sampled for profileFor; calls
		// go on until a little after that.
		deadline = time.Now().Add(o.profileFor + 500*time.Millisecond)
		n = 1 << 30
		profErr = make(chan error, 1)
		go func() { profErr <- fetchProfile(pprofAddr, o.profileFor, o.profile) }()
	}

	cpuBefore := cpuTime(cmd.Process.Pid)
	lat := make([]time.Duration, 0, min(n, 1<<16))
	var mu sync.Mutex
	var next, errs atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	begin := time.Now()
	for range conc {
		wg.Go(func() {
			mine := make([]time.Duration, 0, 1024)
			defer func() { mu.Lock(); lat = append(lat, mine...); mu.Unlock() }()
			for {
				if i := next.Add(1) - 1; i >= int64(n) || (!deadline.IsZero() && time.Now().After(deadline)) {
					return
				}
				t0 := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
				mine = append(mine, time.Since(t0))
				if err != nil || res.IsError {
					if errs.Add(1) == 1 {
						if err == nil {
							err = fmt.Errorf("tool error: %s", contentText(res))
						}
						firstErr.Store(err)
					}
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(begin)
	out.calls = len(lat)
	out.callsPerSec = float64(len(lat)) / elapsed.Seconds()
	slices.Sort(lat)
	out.p50, out.p99 = lat[len(lat)/2], lat[min(len(lat)-1, len(lat)*99/100)]
	if cpu := cpuTime(cmd.Process.Pid) - cpuBefore; cpu > 0 && len(lat) > 0 {
		out.cpuPerCall = cpu / time.Duration(len(lat))
	}
	out.rssKB, out.anonKB, out.fileKB = memory(cmd.Process.Pid)
	if profErr != nil {
		if err := <-profErr; err != nil {
			return out, fmt.Errorf("%s: profile: %w", s.name, err)
		}
	}
	out.errors = int(errs.Load())
	if out.errors > 0 {
		// A rare failure (the upstream on a busy machine) is counted and
		// reported; more than 1% of the calls make the run meaningless.
		err := fmt.Errorf("%s: %d of %d calls of %s failed, the first: %v", s.name, out.errors, len(lat), c.tool, firstErr.Load())
		if out.errors*100 > len(lat) {
			return out, err
		}
		log.Print(err)
	}
	return out, nil
}

// contentText is the text of a result's content, for error messages.
func contentText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, " ")
}

// freeAddr is a loopback address with a port that was free a moment ago.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// fetchProfile takes a CPU profile of d from the net/http/pprof listener at
// addr, waiting for the listener to come up, and writes it to path.
func fetchProfile(addr string, d time.Duration, path string) error {
	url := fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, int(d.Seconds()))
	var resp *http.Response
	var err error
	for range 50 {
		if resp, err = http.Get(url); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%s: %s", resp.Status, b)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// awaitURL reads the server's log until it names its endpoint.
func awaitURL(r io.Reader) (string, error) {
	re := regexp.MustCompile(`url=(http://\S+/mcp)`)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		_, _ = io.Copy(io.Discard, r)
	}()
	select {
	case u := <-found:
		return u, nil
	case <-time.After(30 * time.Second):
		return "", fmt.Errorf("no endpoint logged within 30s")
	}
}

// awaitPort waits until something accepts connections at addr.
func awaitPort(addr string) error {
	for range 300 {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			return c.Close()
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("nothing listens at %s after 30s", addr)
}

// memory is the peak resident set of a process (VmHWM), and its resident
// anonymous and file-backed memory now (RssAnon, RssFile), in KiB.
func memory(pid int) (peak, anon, file int64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		switch name {
		case "VmHWM":
			peak = n
		case "RssAnon":
			anon = n
		case "RssFile":
			file = n
		}
	}
	return peak, anon, file
}

// clockTick is the unit of the CPU times in /proc/PID/stat: USER_HZ, which
// Linux fixes at 100 for every program.
const clockTick = 10 * time.Millisecond

// cpuTime is the CPU time (user + system) a process has used so far, from
// /proc/PID/stat; 0 where that cannot be read. Far less sensitive to the
// noise of a shared machine than calls per second, it is what a user pays.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name, in parentheses, may hold spaces: count the fields
	// after its closing parenthesis (state is field 3, utime 14, stime 15).
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(utime+stime) * clockTick
}

// medianOf is the median of v (the upper one of an even count).
func medianOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	return v[len(v)/2]
}

// median is the median sample of runs, field by field.
func median(runs []sample) sample {
	pick := func(f func(sample) float64) float64 {
		v := make([]float64, len(runs))
		for i, r := range runs {
			v[i] = f(r)
		}
		return medianOf(v)
	}
	return sample{
		calls:       int(pick(func(s sample) float64 { return float64(s.calls) })),
		callsPerSec: pick(func(s sample) float64 { return s.callsPerSec }),
		p50:         time.Duration(pick(func(s sample) float64 { return float64(s.p50) })),
		p99:         time.Duration(pick(func(s sample) float64 { return float64(s.p99) })),
		rssKB:       int64(pick(func(s sample) float64 { return float64(s.rssKB) })),
		anonKB:      int64(pick(func(s sample) float64 { return float64(s.anonKB) })),
		fileKB:      int64(pick(func(s sample) float64 { return float64(s.fileKB) })),
		firstList:   time.Duration(pick(func(s sample) float64 { return float64(s.firstList) })),
		errors:      int(pick(func(s sample) float64 { return float64(s.errors) })),
		cpuPerCall:  time.Duration(pick(func(s sample) float64 { return float64(s.cpuPerCall) })),
	}
}
