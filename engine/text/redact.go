package text

import (
	"context"
	"encoding/base64"
	"math/big"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"
)

// Redactor hides the values of sensitive variables and arguments wherever
// text leaves the server: tool errors, logs, listings. It is filled at load
// time, and safe for concurrent use.
type Redactor struct {
	mu       sync.Mutex // serializes Add
	secrets  []string
	replacer atomic.Pointer[strings.Replacer]
	// published is a copy of secrets as of the last Add, read without the
	// lock on the per-call path.
	published atomic.Pointer[[]string]
}

// Mask is what a secret is replaced with.
const Mask = "(sensitive)"

// MinSecretLen is the length below which a value is not redacted:
// replacing it would garble unrelated text without protecting anything.
const MinSecretLen = 4

// SecretForms returns secret and the encodings of it that the server itself
// writes when it sends the value somewhere, and that an upstream echoing
// the request may quote: query and form escaping, path escaping and
// standard base64; each of these inside a JSON string, as encoders write
// one (see [jsonInner]); and the JSON-escaped forms of the secret inside a
// JSON string again, as when an upstream echoes a JSON body as a string
// (httpbin's "data"). Each must be redacted. Forms shorter than four bytes
// are left out. A secret of letters and digits has one or two forms; one
// with quotes, HTML's special characters and non-ASCII, about fifteen.
func SecretForms(secret string) []string {
	if len(secret) < MinSecretLen {
		return nil
	}
	out := make([]string, 0, 8)
	add := func(f string) {
		if len(f) >= MinSecretLen && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	for _, f := range [...]string{secret, url.QueryEscape(secret), url.PathEscape(secret),
		base64.StdEncoding.EncodeToString([]byte(secret))} {
		add(f)
		for _, style := range jsonStyles {
			add(jsonInner(f, style))
		}
	}
	for _, inner := range jsonStyles {
		once := jsonInner(secret, inner)
		for _, outer := range jsonStyles {
			add(jsonInner(once, outer))
		}
	}
	return out
}

// jsonStyle is a way of writing a string inside JSON.
type jsonStyle int

const (
	// plainJSON escapes what JSON requires, and U+2028 and U+2029
	// (mcpdecl's own JSON, encoding/json without HTML escaping).
	plainJSON jsonStyle = iota
	// htmlJSON also escapes <, > and & (encoding/json by default).
	htmlJSON
	// asciiJSON also escapes every character past ASCII, as \uXXXX
	// (Python's json.dumps by default).
	asciiJSON
)

var jsonStyles = [...]jsonStyle{plainJSON, htmlJSON, asciiJSON}

// jsonInner returns s as written inside a JSON string in the given style,
// without the quotes; s itself when nothing in it is escaped. Invalid
// UTF-8 is written as U+FFFD, as encoders do.
func jsonInner(s string, style jsonStyle) string {
	i := 0
	for i < len(s) && !jsonEscaped(s[i], style) {
		i++
	}
	if i == len(s) {
		return s
	}
	b := make([]byte, 0, len(s)+len(s)/2+8)
	b = append(b, s[:i]...)
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\b':
				b = append(b, `\b`...)
			case c == '\f':
				b = append(b, `\f`...)
			case c == '\n':
				b = append(b, `\n`...)
			case c == '\r':
				b = append(b, `\r`...)
			case c == '\t':
				b = append(b, `\t`...)
			case jsonEscaped(c, style):
				b = appendU(b, rune(c))
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case style == asciiJSON && r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			b = appendU(appendU(b, r1), r2)
		case style == asciiJSON || r == utf8.RuneError || r == '\u2028' || r == '\u2029':
			b = appendU(b, r)
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return string(b)
}

// jsonEscaped reports whether the byte c is escaped inside a JSON string
// written in style, or may start a character that is.
func jsonEscaped(c byte, style jsonStyle) bool {
	return c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf ||
		style == htmlJSON && (c == '<' || c == '>' || c == '&')
}

// appendU writes r, at most U+FFFF, as \uXXXX.
func appendU(b []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	return append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}

// Add records a secret and its encoded forms (see [SecretForms]). Values
// shorter than four bytes are not recorded.
func (r *Redactor) Add(secret string) {
	forms := SecretForms(secret)
	if len(forms) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	added := false
	for _, f := range forms {
		if !slices.Contains(r.secrets, f) {
			r.secrets = append(r.secrets, f)
			added = true
		}
	}
	if !added {
		return
	}
	r.publish()
}

// Remove forgets a secret recorded by Add, with its encoded forms: a
// credential that has been replaced, such as an expired access token.
func (r *Redactor) Remove(secret string) {
	forms := SecretForms(secret)
	if len(forms) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.secrets)
	r.secrets = slices.DeleteFunc(r.secrets, func(s string) bool { return slices.Contains(forms, s) })
	if len(r.secrets) != n {
		r.publish()
	}
}

