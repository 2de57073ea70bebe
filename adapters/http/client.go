package httpaction

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-resty/resty/v2"
	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// retryPolicy is a decoded retry block.
type retryPolicy struct {
	attempts int   // in all, the first included
	onStatus []int // statuses that are retried
	minWait  time.Duration
	maxWait  time.Duration
}

// RetrySpec is the retry block of an http_api.
var RetrySpec = &spec.Block{
	Name:    "retry",
	In:      "http_api",
	Summary: "Tries a request again when no response came or its status says so.",
	Doc: "Attempts follow a jittered backoff between min_wait and max_wait: always for GET, HEAD, OPTIONS, PUT and DELETE; " +
		"for POST and PATCH only when the connection could not be opened. Retry-After is honoured up to max_wait. Without a retry block nothing is retried.",
	Example: `retry {
  attempts  = 3
  on_status = [429, 503]
}`,
	Attrs: []*spec.Attr{
		spec.Int("attempts", "counts every attempt, the first included").Range(1, 100).WithDefault(3),
		spec.List("on_status", spec.KindInt, "are the HTTP statuses retried").DefaultIs("[429, 502, 503, 504]").Unevaluated(),
		spec.Duration("min_wait", "is the shortest wait before an attempt").WithDefault(100 * time.Millisecond),
		spec.Duration("max_wait", "is the longest wait before an attempt, at least min_wait").WithDefault(2 * time.Second),
	},
}

// decodeRetry decodes a retry block.
func decodeRetry(ctx *engine.DecodeContext, block *hcl.Block) (*retryPolicy, hcl.Diagnostics) {
	v, diags := RetrySpec.Decode(block.Body, ctx)
	p := &retryPolicy{
		attempts: int(v.Int("attempts")),
		onStatus: []int{429, 502, 503, 504},
		minWait:  v.Duration("min_wait"),
		maxWait:  v.Duration("max_wait"),
	}
	if attr := v.Attr("on_status"); attr != nil {
		val, more := ctx.Eval(attr.Expr)
		diags = append(diags, more...)
		if !more.HasErrors() {
			codes, err := intList(val)
			if err == nil {
				for _, c := range codes {
					if c < 100 || c > 599 {
						err = fmt.Errorf("%d is not an HTTP status", c)
						break
					}
				}
			}
			if err != nil {
				diags = append(diags, errorf(attr.Expr.Range(), "Invalid on_status", "on_status must be a list of HTTP statuses such as [429, 503]: %s.", err))
			}
			p.onStatus = codes
		}
	}
	if v.Has("max_wait") && p.maxWait < p.minWait {
		diags = append(diags, errorf(v.Attr("max_wait").Expr.Range(), "Invalid max_wait", "max_wait (%s) must not be shorter than min_wait (%s).", p.maxWait, p.minWait))
	}
	return p, diags
}

// TLSSpec is the tls block of an http_api.
var TLSSpec = &spec.Block{
	Name:    "tls",
	In:      "http_api",
	Summary: "Which certificates the http_api's server may present.",
	Example: `tls {
  insecure_skip_verify = false
}`,
	Attrs: []*spec.Attr{
		spec.String("ca_file", "is a PEM file of the only CAs to trust, relative to the file"),
		spec.Bool("insecure_skip_verify", "accepts any certificate; it loads with a warning, for a local test only").WithDefault(false),
	},
}

// decodeTLS decodes a tls block into the client's TLS configuration.
func decodeTLS(ctx *engine.DecodeContext, block *hcl.Block) (*tls.Config, hcl.Diagnostics) {
	v, diags := TLSSpec.Decode(block.Body, ctx)
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: v.Bool("insecure_skip_verify")}
	if cfg.InsecureSkipVerify {
		diags = append(diags, warnf(v.Attr("insecure_skip_verify").Range, "TLS certificates are not verified",
			"insecure_skip_verify = true accepts any certificate, so anyone on the network path can read and change these requests, credentials included. Use it only for a local test; to trust a private CA, give its certificate with ca_file instead."))
	}
	if !v.Has("ca_file") {
		return cfg, diags
	}
	attr := v.Attr("ca_file")
	if cfg.InsecureSkipVerify {
		return cfg, append(diags, errorf(attr.NameRange, "Conflicting TLS settings",
			"ca_file says which certificates to trust, but insecure_skip_verify = true trusts any; remove one."))
	}
	pem, path, err := ctx.ReadFile(v.String("ca_file"))
	if err != nil {
		return cfg, append(diags, errorf(attr.Expr.Range(), "Cannot read ca_file", "%s.", err))
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return cfg, append(diags, errorf(attr.Expr.Range(), "Invalid ca_file", "%s holds no PEM certificate (-----BEGIN CERTIFICATE-----).", path))
	}
	cfg.RootCAs = pool
	return cfg, diags
}

