package tracing

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcpdecl/mcpdecl/engine"
)

// otlpExporter sends spans to an OTLP/HTTP receiver as protobuf
// (http/protobuf), written straight from the spans by appendRequest. It is
// configured as the OTLP exporter specification says, from the
// OTEL_EXPORTER_OTLP_* variables (see [otlpFromEnv]), and retries what the
// specification calls transient failures (429, 502, 503, 504, and a
// request that timed out) with exponential backoff, honouring
// Retry-After, until its context is done.
type otlpExporter struct {
	url     string // where the spans are posted
	headers http.Header
	gzip    bool
	client  *http.Client

	mu  sync.Mutex // the queue exports one batch at a time; Shutdown may overlap
	buf []byte     // the last request's bytes, reused

	stopped chan struct{}
	stop    sync.Once
}

var _ sdktrace.SpanExporter = (*otlpExporter)(nil)

// Defaults of the OTLP exporter specification.
const (
	defaultEndpoint  = "http://localhost:4318"
	tracesPath       = "/v1/traces"
	defaultOTLPLimit = 10 * time.Second
	// maxResponse caps what is read of a receiver's answer.
	maxResponse = 64 << 10
	// maxKeptBuffer is the largest request buffer kept from one export to
	// the next (a batch of 512 spans of a call takes about 200 KB).
	maxKeptBuffer = 4 << 20
)

// otlpFromEnv builds the exporter the OTEL_EXPORTER_OTLP_* variables
// describe, each read from its TRACES_ form first: the endpoint
// (OTEL_EXPORTER_OTLP_ENDPOINT is a base URL to which /v1/traces is added;
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as it is), the headers
// (key=value pairs, comma-separated, values percent-encoded), the timeout
// of a request in milliseconds, the compression (gzip or none), the
// certificate authority and the client certificate and key (PEM files);
// _INSECURE=true sends over plain HTTP, as the http scheme does. A value
// it cannot use is an error that names the variable.
func otlpFromEnv() (*otlpExporter, error) {
	e := &otlpExporter{headers: http.Header{}, stopped: make(chan struct{})}

	name, target := firstNamed("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
	u, err := url.Parse(target)
	if target == "" {
		u, _ = url.Parse(defaultEndpoint)
	}
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("%s=%q: expected the URL of an OTLP/HTTP receiver, such as http://localhost:4318", name, shown(target))
	}
	switch name {
	case "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT":
		// Used as it is; with no path, the root.
		if u.Path == "" {
			u.Path = "/"
		}
	default:
		u.Path = path.Join("/", u.Path, tracesPath)
	}
	if b, set, err := boolEnv("OTEL_EXPORTER_OTLP_TRACES_INSECURE", "OTEL_EXPORTER_OTLP_INSECURE"); err != nil {
		return nil, err
	} else if set && b {
		u.Scheme = "http"
	}
	// Credentials belong in headers; a query string or fragment is no part
	// of an OTLP endpoint. So the URL can be shown as it is.
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	e.url = u.String()

	if name, v := firstNamed("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS"); v != "" {
		if err := parseHeaders(v, e.headers); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	timeout := defaultOTLPLimit
	if name, _ := firstNamed("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"); name != "" {
		if timeout, err = millisEnv(name, defaultOTLPLimit); err != nil {
			return nil, err
		}
	}
	if name, v := firstNamed("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "OTEL_EXPORTER_OTLP_COMPRESSION"); v != "" {
		switch strings.ToLower(v) {
		case "gzip":
			e.gzip = true
		case "none":
		default:
			return nil, fmt.Errorf("%s=%q: the compression is gzip or none", name, v)
		}
	}
	tlsConf, err := tlsFromEnv()
	if err != nil {
		return nil, err
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = tlsConf
	e.client = &http.Client{Transport: transport, Timeout: timeout}
	return e, nil
}

// tlsFromEnv is the TLS configuration the certificate variables give.
func tlsFromEnv() (*tls.Config, error) {
	conf := &tls.Config{MinVersion: tls.VersionTLS12}
	if name, file := firstNamed("OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE", "OTEL_EXPORTER_OTLP_CERTIFICATE"); file != "" {
		pem, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s=%q: the file holds no PEM certificate", name, file)
		}
		conf.RootCAs = pool
	}
	certName, certFile := firstNamed("OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE", "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE")
	keyName, keyFile := firstNamed("OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY", "OTEL_EXPORTER_OTLP_CLIENT_KEY")
	switch {
	case certFile != "" && keyFile != "":
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("%s and %s: %w", certName, keyName, err)
		}
		conf.Certificates = []tls.Certificate{cert}
	case certFile != "":
		return nil, fmt.Errorf("%s is set but not its key: set OTEL_EXPORTER_OTLP_CLIENT_KEY (or its TRACES_ form) too", certName)
	case keyFile != "":
		return nil, fmt.Errorf("%s is set but not its certificate: set OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE (or its TRACES_ form) too", keyName)
	}
	return conf, nil
}

