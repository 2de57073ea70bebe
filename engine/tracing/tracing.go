package tracing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/net/http/httpguts"

	"github.com/mcpdecl/mcpdecl/engine/text"
)

// Tracing is a server's tracer provider: the SDK's batch span processor in
// front of its OTLP/HTTP exporter, with the spans it drops counted. A nil
// *Tracing traces nothing.
type Tracing struct {
	provider *sdktrace.TracerProvider
	drops    *drops
	endpoint string
}

// Options say what FromEnv cannot read from the environment.
type Options struct {
	// Version is the server's version, the service.version of its spans.
	Version string
	// Logger is told of failed exports (at most one record a minute), and
	// of what else the OpenTelemetry SDK reports.
	Logger *slog.Logger
	// Exporter, when not nil, receives the spans instead of OTLP, whatever
	// the environment says of the endpoint (for tests).
	Exporter sdktrace.SpanExporter
}

// Enabled reports whether the environment asks for traces: an OTLP
// endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), or OTEL_TRACES_EXPORTER is "otlp";
// and neither OTEL_SDK_DISABLED is "true" nor OTEL_TRACES_EXPORTER "none".
func Enabled() bool {
	if strings.EqualFold(env("OTEL_SDK_DISABLED"), "true") {
		return false
	}
	switch exporter := strings.ToLower(env("OTEL_TRACES_EXPORTER")); exporter {
	case "none":
		return false
	case "":
		_, endpoint := firstNamed(otlpVars("ENDPOINT")...)
		return endpoint != ""
	default:
		return true // otlp; others are refused by FromEnv
	}
}

// FromEnv builds the tracing the OTEL_* environment variables describe, or
// returns nil when they do not ask for traces (see [Enabled]). The
// OpenTelemetry SDK reads them: its OTLP/HTTP exporter
// (otlptracehttp) the OTEL_EXPORTER_OTLP_* ones, its tracer provider
// OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG, its batch span processor
// the OTEL_BSP_* ones, and its resource OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES. Where the SDK would only log a value it cannot
// use and go on with a default (or send elsewhere), FromEnv refuses it
// first, with an error that names the variable (see [checkEnv]). What the
// SDK reports later goes to opts.Logger: FromEnv sets the SDK's global
// error handler and logger (a process has one of each).
func FromEnv(opts Options) (*Tracing, error) {
	if opts.Exporter == nil && !Enabled() {
		return nil, nil
	}
	queueSize, err := checkEnv()
	if err != nil {
		return nil, err
	}
	res, err := resource.Merge(
		resource.NewSchemaless(attribute.String("service.name", "mcpdecl"), attribute.String("service.version", opts.Version)),
		resource.Environment())
	if err != nil {
		return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}

	endpoint := "(test exporter)"
	if opts.Exporter == nil {
		endpoint = endpointFromEnv()
	}

	// The SDK reports a failed export, and anything else that goes wrong
	// outside a call (a certificate file the exporter cannot read, say), to
	// its global error handler and logger.
	var lastLogged atomic.Int64
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		var failed exportError
		if !errors.As(err, &failed) {
			logger.Warn("OpenTelemetry reported an error", "error", text.Excerpt(context.Background(), err.Error()))
			return
		}
		now := time.Now().UnixNano()
		last := lastLogged.Load()
		if now-last < int64(time.Minute) || !lastLogged.CompareAndSwap(last, now) {
			return
		}
		logger.Warn("traces could not be exported; the spans of that batch are dropped (mcpdecl_trace_spans_dropped_total counts them)", "endpoint", endpoint, "error", text.Excerpt(context.Background(), failed.err.Error()))
	}))
	otel.SetLogger(logr.FromSlogHandler(logger.Handler()))

	exporter := opts.Exporter
	if exporter == nil {
		var options []otlptracehttp.Option
		if name, _ := firstNamed(append(otlpVars("ENDPOINT"), otlpVars("INSECURE")...)...); name == "" {
			// The specification's default is http://localhost:4318; the
			// exporter's is https.
			options = append(options, otlptracehttp.WithInsecure())
		}
		otlp, err := otlptracehttp.New(context.Background(), options...)
		if err != nil {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_*: %w", err)
		}
		exporter = otlp
	}

	d := &drops{limit: int64(queueSize)}
	bsp := sdktrace.NewBatchSpanProcessor(countingExporter{exporter, d}, sdktrace.WithMaxQueueSize(queueSize+flushRoom))
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithResource(res),
		sdktrace.WithSpanProcessor(countingProcessor{bsp, d}),
	)
	return &Tracing{provider: tp, drops: d, endpoint: endpoint}, nil
}

// Provider is the tracer provider, or a provider that makes spans that
// record nothing when t is nil.
func (t *Tracing) Provider() trace.TracerProvider {
	if t == nil {
		return nil
	}
	return t.provider
}

