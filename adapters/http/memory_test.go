package httpaction

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/text"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// listBody is a JSON body of about size bytes: a list of small objects, the
// shape that costs most once decoded.
func listBody(size int) []byte {
	var b strings.Builder
	b.Grow(size + 128)
	b.WriteByte('[')
	for i := 0; b.Len() < size-64; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"item %d","price":%d.5,"tags":["a","b"]}`, i, i, i%1000)
	}
	b.WriteByte(']')
	return []byte(b.String())
}

// bodyServer serves body as JSON.
func bodyServer(tb testing.TB, body []byte) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// plainAction decodes an http block that GETs base/items.
func plainAction(tb testing.TB, base string) engine.Action {
	tb.Helper()
	return newFixture(tb).action(api(base) + "http {\n  api  = http_api.x\n  path = \"/items\"\n}\n")
}

// BenchmarkBody is one call of a tool that GETs a JSON body of 1 MiB or 9
// MiB, sent without a Content-Length (chunked), and shows it: B/op is what
// a call allocates, most of it the decoded body.
func BenchmarkBody(b *testing.B) {
	for _, size := range []int{1 << 20, 9 << 20} {
		b.Run(fmt.Sprintf("%dMiB", size>>20), func(b *testing.B) {
			srv := bodyServer(b, listBody(size))
			tool, err := engine.NewTool(engine.ToolSpec{Name: "t", Action: plainAction(b, srv.URL)}, engine.DefaultSettings(), &text.Redactor{})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				res := tool.Call(ctx, nil)
				if res.IsError {
					b.Fatal(res.Content[0].Text)
				}
			}
		})
	}
}

// trickle reads r a few KiB at a time, as a body arrives from the network.
type trickle struct{ r io.Reader }

func (t trickle) Read(p []byte) (int, error) { return t.r.Read(p[:min(len(p), 3000)]) }

// TestReadBodyMemory: a body of unknown length costs at most about twice
// its size to read, and one of known length its size.
func TestReadBodyMemory(t *testing.T) {
	body := listBody(9 << 20)
	for _, tc := range []struct {
		name   string
		length int64
		most   float64 // times the body's size
	}{
		{"chunked", -1, 2.2},
		{"content-length", int64(len(body)), 1.1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			data, err := readBody(&http.Response{Body: io.NopCloser(trickle{bytes.NewReader(body)}), ContentLength: tc.length}, 10<<20)
			runtime.ReadMemStats(&after)
			if err != nil || !bytes.Equal(data, body) {
				t.Fatalf("read %d bytes of %d: %v", len(data), len(body), err)
			}
			n := after.TotalAlloc - before.TotalAlloc
			t.Logf("reading a body of %.1f MiB allocates %.1f MiB", float64(len(body))/(1<<20), float64(n)/(1<<20))
			if float64(n) > tc.most*float64(len(body)) {
				t.Errorf("reading a body of %d bytes allocates %d bytes, more than %.1f times its size", len(body), n, tc.most)
			}
		})
	}
	for _, tc := range []struct {
		name   string
		length int64
	}{{"chunked", -1}, {"content-length", 11 << 20}} {
		_, err := readBody(&http.Response{Body: io.NopCloser(trickle{bytes.NewReader(make([]byte, 11<<20))}), ContentLength: tc.length}, 10<<20)
		var tl *tooLargeError
		if !errors.As(err, &tl) {
			t.Errorf("%s: a body over the limit: %v", tc.name, err)
		}
	}
}

// TestDefaultMaxConcurrency: a tool that does not set max_concurrency has
// at most engine.IOConcurrency() calls under way at once; one more waits,
// and gives up at its timeout.
func TestDefaultMaxConcurrency(t *testing.T) {
	limit := engine.IOConcurrency()
	var mu sync.Mutex
	running, most := 0, 0
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		running++
		most = max(most, running)
		mu.Unlock()
		select {
		case <-release:
		case <-r.Context().Done():
		}
		mu.Lock()
		running--
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	tool, err := engine.NewTool(engine.ToolSpec{Name: "slow", Action: plainAction(t, srv.URL), Timeout: enginetest.Patience}, engine.DefaultSettings(), &text.Redactor{})
	if err != nil {
		t.Fatal(err)
	}
	results := make(chan *engine.Result, limit+1)
	for range limit + 1 {
		go func() { results <- tool.Call(context.Background(), nil) }()
	}
	// Once the slots are taken, one more call waits for one, and gives up.
	for deadline := time.Now().Add(enginetest.Patience); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := running
		mu.Unlock()
		if n >= limit || time.Now().After(deadline) {
			break
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	extra := tool.Call(ctx, nil)
	close(release)
	for range limit + 1 {
		<-results
	}
	if !strings.HasPrefix(extra.Text(), "the tool is busy: ") || most > limit {
		t.Errorf("%d calls reached the server at once, and one more got %q; want at most %d, and the tool is busy", most, extra.Text(), limit)
	}
}

// BenchmarkBodyConcurrent is eight calls at once of a tool that GETs a JSON
// body of 9 MiB: peak-heap-MiB is the most heap in use meanwhile.
func BenchmarkBodyConcurrent(b *testing.B) {
	srv := bodyServer(b, listBody(9<<20))
	tool, err := engine.NewTool(engine.ToolSpec{Name: "t", Action: plainAction(b, srv.URL)}, engine.DefaultSettings(), &text.Redactor{})
	if err != nil {
		b.Fatal(err)
	}
	var peak uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
	}()
	b.ReportAllocs()
	for b.Loop() {
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				if res := tool.Call(context.Background(), nil); res.IsError {
					b.Error(res.Text())
				}
			})
		}
		wg.Wait()
	}
	close(stop)
	<-sampled
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
