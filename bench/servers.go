package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
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

// server is how to start one of the two servers.
type server struct {
	name string
	// args are the command and its arguments; http adds the flag for an
	// HTTP listener on addr.
	args func(http bool, addr string) []string
}

// sample is what one run measured.
type sample struct {
	callsPerSec float64
	p50, p99    time.Duration
	rssKB       int64
	firstList   time.Duration
	errors      int
}

// call is one tool call of a workload.
type call struct {
	tool string
	args map[string]any
}

// run starts s, lists its tools, makes n calls of c at concurrency conc,
// and stops it.
func run(s server, overHTTP bool, c call, n, conc int) (sample, error) {
	var out sample
	argv := s.args(overHTTP, "127.0.0.1:0")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "GOMAXPROCS=2")
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
		endpoint, err := awaitURL(stderr)
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
			return out, err
		}
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		return out, err
	}
	out.firstList = time.Since(start)

	lat := make([]time.Duration, n)
	var next, errs atomic.Int64
	var wg sync.WaitGroup
	begin := time.Now()
	for range conc {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				t0 := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
				lat[i] = time.Since(t0)
				if err != nil || res.IsError {
					errs.Add(1)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(begin)
	out.callsPerSec = float64(n) / elapsed.Seconds()
	slices.Sort(lat)
	out.p50, out.p99 = lat[n/2], lat[min(n-1, n*99/100)]
	out.errors = int(errs.Load())
	out.rssKB = peakRSS(cmd.Process.Pid)
	if out.errors > 0 {
		return out, fmt.Errorf("%s: %d of %d calls of %s failed", s.name, out.errors, n, c.tool)
	}
	return out, nil
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

// peakRSS is the peak resident set of a process, in KiB (VmHWM).
func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// median is the median sample of runs, field by field.
func median(runs []sample) sample {
	pick := func(f func(sample) float64) float64 {
		v := make([]float64, len(runs))
		for i, r := range runs {
			v[i] = f(r)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return sample{
		callsPerSec: pick(func(s sample) float64 { return s.callsPerSec }),
		p50:         time.Duration(pick(func(s sample) float64 { return float64(s.p50) })),
		p99:         time.Duration(pick(func(s sample) float64 { return float64(s.p99) })),
		rssKB:       int64(pick(func(s sample) float64 { return float64(s.rssKB) })),
		firstList:   time.Duration(pick(func(s sample) float64 { return float64(s.firstList) })),
	}
}