// Endpoint is where the traces go, for logs.
func (t *Tracing) Endpoint() string { return t.endpoint }

// Dropped reports the spans dropped so far: because the queue was full,
// and because their export failed.
func (t *Tracing) Dropped() (queueFull, exportFailed uint64) {
	if t == nil {
		return 0, 0
	}
	return t.drops.full.Load(), t.drops.failed.Load()
}

// Flush sends the spans ended so far, waiting until ctx is done at most.
func (t *Tracing) Flush(ctx context.Context) error {
	if t == nil {
		return nil
	}
	return t.provider.ForceFlush(ctx)
}

// Shutdown sends what is queued and stops, waiting until ctx is done at
// most.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	return t.provider.Shutdown(ctx)
}

// The batch span processor drops a span that finds its queue full without
// saying so, so the spans are counted around it: countingProcessor lets at
// most limit spans in that its exporter has not yet seen, and turns the
// others away itself (counted in full); countingExporter tells it when a
// batch is through, and counts the spans of a batch whose export failed.
// The processor's queue has room for limit spans and flushRoom more, for
// the markers ForceFlush puts in it, so it never drops a span itself.
type drops struct {
	limit   int64
	pending atomic.Int64 // spans let in, not yet through the exporter
	full    atomic.Uint64
	failed  atomic.Uint64
}

// flushRoom is the room left in the processor's queue for ForceFlush.
const flushRoom = 8

// countingProcessor is the batch span processor, with the spans it would
// drop counted.
type countingProcessor struct {
	sdktrace.SpanProcessor
	*drops
}

// OnEnd hands a sampled span to the batch span processor, or drops and
// counts it when limit spans are already waiting for their export.
func (p countingProcessor) OnEnd(s sdktrace.ReadOnlySpan) {
	if !s.SpanContext().IsSampled() {
		return
	}
	if p.pending.Add(1) > p.limit {
		p.pending.Add(-1)
		p.full.Add(1)
		return
	}
	p.SpanProcessor.OnEnd(s)
}

// countingExporter is the exporter behind the batch span processor.
type countingExporter struct {
	sdktrace.SpanExporter
	*drops
}

// ExportSpans exports a batch, counting its spans as failed when the
// export fails.
func (e countingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := e.SpanExporter.ExportSpans(ctx, spans)
	e.pending.Add(-int64(len(spans)))
	if err != nil {
		e.failed.Add(uint64(len(spans)))
		return exportError{err}
	}
	return nil
}

// exportError is a failed export, as the SDK's error handler receives it.
type exportError struct{ err error }

func (e exportError) Error() string { return e.err.Error() }
func (e exportError) Unwrap() error { return e.err }

// checkEnv refuses the values of OTEL_* variables that mcpdecl cannot use,
// or that the SDK would replace by a default with at most a line in the
// log, with an error that names the variable; and it returns the queue
// size, OTEL_BSP_MAX_QUEUE_SIZE.
func checkEnv() (queueSize int, err error) {
	if e := strings.ToLower(env("OTEL_TRACES_EXPORTER")); e != "" && e != "otlp" {
		return 0, fmt.Errorf("OTEL_TRACES_EXPORTER=%q: mcpdecl exports traces over OTLP only; set it to \"otlp\" (or \"none\" for no traces)", e)
	}
	for _, name := range otlpVars("PROTOCOL") {
		if p := env(name); p != "" && p != "http/protobuf" && p != "http/json" {
			return 0, fmt.Errorf("%s=%q: mcpdecl sends traces with OTLP over HTTP, the protocol every OTLP receiver accepts on port 4318; set it to \"http/protobuf\" (the default) or \"http/json\", or leave it unset", name, p)
		}
	}
	for _, name := range otlpVars("ENDPOINT") {
		if v := env(name); v != "" {
			if u, err := url.Parse(v); err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
				return 0, fmt.Errorf("%s=%q: expected the URL of an OTLP/HTTP receiver, such as http://localhost:4318", name, shown(v))
			}
		}
	}
	for _, name := range otlpVars("HEADERS") {
		if err := checkHeaders(env(name)); err != nil {
			return 0, fmt.Errorf("%s: %w", name, err)
		}
	}
	for _, name := range otlpVars("COMPRESSION") {
		if v := env(name); v != "" && v != "gzip" && v != "none" {
			return 0, fmt.Errorf("%s=%q: the compression is gzip or none", name, v)
		}
	}
	for _, name := range otlpVars("INSECURE") {
		if v := strings.ToLower(env(name)); v != "" && v != "true" && v != "false" {
			return 0, fmt.Errorf("%s=%q: expected true or false", name, v)
		}
	}
	for _, name := range otlpVars("TIMEOUT") {
		if _, err := positive(name, 10000, "milliseconds"); err != nil {
			return 0, err
		}
	}
	if err := checkSampler(); err != nil {
		return 0, err
	}
	if queueSize, err = positive("OTEL_BSP_MAX_QUEUE_SIZE", sdktrace.DefaultMaxQueueSize, ""); err != nil {
		return 0, err
	}
	for _, v := range []struct {
		name string
		def  int
		unit string
	}{
		{"OTEL_BSP_MAX_EXPORT_BATCH_SIZE", sdktrace.DefaultMaxExportBatchSize, ""},
		{"OTEL_BSP_SCHEDULE_DELAY", sdktrace.DefaultScheduleDelay, "milliseconds"},
		{"OTEL_BSP_EXPORT_TIMEOUT", sdktrace.DefaultExportTimeout, "milliseconds"},
	} {
		if _, err := positive(v.name, v.def, v.unit); err != nil {
			return 0, err
		}
	}
	return queueSize, nil
}