// parseHeaders adds the headers of v, key=value pairs separated by commas
// with percent-encoded values (the W3C Baggage format, as the
// specification says), to h.
func parseHeaders(v string, h http.Header) error {
	for pair := range strings.SplitSeq(v, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, val, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t\"(),/:;<=>?@[\\]{}") {
			// The pair is not shown: it may hold a secret.
			return errors.New("expected key=value pairs separated by commas, such as api-key=abc,tenant=7")
		}
		decoded, err := url.PathUnescape(strings.TrimSpace(val))
		if err != nil {
			return fmt.Errorf("the value of %s is not percent-encoded correctly", k)
		}
		h.Set(k, decoded)
	}
	return nil
}

// ExportSpans posts spans as one request, retrying transient failures
// until ctx is done.
func (e *otlpExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	select {
	case <-e.stopped:
		return errors.New("the exporter is shut down")
	default:
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.buf = appendRequest(e.buf[:0], spans)
	body := e.buf
	if cap(e.buf) > maxKeptBuffer {
		// An unusually large batch: its buffer is not kept for the next.
		e.buf = nil
	}
	if e.gzip {
		var zb bytes.Buffer
		zw := gzip.NewWriter(&zb)
		if _, err := zw.Write(body); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		body = zb.Bytes()
	}
	backoff := time.Second
	for {
		retry, wait, err := e.post(ctx, body)
		if !retry {
			return err
		}
		if wait <= 0 {
			wait = backoff
			backoff = min(2*backoff, 30*time.Second)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (the last attempt: %w)", ctx.Err(), err)
		case <-e.stopped:
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

// post sends one attempt: retry says whether a failure is transient, wait
// what the receiver asked for (Retry-After).
func (e *otlpExporter) post(ctx context.Context, body []byte) (retry bool, wait time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return false, 0, err
	}
	for k, v := range e.headers {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	if e.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := e.client.Do(req)
	if err != nil {
		// A receiver that timed out may answer the next attempt; one that
		// refused the connection or cannot be found is not waited for.
		var ne net.Error
		transient := errors.As(err, &ne) && ne.Timeout() && ctx.Err() == nil
		return transient, 0, fmt.Errorf("posting spans to %s: %w", e.url, engine.UnwrapURLError(err))
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		if rejected, msg := partialSuccess(answer, resp.Header.Get("Content-Type")); rejected > 0 || msg != "" {
			return false, 0, fmt.Errorf("the receiver at %s rejected %d span(s): %s", e.url, rejected, msg)
		}
		return false, 0, nil
	case code == http.StatusTooManyRequests || code == http.StatusBadGateway || code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout:
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			wait = time.Duration(s) * time.Second
		}
		return true, wait, fmt.Errorf("the receiver at %s answered %s", e.url, resp.Status)
	default:
		msg := engine.Excerpt(ctx, string(answer))
		if msg == "" {
			msg = "(no message)"
		}
		return false, 0, fmt.Errorf("the receiver at %s answered %s: %s", e.url, resp.Status, msg)
	}
}

// partialSuccess reads the partial_success of an ExportTraceServiceResponse
// in protobuf: the spans rejected and why.
func partialSuccess(b []byte, contentType string) (rejected int64, msg string) {
	if len(b) == 0 || !strings.HasPrefix(contentType, "application/x-protobuf") {
		return 0, ""
	}
	ok := eachField(b, func(num protowire.Number, typ protowire.Type, v []byte) {
		if num != 1 || typ != protowire.BytesType {
			return
		}
		// The partial success: what of it was read before a malformed
		// field is kept.
		eachField(v, func(num protowire.Number, typ protowire.Type, v []byte) {
			switch {
			case num == 1 && typ == protowire.VarintType:
				if n, k := protowire.ConsumeVarint(v); k > 0 {
					rejected = int64(n)
				}
			case num == 2 && typ == protowire.BytesType:
				msg = engine.Excerpt(context.Background(), string(v))
			}
		})
	})
	if !ok {
		return 0, ""
	}
	return rejected, msg
}

// eachField calls f with the number, the type and the value of each field
// of the protobuf message b, in order (a length-delimited value without its
// length; others as they are encoded), and reports whether b was read to
// its end without a malformed field.
func eachField(b []byte, f func(num protowire.Number, typ protowire.Type, v []byte)) bool {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		b = b[n:]
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return false
		}
		v := b[:n]
		if typ == protowire.BytesType {
			v, _ = protowire.ConsumeBytes(v)
		}
		f(num, typ, v)
		b = b[n:]
	}
	return true
}

// Shutdown stops the exporter: exports in progress give up their retries.
func (e *otlpExporter) Shutdown(context.Context) error {
	e.stop.Do(func() { close(e.stopped) })
	e.client.CloseIdleConnections()
	return nil
}

// boolEnv reads the first of names that is set as true or false.
func boolEnv(names ...string) (value, set bool, err error) {
	name, v := firstNamed(names...)
	if name == "" {
		return false, false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, false, fmt.Errorf("%s=%q: expected true or false", name, v)
	}
	return b, true, nil
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
