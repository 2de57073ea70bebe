package httpaction

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

var _ engine.ConcurrencyLimiter = (*action)(nil)

// DefaultMaxConcurrency bounds the calls of a tool under way at once, when
// the tool does not set max_concurrency: each may hold a body of up to
// max_response_bytes and its decoded value (see [engine.IOConcurrency]).
func (a *action) DefaultMaxConcurrency() int { return engine.IOConcurrency() }

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
	shown, isText := "", true
	switch {
	case strings.HasPrefix(mediaType, "image/"):
		out.Content = []engine.Content{{Type: engine.ImageContent, Data: data, MIMEType: mediaType}}
		isText = false
	case strings.HasPrefix(mediaType, "audio/"):
		out.Content = []engine.Content{{Type: engine.AudioContent, Data: data, MIMEType: mediaType}}
		isText = false
	case isJSON(mediaType):
		shown = bodyText(data)
		if len(data) > 0 {
			v, err := decodeJSON(data, shown)
			switch {
			case err == nil:
				body = v
			case status < 400:
				return nil, &invalidJSONError{mediaType: mediaType, err: err, excerpt: text.Excerpt(ctx, string(data))}
			default:
				// An error page that says it is JSON: keep it as text.
				body = shown
			}
		}
	case !utf8.Valid(data):
		shown = fmt.Sprintf("(%d bytes of %s, which cannot be shown as text)", len(data), orUnknown(mediaType))
		isText = false
	default:
		shown = bodyText(data)
		body = shown
		if mediaType == "" && looksLikeJSON(data) {
			if v, err := decodeJSON(data, shown); err == nil {
				body = v
			}
		}
	}
	if out.Content == nil {
		if len(data) == 0 && status < 400 {
			// Nothing to show but that it worked: say so, for the model
			// that reads the result (an empty text tells it nothing).
			shown = "HTTP " + strconv.Itoa(status) + " " + http.StatusText(status)
		}
		out.Content = []engine.Content{{Type: engine.TextContent, Text: shown}}
	}
	out.Vars = make(map[string]any, 5) // the engine adds args
	out.Vars["status"] = status
	out.Vars["headers"] = headers
	out.Vars["body"] = body
	out.Vars["content_type"] = mediaType
	if a.pages != nil {
		// headers keeps the first line of each; paginate reads them all.
		out.Vars[linksVar] = links(raw.Header.Values("Link"))
	}
	if status >= 400 {
		msg := "HTTP " + strconv.Itoa(status)
		if st := http.StatusText(status); st != "" {
			msg += " " + st
		}
		msg += " from " + a.method + " " + where
		if isText && len(data) > 0 {
			if e := text.Excerpt(ctx, string(data)); e != "" {
				msg += ": " + e
			}
		}
		out.Failure = msg
	}
	return out, nil
}

// bodyText is the text of a body read by readBody, sharing its bytes: the
// body's buffer belongs to this call alone and nothing writes to it once
// read, so the text need not be a copy (for a 1 MiB body, a MiB less for
// each call under way, and no copying).
func bodyText(data []byte) string {
	return unsafe.String(unsafe.SliceData(data), len(data))
}

// readBody reads a body of at most limit bytes. A longer one is an error:
// it is never cut short. A body of known length is read into a buffer of
// that size; one of unknown length (chunked, say) into pieces of growing
// size, then joined once, so that it costs at most twice its size, where
// a buffer doubling as it fills would cost up to four times (the copies it
// leaves behind, and up to twice the size it ends with).
func readBody(raw *http.Response, limit int64) ([]byte, error) {
	if raw.ContentLength > limit {
		return nil, &tooLargeError{limit: limit}
	}
	r := &io.LimitedReader{R: raw.Body, N: limit + 1}
	if raw.ContentLength >= 0 {
		// Room to read the end of the body, and a byte more when it
		// says less than it sends.
		buf := make([]byte, raw.ContentLength+1)
		n, err := io.ReadFull(r, buf)
		switch {
		case err == nil:
			// Longer than it said: read the rest as pieces.
			return readPieces(r, buf, limit)
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return buf[:n], nil
		default:
			return nil, err
		}
	}
	return readPieces(r, nil, limit)
}

// Sizes of the pieces a body of unknown length is read into.
const (
	firstPiece = 512
	largePiece = 1 << 20
)

// readPieces reads r to its end after first, into pieces of growing size,
// and joins them. More than limit bytes in all is an error.
func readPieces(r io.Reader, first []byte, limit int64) ([]byte, error) {
	var pieces [][]byte
	total := int64(len(first))
	if len(first) > 0 {
		pieces = append(pieces, first)
	}
	size := firstPiece
	for {
		p := make([]byte, size)
		n, err := io.ReadFull(r, p)
		if n > 0 {
			pieces = append(pieces, p[:n])
			total += int64(n)
		}
		if total > limit {
			return nil, &tooLargeError{limit: limit}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		size = min(2*size, largePiece)
	}
	if len(pieces) == 1 {
		return pieces[0], nil
	}
	out := make([]byte, 0, total)
	for _, p := range pieces {
		out = append(out, p...)
	}
	return out, nil
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
