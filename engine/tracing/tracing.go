package tracing

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Tracing is a server's tracer provider and the queue in front of its
// exporter. A nil *Tracing traces nothing.
type Tracing struct {
	provider *sdktrace.TracerProvider
	queue    *queue
	endpoint string
}

// Options say what FromEnv cannot read from the environment.
type Options struct {
	// Version is the server's version, the service.version of its spans.
	Version string
	// Logger is told of failed exports (at most one record a minute).
	Logger *slog.Logger
	// Exporter, when not nil, receives the spans instead of OTLP, whatever
	// the environment says of the endpoint (for tests).
	Exporter sdktrace.SpanExporter
}

// Defaults of the batching, as the OpenTelemetry specification gives them
// for its OTEL_BSP_* variables.
const (
	defaultQueueSize = 2048
	defaultBatchSize = 512
	defaultDelay     = 5 * time.Second
	defaultTimeout   = 30 * time.Second
)

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
		_, endpoint := firstNamed("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
		return endpoint != ""
	default:
		return true // otlp; others are refused by FromEnv
	}
}

// FromEnv builds the tracing the OTEL_* environment variables describe, or
// returns nil when they do not ask for traces (see [Enabled]). It reads
// OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, _HEADERS, _TIMEOUT, _COMPRESSION,
// _INSECURE and the certificate variables (see [otlpFromEnv]),
// OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL (http/protobuf only),
// OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG, OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES, and OTEL_BSP_MAX_QUEUE_SIZE,
// OTEL_BSP_MAX_EXPORT_BATCH_SIZE, OTEL_BSP_SCHEDULE_DELAY and
// OTEL_BSP_EXPORT_TIMEOUT. A value it cannot use is an error that names
// the variable.
func FromEnv(opts Options) (*Tracing, error) {
	if opts.Exporter == nil && !Enabled() {
		return nil, nil
	}
	if e := strings.ToLower(env("OTEL_TRACES_EXPORTER")); e != "" && e != "otlp" {
		return nil, fmt.Errorf("OTEL_TRACES_EXPORTER=%q: mcpdecl exports traces over OTLP only; set it to \"otlp\" (or \"none\" for no traces)", e)
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if p := env(name); p != "" {
			if p != "http/protobuf" {
				return nil, fmt.Errorf("%s=%q: mcpdecl sends traces with OTLP over HTTP (http/protobuf), the protocol every OTLP receiver accepts on port 4318; set it to \"http/protobuf\" or leave it unset", name, p)
			}
			break
		}
	}
	sampler, err := samplerFromEnv()
	if err != nil {
		return nil, err
	}
	size, err := intEnv("OTEL_BSP_MAX_QUEUE_SIZE", defaultQueueSize, "")
	if err != nil {
		return nil, err
	}
	batch, err := intEnv("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", defaultBatchSize, "")
	if err != nil {
		return nil, err
	}
	delay, err := millisEnv("OTEL_BSP_SCHEDULE_DELAY", defaultDelay)
	if err != nil {
		return nil, err
	}
	timeout, err := millisEnv("OTEL_BSP_EXPORT_TIMEOUT", defaultTimeout)
	if err != nil {
		return nil, err
	}
	res, err := resource.Merge(
		resource.NewSchemaless(attribute.String("service.name", "mcpdecl"), attribute.String("service.version", opts.Version)),
		resource.Environment())
	if err != nil {
		return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}

	exporter := opts.Exporter
	endpoint := "(test exporter)"
	if exporter == nil {
		otlp, err := otlpFromEnv()
		if err != nil {
			return nil, err
		}
		exporter, endpoint = otlp, otlp.url
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	var lastLogged atomic.Int64
	onError := func(err error) {
		now := time.Now().UnixNano()
		last := lastLogged.Load()
		if now-last < int64(time.Minute) || !lastLogged.CompareAndSwap(last, now) {
			return
		}
		logger.Warn("traces could not be exported; the spans of that batch are dropped (mcpdecl_trace_spans_dropped_total counts them)", "endpoint", endpoint, "error", err)
	}
	q := newQueue(exporter, size, min(batch, size), delay, timeout, onError)
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithSampler(sampler),
		sdktrace.WithResource(res),
		sdktrace.WithSpanProcessor(q),
	)
	return &Tracing{provider: tp, queue: q, endpoint: endpoint}, nil
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
	return t.queue.full.Load(), t.queue.failed.Load()
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

// samplerFromEnv is the sampler OTEL_TRACES_SAMPLER and
// OTEL_TRACES_SAMPLER_ARG name; parentbased_always_on when unset, as the
// specification says.
func samplerFromEnv() (sdktrace.Sampler, error) {
	name := strings.ToLower(env("OTEL_TRACES_SAMPLER"))
	arg := env("OTEL_TRACES_SAMPLER_ARG")
	ratio := func() (sdktrace.Sampler, error) {
		if arg == "" {
			return sdktrace.TraceIDRatioBased(1), nil
		}
		r, err := strconv.ParseFloat(arg, 64)
		if err != nil || r < 0 || r > 1 {
			return nil, fmt.Errorf("OTEL_TRACES_SAMPLER_ARG=%q: the ratio of traces sampled is a number from 0 to 1, such as 0.25", arg)
		}
		return sdktrace.TraceIDRatioBased(r), nil
	}
	switch name {
	case "", "parentbased_always_on":
		return sdktrace.ParentBased(sdktrace.AlwaysSample()), nil
	case "always_on":
		return sdktrace.AlwaysSample(), nil
	case "always_off":
		return sdktrace.NeverSample(), nil
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample()), nil
	case "traceidratio":
		return ratio()
	case "parentbased_traceidratio":
		s, err := ratio()
		if err != nil {
			return nil, err
		}
		return sdktrace.ParentBased(s), nil
	}
	return nil, fmt.Errorf("OTEL_TRACES_SAMPLER=%q is not a sampler mcpdecl knows: use always_on, always_off, traceidratio, parentbased_always_on (the default), parentbased_always_off or parentbased_traceidratio", name)
}

// intEnv reads a positive whole number of unit ("" for a count) from the
// variable name, or def when it is unset.
func intEnv(name string, def int, unit string) (int, error) {
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

// millisEnv reads a duration in milliseconds from the variable name, or def
// when it is unset.
func millisEnv(name string, def time.Duration) (time.Duration, error) {
	n, err := intEnv(name, int(def/time.Millisecond), "milliseconds")
	return time.Duration(n) * time.Millisecond, err
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

// env is the value of the environment variable name, trimmed.
func env(name string) string { return strings.TrimSpace(os.Getenv(name)) }