// reach is where the requests of a client may go: its upstream (none for a
// url = expr(…) action), and the hosts of allowed_hosts.
type reach struct {
	scheme, host string
	allowed      hostList

	// keyParam and key are the query parameter of an api_key and its
	// value, which a redirect to another host must not carry.
	keyParam, key string
}

// first reports whether a request may be sent to u.
func (r *reach) first(u *url.URL) bool {
	if r.host != "" {
		return u.Scheme == r.scheme && u.Host == r.host
	}
	return r.allowed.allows(u)
}

// redirect decides whether a redirect from one URL to another is followed:
// on the same origin, from http to https on the same host, or to an allowed
// host; never from https to http, to another scheme, or to a URL holding
// credentials.
func (r *reach) redirect(from, to *url.URL) error {
	switch {
	case to.Scheme != "http" && to.Scheme != "https":
		return &redirectError{to: to, why: otherScheme}
	case from.Scheme == "https" && to.Scheme != "https":
		return &redirectError{to: to, why: downgrade}
	case to.User != nil:
		return &redirectError{to: to, why: credentials}
	case to.Scheme == from.Scheme && to.Host == from.Host:
		return nil
	case from.Scheme == "http" && to.Scheme == "https" && to.Hostname() == from.Hostname() &&
		from.Port() == "" && (to.Port() == "" || to.Port() == "443"):
		return nil
	case r.host != "" && to.Scheme == r.scheme && to.Host == r.host:
		return nil
	case r.allowed.allows(to):
		return nil
	}
	return &redirectError{to: to, why: otherHost}
}

// stripKey removes the api_key query parameter from u, a redirect to
// another host: an upstream that keeps the query string when it redirects
// would hand the key over. A redirect that still holds the key anywhere
// else in its URL is not followed.
func (r *reach) stripKey(u *url.URL) error {
	if r.key == "" {
		return nil
	}
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		kept := parts[:0]
		for _, p := range parts {
			name, value, _ := strings.Cut(p, "=")
			name, errName := url.QueryUnescape(name)
			value, errValue := url.QueryUnescape(value)
			if (errName == nil && name == r.keyParam) || (errValue == nil && value == r.key) {
				continue
			}
			kept = append(kept, p)
		}
		u.RawQuery = strings.Join(kept, "&")
		u.ForceQuery = false
	}
	if len(r.key) >= 4 {
		s := u.String()
		for _, k := range []string{r.key, url.QueryEscape(r.key), url.PathEscape(r.key)} {
			if strings.Contains(s, k) {
				return &redirectError{to: u, why: keyInURL}
			}
		}
	}
	return nil
}

// redactURL is u without its query string and credentials, for messages.
func redactURL(u *url.URL) string {
	return u.Scheme + "://" + u.Host + u.EscapedPath()
}

// safeOnRedirect are the headers kept when a redirect leaves the host of a
// request: every other one may carry a credential. Referer is dropped too,
// as it would repeat the previous URL, query string included.
var safeOnRedirect = []string{"User-Agent", "Accept", "Accept-Language", "Content-Type"}

// maxIdlePerHost is how many idle connections a client keeps to each host.
const maxIdlePerHost = 64