// checkSampler checks OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG,
// which the tracer provider reads (parentbased_always_on when unset).
func checkSampler() error {
	switch name := strings.ToLower(env("OTEL_TRACES_SAMPLER")); name {
	case "", "always_on", "always_off", "parentbased_always_on", "parentbased_always_off":
		return nil
	case "traceidratio", "parentbased_traceidratio":
		if arg := env("OTEL_TRACES_SAMPLER_ARG"); arg != "" {
			if r, err := strconv.ParseFloat(arg, 64); err != nil || r < 0 || r > 1 {
				return fmt.Errorf("OTEL_TRACES_SAMPLER_ARG=%q: the ratio of traces sampled is a number from 0 to 1, such as 0.25", arg)
			}
		}
		return nil
	default:
		return fmt.Errorf("OTEL_TRACES_SAMPLER=%q is not a sampler mcpdecl knows: use always_on, always_off, traceidratio, parentbased_always_on (the default), parentbased_always_off or parentbased_traceidratio", name)
	}
}

// checkHeaders checks a list of headers as the exporter reads it:
// key=value pairs separated by commas, values percent-encoded. A pair is
// never shown: it may hold a secret.
func checkHeaders(v string) error {
	for pair := range strings.SplitSeq(v, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, val, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || !httpguts.ValidHeaderFieldName(k) {
			return errors.New("expected key=value pairs separated by commas, such as api-key=abc,tenant=7")
		}
		if _, err := url.PathUnescape(val); err != nil {
			return fmt.Errorf("the value of %s is not percent-encoded correctly", k)
		}
	}
	return nil
}

// positive reads a positive whole number of unit ("" for a count) from the
// variable name, or def when it is unset.
func positive(name string, def int, unit string) (int, error) {
	s := env(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		if unit != "" {
			unit = " of " + unit
		}
		return 0, fmt.Errorf("%s=%q: expected a positive whole number%s, such as %d", name, s, unit, def)
	}
	return n, nil
}

// endpointFromEnv is the URL the exporter posts to, as the specification
// resolves it: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is (the root when
// it has no path), else OTEL_EXPORTER_OTLP_ENDPOINT with /v1/traces added,
// else http://localhost:4318/v1/traces; the _INSECURE variables choose the
// scheme. Credentials are left out.
func endpointFromEnv() string {
	u, _ := url.Parse("http://localhost:4318/v1/traces")
	if v := env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); v != "" {
		u, _ = url.Parse(v)
		if u.Path == "" {
			u.Path = "/"
		}
	} else if v := env("OTEL_EXPORTER_OTLP_ENDPOINT"); v != "" {
		u, _ = url.Parse(v)
		u.Path = path.Join("/", u.Path, "v1/traces")
	}
	switch _, insecure := firstNamed(otlpVars("INSECURE")...); strings.ToLower(insecure) {
	case "true":
		u.Scheme = "http"
	case "false":
		u.Scheme = "https"
	}
	return shown(u.String())
}

// shown is an endpoint as errors show it: without user information or
// query string, which may hold credentials.
func shown(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "(an endpoint that is not a URL)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// otlpVars are the names of an exporter setting, its TRACES_ form first
// (which the exporter prefers).
func otlpVars(suffix string) []string {
	return []string{"OTEL_EXPORTER_OTLP_TRACES_" + suffix, "OTEL_EXPORTER_OTLP_" + suffix}
}

// firstNamed is the name and value of the first of names that is set.
func firstNamed(names ...string) (name, value string) {
	for _, n := range names {
		if v := env(n); v != "" {
			return n, v
		}
	}
	return "", ""
}

// env is the value of the environment variable name, trimmed.
func env(name string) string { return strings.TrimSpace(os.Getenv(name)) }
