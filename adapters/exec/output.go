package execaction

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// capped keeps the first max bytes written to it. Once more arrive it
// calls stop, which ends the run: a program that writes without end is
// stopped there, not left to write, or spin, until its time runs out. It
// keeps up to redactSlack bytes past max that are already on their way, so
// that a secret the limit falls within is redacted whole before the cut
// (see text). It is written by one goroutine of os/exec and read after
// Wait.
type capped struct {
	buf  []byte
	max  int
	over bool   // more than max bytes were written
	stop func() // ends the run; called once, when over is set
}

// redactSlack is how many bytes past max are kept, so that a secret that
// the limit falls within is redacted whole before the cut (see text).
const redactSlack = 16 << 10

func (c *capped) limit() int { return c.max + redactSlack }

// passed records that more than max bytes were written, and stops the run.
func (c *capped) passed() {
	if !c.over {
		c.over = true
		if c.stop != nil {
			c.stop()
		}
	}
}

// Write keeps what fits under the limit, and drops the rest: by then the
// run is being killed.
func (c *capped) Write(p []byte) (int, error) {
	room := c.limit() - len(c.buf)
	c.buf = append(c.buf, p[:min(len(p), max(room, 0))]...)
	if len(c.buf) > c.max || len(p) > room {
		c.passed()
	}
	return len(p), nil
}

// ReadFrom reads r to its end, or to the limit, keeping what it read; past
// max bytes it stops the run, and reads on only what is still in the pipe.
// os/exec copies a program's output with it, reading straight into the
// kept bytes instead of through a buffer of its own.
func (c *capped) ReadFrom(r io.Reader) (int64, error) {
	var n int64
	for len(c.buf) < c.limit() {
		if len(c.buf) == cap(c.buf) {
			grown := make([]byte, len(c.buf), min(c.limit(), max(512, 2*cap(c.buf))))
			copy(grown, c.buf)
			c.buf = grown
		}
		m, err := r.Read(c.buf[len(c.buf):cap(c.buf)])
		c.buf = c.buf[:len(c.buf)+m]
		n += int64(m)
		if len(c.buf) > c.max {
			c.passed()
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// bytes returns the first max bytes, without a character cut in half at
// the limit.
func (c *capped) bytes() []byte {
	if c.over {
		return trimPartialRune(c.buf[:min(len(c.buf), c.max)])
	}
	return c.buf
}

// text returns the output as text (see [engine.OutputText]), cut at max
// bytes only after the redaction ctx carries was applied to all that was
// kept: a secret that the limit falls within is hidden whole, never cut to
// a prefix that redaction would no longer recognize.
func (c *capped) text(ctx context.Context) string {
	if !c.over {
		return engine.OutputText(ctx, c.buf)
	}
	s := text.Redacted(ctx, engine.OutputText(ctx, c.buf))
	if len(s) > c.max {
		s = string(trimPartialRune([]byte(s[:c.max])))
	}
	return s
}

// splitLines splits text into its lines, without their line breaks; a final
// line break does not make an empty last line.
func splitLines(text string) []any {
	if text == "" {
		return []any{}
	}
	text = strings.TrimSuffix(text, "\n")
	lines := make([]any, 0, strings.Count(text, "\n")+1)
	for line := range strings.SplitSeq(text, "\n") {
		lines = append(lines, line)
	}
	return lines
}

// jsonError is stdout that is not the one JSON value parse = "json" expects.
type jsonError struct {
	msg     string
	offset  int64  // where decoding stopped, in bytes; -1 when it does not apply
	excerpt string // the text just before offset
}

func (e *jsonError) Error() string {
	if e.offset < 0 {
		return e.msg
	}
	return fmt.Sprintf("%s at byte %d, after: %s", e.msg, e.offset, e.excerpt)
}

// decodeJSON decodes the one JSON value of data. Whole numbers that fit an
// int become ints, the others float64, as in the rest of mcpdecl.
func decodeJSON(data []byte) (any, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &jsonError{msg: "it printed nothing", offset: -1}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			return nil, jsonAt(data, se.Offset, se.Error())
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, jsonAt(data, int64(len(data)), "the JSON value is cut short")
		}
		return nil, &jsonError{msg: err.Error(), offset: -1}
	}
	// Anything but white space after the value is an error.
	end := dec.InputOffset()
	if rest := bytes.TrimLeft(data[end:], " \t\r\n"); len(rest) > 0 {
		return nil, jsonAt(data, int64(len(data)-len(rest))+1, "there is more than one JSON value, or text after it")
	}
	return jsonenc.Numbers(v), nil
}

// jsonExcerptBytes bounds the text quoted before a JSON error.
const jsonExcerptBytes = 40

func jsonAt(data []byte, offset int64, msg string) *jsonError {
	offset = max(0, min(offset, int64(len(data))))
	start := max(0, offset-jsonExcerptBytes)
	// Start on a character boundary.
	for start > 0 && start < offset && data[start]&0xc0 == 0x80 {
		start++
	}
	ex := strconv.Quote(text.Sanitize(data[start:offset]))
	if start > 0 {
		ex = "…" + ex
	}
	return &jsonError{msg: msg, offset: offset, excerpt: ex}
}

// trimPartialRune drops a UTF-8 sequence cut short at the end of b, as
// happens when output is truncated at a byte limit.
func trimPartialRune(b []byte) []byte {
	for n := 1; n <= utf8.UTFMax && n <= len(b); n++ {
		c := b[len(b)-n]
		if c < utf8.RuneSelf {
			return b // ASCII: nothing cut
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-n:]) {
				return b[:len(b)-n]
			}
			return b
		}
	}
	return b
}