// newClient returns a client for requests within r. It never stores
// cookies, follows redirects only within r (never from https to http, and
// with no header but safeOnRedirect and no api_key when leaving the
// request's host), refuses to send a request anywhere else, logs nothing,
// and retries as p says (never when p is nil). Bodies are not read by
// resty: see [action.Run].
func newClient(r *reach, tlsConfig *tls.Config, p *retryPolicy) *resty.Client {
	c := resty.New()
	c.SetCookieJar(nil)
	c.SetLogger(discardLogger{})
	c.SetDisableWarn(true)
	c.SetAllowGetMethodPayload(true)
	c.SetDoNotParseResponse(true)
	if tlsConfig != nil {
		c.SetTLSClientConfig(tlsConfig)
	}
	if t, ok := c.GetClient().Transport.(*http.Transport); ok {
		// resty keeps GOMAXPROCS+1 idle connections per host: with more
		// calls under way than that, connections are closed after each
		// request and dialled again, which cost 13% of the CPU of a call
		// in the benchmarks.
		t.MaxIdleConnsPerHost = maxIdlePerHost
		t.MaxIdleConns = max(t.MaxIdleConns, maxIdlePerHost)
		if len(r.allowed) > 0 && !proxied() {
			g := &guardedDialer{r: r, dialer: net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}}
			t.DialContext = g.DialContext
		}
	}
	c.SetRedirectPolicy(resty.RedirectPolicyFunc(func(req *http.Request, via []*http.Request) error {
		from := via[len(via)-1].URL
		if err := r.redirect(from, req.URL); err != nil {
			return err
		}
		if req.URL.Host != via[0].URL.Host {
			for k := range req.Header {
				if !slices.Contains(safeOnRedirect, k) {
					delete(req.Header, k)
				}
			}
			if err := r.stripKey(req.URL); err != nil {
				return err
			}
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}))
	c.SetPreRequestHook(func(_ *resty.Client, req *http.Request) error {
		if !r.first(req.URL) {
			want := r.scheme + "://" + r.host
			if r.host == "" {
				want = "the hosts of allowed_hosts"
			}
			return &originError{want: want, got: req.URL.Scheme + "://" + req.URL.Host}
		}
		if req.ContentLength == 0 {
			// resty gives a request without a body an empty reader of
			// unknown length, which net/http probes with a goroutine and a
			// timer before sending; say there is no body instead.
			req.Body, req.GetBody = http.NoBody, nil
		}
		return nil
	})
	if p != nil && p.attempts > 1 {
		retries := p.attempts - 1
		c.SetRetryCount(retries)
		c.SetRetryWaitTime(p.minWait)
		c.SetRetryMaxWaitTime(p.maxWait)
		c.SetRetryAfter(retryAfter)
		c.AddRetryCondition(p.retry)
		c.AddRetryHook(func(resp *resty.Response, _ error) {
			// The response of an attempt that is retried is dropped: free its
			// connection. The hook also runs after the last attempt, whose
			// response is the result.
			if resp != nil && resp.RawResponse != nil && resp.Request != nil && resp.Request.Attempt <= retries {
				discard(resp.RawResponse)
			}
		})
	}
	return c
}

// originError is a request that would have left its upstream.
type originError struct{ want, got string }

func (e *originError) Error() string {
	return fmt.Sprintf("refusing to send a request to %s: this action may only reach %s", e.got, e.want)
}

// retry decides whether an attempt is retried.
func (p *retryPolicy) retry(resp *resty.Response, err error) bool {
	if resp == nil || resp.Request == nil || resp.Request.Context().Err() != nil {
		return false
	}
	if err != nil {
		return retryableError(resp.Request.Method, err)
	}
	return resp.RawResponse != nil && slices.Contains(p.onStatus, resp.RawResponse.StatusCode)
}

// retryableError reports whether a request that failed with err, before any
// response, may be sent again.
func retryableError(method string, err error) bool {
	var origin *originError
	var redirect *redirectError
	var unknownAuthority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	if errors.As(err, &origin) || errors.As(err, &redirect) || errors.As(err, &unknownAuthority) || errors.As(err, &hostname) ||
		errors.As(err, &invalid) || errors.As(err, &verify) {
		return false
	}
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete:
		return true
	}
	// The server never saw a request whose connection could not be opened.
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// maxRetryAfter bounds what a Retry-After header can ask for before resty
// caps it with max_wait, so that the arithmetic cannot overflow.
const maxRetryAfter = 24 * time.Hour

// retryAfter reads the Retry-After header of a response to be retried, in
// seconds or as an HTTP date. Zero lets resty use its backoff.
func retryAfter(_ *resty.Client, resp *resty.Response) (time.Duration, error) {
	if resp == nil || resp.RawResponse == nil {
		return 0, nil
	}
	v := resp.RawResponse.Header.Get("Retry-After")
	if v == "" {
		return 0, nil
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0, nil
		}
		return min(time.Duration(n)*time.Second, maxRetryAfter), nil
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return min(d, maxRetryAfter), nil
		}
	}
	return 0, nil
}

// discard drains a little of a response body, so that its connection can be
// reused, and closes it.
func discard(resp *http.Response) {
	_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
	_ = resp.Body.Close()
}

// discardLogger silences resty, whose messages would hold URLs with their
// query strings.
type discardLogger struct{}

func (discardLogger) Errorf(string, ...any) {}
func (discardLogger) Warnf(string, ...any)  {}
func (discardLogger) Debugf(string, ...any) {}
