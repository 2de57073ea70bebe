package httpaction

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpdecl/mcpdecl/engine"
)

// tooLargeError is a response body over max_response_bytes.
type tooLargeError struct{ limit int64 }

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("the response body is larger than the limit of %d bytes (max_response_bytes)", e.limit)
}

// invalidJSONError is a body that says it is JSON and is not.
type invalidJSONError struct {
	mediaType string
	err       error
	excerpt   string
}

func (e *invalidJSONError) Error() string {
	return fmt.Sprintf("the response says it is JSON (%s) but it is not valid JSON: %v; it begins: %s", e.mediaType, e.err, e.excerpt)
}

// response reads a response into what the programs and the result see.
func (a *action) response(ctx context.Context, raw *http.Response, where string) (*engine.Response, error) {
	data, err := readBody(raw, a.maxBytes)
	if err != nil {
		return nil, err
	}
	status := raw.StatusCode
	mediaType := mediaTypeOf(raw.Header.Get("Content-Type"))

	headers := make(map[string]any, len(raw.Header))
	for k, vs := range raw.Header {
		if len(vs) > 0 {
			headers[lowerHeader(k)] = vs[0]
		}
	}

	out := &engine.Response{}
	var body any
	text, isText := "", true
	switch {
	case strings.HasPrefix(mediaType, "image/"):
		out.Content = []engine.Content{{Type: engine.ImageContent, Data: data, MIMEType: mediaType}}
		isText = false
	case strings.HasPrefix(mediaType, "audio/"):
		out.Content = []engine.Content{{Type: engine.AudioContent, Data: data, MIMEType: mediaType}}
		isText = false
	case isJSON(mediaType):
		text = string(data)
		if len(data) > 0 {
			v, err := decodeJSON(data)
			switch {
			case err == nil:
				body = v
			case status < 400:
				return nil, &invalidJSONError{mediaType: mediaType, err: err, excerpt: engine.Excerpt(ctx, string(data))}
			default:
				// An error page that says it is JSON: keep it as text.
				body = text
			}
		}
	case !utf8.Valid(data):
		text = fmt.Sprintf("(%d bytes of %s, which cannot be shown as text)", len(data), orUnknown(mediaType))
		isText = false
	default:
		text = string(data)
		body = text
		if mediaType == "" && looksLikeJSON(data) {
			if v, err := decodeJSON(data); err == nil {
				body = v
			}
		}
	}
	if out.Content == nil {
		out.Content = []engine.Content{{Type: engine.TextContent, Text: text}}
	}
	out.Vars = make(map[string]any, 5) // the engine adds args
	out.Vars["status"] = status
	out.Vars["headers"] = headers
	out.Vars["body"] = body
	out.Vars["content_type"] = mediaType
	if status >= 400 {
		msg := "HTTP " + strconv.Itoa(status)
		if st := http.StatusText(status); st != "" {
			msg += " " + st
		}
		msg += " from " + a.method + " " + where
		if isText && len(data) > 0 {
			if e := engine.Excerpt(ctx, string(data)); e != "" {
				msg += ": " + e
			}
		}
		out.Failure = msg
	}
	return out, nil
}

// readBody reads a body of at most limit bytes. A longer one is an error:
// it is never cut short.
func readBody(raw *http.Response, limit int64) ([]byte, error) {
	if raw.ContentLength > limit {
		return nil, &tooLargeError{limit: limit}
	}
	size := int64(512)
	if raw.ContentLength >= 0 {
		size = raw.ContentLength + 1 // room to read the end of the body
	}
	size = min(size, limit+1)
	buf := make([]byte, 0, size)
	r := io.LimitedReader{R: raw.Body, N: limit + 1}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(len(buf)) > limit {
		return nil, &tooLargeError{limit: limit}
	}
	return buf, nil
}

// mediaTypeOf returns the media type of a Content-Type, without its
// parameters, in lower case.
func mediaTypeOf(ct string) string {
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return strings.ToLower(strings.TrimSpace(ct))
}

// isJSON reports media types whose bodies are JSON.
func isJSON(mt string) bool {
	return mt == "application/json" || mt == "text/json" || strings.HasSuffix(mt, "+json")
}

// looksLikeJSON reports whether a body without a media type may be JSON.
func looksLikeJSON(data []byte) bool {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{', '[', '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 't', 'f', 'n':
			return true
		}
		return false
	}
	return false
}

// decodeJSON decodes a JSON body; whole numbers that float64 holds exactly
// become ints, as in the rest of mcpdecl.
func decodeJSON(data []byte) (any, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return wholeNumbers(v), nil
}

// maxExact is the largest magnitude below which every whole float64 is
// exact.
const maxExact = 1 << 53

// wholeNumbers replaces, in place, the whole float64 numbers of v by ints.
func wholeNumbers(v any) any {
	switch t := v.(type) {
	case float64:
		if t == math.Trunc(t) && t >= -maxExact && t <= maxExact {
			return int(t)
		}
	case []any:
		for i, e := range t {
			t[i] = wholeNumbers(e)
		}
	case map[string]any:
		for k, e := range t {
			switch e.(type) {
			case float64, []any, map[string]any:
				t[k] = wholeNumbers(e)
			}
		}
	}
	return v
}

func orUnknown(mt string) string {
	if mt == "" {
		return "an unknown type"
	}
	return mt
}

// lowerNames holds the lower-case names of common headers, so that most
// responses need no allocation for them.
var lowerNames = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{
		"Accept-Ranges", "Access-Control-Allow-Origin", "Age", "Cache-Control", "Connection",
		"Content-Disposition", "Content-Encoding", "Content-Language", "Content-Length",
		"Content-Type", "Date", "Etag", "Expires", "Last-Modified", "Link", "Location",
		"Retry-After", "Server", "Set-Cookie", "Strict-Transport-Security", "Vary",
		"Www-Authenticate", "X-Content-Type-Options", "X-Frame-Options", "X-Request-Id",
		"X-Ratelimit-Limit", "X-Ratelimit-Remaining", "X-Ratelimit-Reset", "Transfer-Encoding",
	} {
		m[k] = strings.ToLower(k)
	}
	return m
}()

// lowerHeader returns the lower-case form of a canonical header name.
func lowerHeader(k string) string {
	if l, ok := lowerNames[k]; ok {
		return l
	}
	return strings.ToLower(k)
}
