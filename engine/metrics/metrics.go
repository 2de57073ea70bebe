package metrics

import (
	"crypto/subtle"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mcpdecl/mcpdecl/engine"
)

// Path is where the series are served.
const Path = "/metrics"

// Metrics are the series of one server process, in a registry of its own.
// A nil *Metrics records nothing, so callers need not check.
type Metrics struct {
	registry   *prometheus.Registry
	calls      *prometheus.CounterVec
	duration   *prometheus.HistogramVec
	inFlight   prometheus.Gauge
	reloads    *prometheus.CounterVec
	generation prometheus.Gauge
	upstream   *prometheus.HistogramVec

	// tools holds each tool's series, found once (a *toolSeries by name):
	// WithLabelValues hashes the labels on every call.
	tools sync.Map
}

// toolSeries are the series of one tool.
type toolSeries struct {
	duration prometheus.Observer
	mu       sync.Mutex
	calls    map[engine.Outcome]prometheus.Counter
}

// counter is the tool's counter of outcome o.
func (t *toolSeries) counter(m *Metrics, tool string, o engine.Outcome) prometheus.Counter {
	t.mu.Lock()
	defer t.mu.Unlock()
	c, ok := t.calls[o]
	if !ok {
		c = m.calls.WithLabelValues(tool, string(o))
		t.calls[o] = c
	}
	return c
}

// series returns the series of tool, made on first use.
func (m *Metrics) series(tool string) *toolSeries {
	if t, ok := m.tools.Load(tool); ok {
		return t.(*toolSeries)
	}
	t, _ := m.tools.LoadOrStore(tool, &toolSeries{duration: m.duration.WithLabelValues(tool), calls: map[engine.Outcome]prometheus.Counter{}})
	return t.(*toolSeries)
}

var _ engine.UpstreamObserver = (*Metrics)(nil)

// New makes the series and registers them, with the Go runtime's and the
// process's collectors.
func New() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcpdecl_tool_calls_total",
			Help: "Tool calls, by tool and outcome: ok, tool_error, invalid_arguments, denied (scopes), rate_limited, timeout, declined (a confirmation).",
		}, []string{"tool", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mcpdecl_tool_call_duration_seconds",
			Help:    "The time of a tool call, from its arguments to its result, by tool.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"tool"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "mcpdecl_tool_calls_in_flight",
			Help: "Tool calls under way.",
		}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcpdecl_config_reloads_total",
			Help: "Configuration reloads, by outcome: ok (swapped in) or error (the old configuration kept serving).",
		}, []string{"outcome"}),
		generation: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "mcpdecl_config_generation",
			Help: "The configuration served: 1 at start, one more at each reload swapped in.",
		}),
		upstream: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mcpdecl_upstream_duration_seconds",
			Help:    "The time of one exchange of an action with what it wraps, by kind (http, sql, exec), upstream (the http_api or database, the program) and class (2xx to 5xx or error for http; ok or error for sql and exec).",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"kind", "upstream", "class"}),
	}
	m.registry.MustRegister(m.calls, m.duration, m.inFlight, m.reloads, m.generation, m.upstream,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, outcome := range []string{"ok", "error"} {
		m.reloads.WithLabelValues(outcome) // present at 0 from the start
	}
	m.generation.Set(1)
	return m
}

// Started counts a call that begins; its Done counts the call's end, with
// its outcome and time.
func (m *Metrics) Started(tool string) Call {
	if m == nil {
		return Call{}
	}
	m.inFlight.Inc()
	return Call{m: m, tool: tool, series: m.series(tool)}
}

// Call is a call under way, as Started counted it.
type Call struct {
	m      *Metrics
	tool   string
	series *toolSeries
}

// Done counts the end of the call, with its outcome and the time it took.
func (c Call) Done(o engine.Outcome, d time.Duration) {
	if c.m == nil {
		return
	}
	c.m.inFlight.Dec()
	c.series.counter(c.m, c.tool, o).Inc()
	c.series.duration.Observe(d.Seconds())
}

// ObserveUpstream records one exchange of an action (see
// [engine.UpstreamObserver]).
func (m *Metrics) ObserveUpstream(kind, upstream, class string, d time.Duration) {
	if m == nil {
		return
	}
	m.upstream.WithLabelValues(kind, upstream, class).Observe(d.Seconds())
}

// Reloaded counts a reload: swapped in (ok), or refused (the configuration
// had errors).
func (m *Metrics) Reloaded(ok bool) {
	if m == nil {
		return
	}
	if ok {
		m.reloads.WithLabelValues("ok").Inc()
		m.generation.Inc()
		return
	}
	m.reloads.WithLabelValues("error").Inc()
}

// CountDroppedSpans adds mcpdecl_trace_spans_dropped_total, the spans the
// tracing dropped: because its queue was full (reason "queue_full") or
// because their export failed ("export_failed"), as dropped reports them.
func (m *Metrics) CountDroppedSpans(dropped func() (queueFull, exportFailed uint64)) {
	if m == nil {
		return
	}
	const name, help = "mcpdecl_trace_spans_dropped_total", "Spans not sent to the OTLP endpoint, by reason: queue_full (the endpoint was slower than the calls) or export_failed (it refused them or could not be reached)."
	m.registry.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: prometheus.Labels{"reason": "queue_full"}},
			func() float64 { full, _ := dropped(); return float64(full) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: prometheus.Labels{"reason": "export_failed"}},
			func() float64 { _, failed := dropped(); return float64(failed) }))
}

// Handler serves the series in Prometheus's text format. With a token, a
// request must carry it as a bearer token, else it is refused with 401;
// nothing it answers says anything of the server's callers.
func (m *Metrics) Handler(token string) http.Handler {
	h := promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
	if token == "" {
		return h
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(strings.TrimSpace(r.Header.Get("Authorization")))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			http.Error(w, "a bearer token is required for "+Path, http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}