// publish makes the current secrets the ones redacted. r.mu is held.
func (r *Redactor) publish() {
	// Longest first, so that a secret containing another is hidden whole.
	slices.SortStableFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(r.secrets))
	for _, s := range r.secrets {
		pairs = append(pairs, s, Mask)
	}
	r.replacer.Store(strings.NewReplacer(pairs...))
	published := slices.Clone(r.secrets)
	r.published.Store(&published)
}

// AddValue records every leaf of a sensitive value of any type: each
// string, and each number as it is written as text. Marks are ignored;
// unknown and null parts, and bools, hold nothing to hide.
func (r *Redactor) AddValue(v cty.Value) {
	for _, s := range SecretStrings(v) {
		r.Add(s)
	}
}

// SecretStrings returns the leaves of a sensitive value as text: each
// string, and each number as it is written as text.
func SecretStrings(v cty.Value) []string {
	var out []string
	var walk func(v cty.Value)
	walk = func(v cty.Value) {
		v, _ = v.Unmark()
		if v.IsNull() || !v.IsKnown() {
			return
		}
		ty := v.Type()
		switch {
		case ty == cty.String:
			out = append(out, v.AsString())
		case ty == cty.Number:
			out = append(out, numberText(v.AsBigFloat()))
		case ty.IsListType() || ty.IsSetType() || ty.IsTupleType() || ty.IsMapType() || ty.IsObjectType():
			for it := v.ElementIterator(); it.Next(); {
				_, e := it.Element()
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// numberText writes a number as the JSON and text forms of it do: an
// integer without a fraction, others in the shortest exact form.
func numberText(f *big.Float) string {
	if f.IsInt() {
		i, _ := f.Int(nil)
		return i.String()
	}
	g, _ := f.Float64()
	return strconv.FormatFloat(g, 'f', -1, 64)
}

// Recorded returns a copy of the recorded secrets and their forms, without
// taking a lock.
func (r *Redactor) Recorded() []string {
	if r == nil {
		return nil
	}
	if p := r.published.Load(); p != nil {
		return slices.Clone(*p)
	}
	return nil
}

// Active reports whether any secret is recorded.
func (r *Redactor) Active() bool {
	return r != nil && r.replacer.Load() != nil
}

// Redact returns s with every recorded secret replaced by [Mask].
func (r *Redactor) Redact(s string) string {
	if r == nil {
		return s
	}
	if rep := r.replacer.Load(); rep != nil {
		return rep.Replace(s)
	}
	return s
}

// A Redaction hides secrets in the text it is given: what a context
// carries for [Redacted] and [Excerpt] to apply (see [WithRedaction]).
type Redaction interface {
	Redact(s string) string
}

// RedactFunc is a function as a [Redaction].
type RedactFunc func(string) string

// Redact returns f(s).
func (f RedactFunc) Redact(s string) string { return f(s) }

type redactionKey struct{}

// WithRedaction returns a context whose calls to [Excerpt] and [Redacted]
// first apply r to the whole text. The engine sets it for every call: its
// call scope redacts the configuration's secrets and the call's sensitive
// argument values. r replaces what ctx carried, so that outside the engine
// it is for text handled outside a tool call (a test run's messages).
func WithRedaction(ctx context.Context, r Redaction) context.Context {
	return context.WithValue(ctx, redactionKey{}, r)
}

// RedactionOf returns the redaction ctx carries (see [WithRedaction]), or
// nil.
func RedactionOf(ctx context.Context) Redaction {
	r, _ := ctx.Value(redactionKey{}).(Redaction)
	return r
}

// Redacted applies the redaction that ctx carries (see [WithRedaction])
// to s; without one, s is returned as is.
func Redacted(ctx context.Context, s string) string {
	if ctx == nil {
		return s
	}
	if r := RedactionOf(ctx); r != nil {
		return r.Redact(s)
	}
	return s
}
