package text

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// Sanitize returns b as text that is safe to show in a terminal or to a
// model:
// terminal escape sequences (ECMA-48 CSI, OSC, DCS, SOS, PM and APC strings,
// two- and three-byte escapes, and their 8-bit C1 forms) are removed, and so
// are control characters other than newline and tab, carriage returns
// included; bytes that are not UTF-8 become U+FFFD.
func Sanitize(b []byte) string {
	if isClean(b) {
		return string(b)
	}
	var out strings.Builder
	out.Grow(len(b))
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '\n' || c == '\t':
			out.WriteByte(c)
			i++
		case c == 0x1b:
			i = skipEscape(b, i+1)
		case c < 0x20 || c == 0x7f:
			i++
		case c < utf8.RuneSelf:
			out.WriteByte(c)
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			switch {
			case r == utf8.RuneError && size <= 1:
				out.WriteRune(utf8.RuneError)
				i++
			case r >= 0x80 && r <= 0x9f: // a C1 control
				i = skipC1(b, r, i+size)
			default:
				out.Write(b[i : i+size])
				i += size
			}
		}
	}
	return out.String()
}

// SanitizeString is [Sanitize] for a string; a clean string is returned as
// is, without copying.
func SanitizeString(s string) string {
	if ok, high := scanControls(s); ok && (!high || utf8.ValidString(s)) {
		return s
	}
	return Sanitize([]byte(s))
}

// isClean reports whether b is valid UTF-8 without control characters other
// than newline and tab, so that it can be used as is.
func isClean(b []byte) bool {
	ok, high := scanControls(b)
	return ok && (!high || utf8.Valid(b))
}

// scanControls reports whether b holds no control character other than
// newline and tab (ok), and whether it holds bytes beyond ASCII (high),
// which must then be checked for UTF-8.
func scanControls[T string | []byte](b T) (ok, high bool) {
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= 0x20 && c < 0x7f, c == '\n', c == '\t':
		case c >= utf8.RuneSelf:
			high = true
			// C1 controls are U+0080 to U+009F: 0xC2 0x80 to 0xC2 0x9F.
			if c == 0xc2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] <= 0x9f {
				return false, high
			}
		default:
			return false, high
		}
	}
	return true, high
}

// skipEscape skips an escape sequence whose ESC was just before i, and
// returns where the text resumes.
func skipEscape(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch c := b[i]; {
	case c == '[':
		return skipCSI(b, i+1)
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		return skipString(b, i+1)
	case c >= 0x20 && c <= 0x2f:
		// Intermediate bytes, then one final byte: ESC ( B, ESC # 8.
		for i < len(b) && b[i] >= 0x20 && b[i] <= 0x2f {
			i++
		}
		if i < len(b) && b[i] >= 0x30 && b[i] <= 0x7e {
			i++
		}
		return i
	case c >= 0x30 && c <= 0x7e:
		// Two bytes: ESC 7, ESC c, ESC M.
		return i + 1
	}
	// A lone ESC: drop it, keep what follows.
	return i
}

// skipC1 skips the 8-bit control r, and the sequence it opens, if any.
func skipC1(b []byte, r rune, i int) int {
	switch r {
	case 0x9b: // CSI
		return skipCSI(b, i)
	case 0x9d, 0x90, 0x98, 0x9e, 0x9f: // OSC, DCS, SOS, PM, APC
		return skipString(b, i)
	}
	return i
}

// skipCSI skips the parameters, intermediates and final byte of a control
// sequence, such as the 1;31m of ESC [ 1;31m. A byte that cannot be part of
// one ends it early, and stays.
func skipCSI(b []byte, i int) int {
	for i < len(b) {
		c := b[i]
		switch {
		case c >= 0x20 && c <= 0x3f:
			i++
		case c >= 0x40 && c <= 0x7e:
			return i + 1
		default:
			return i
		}
	}
	return i
}

// skipString skips the body of a control string (a window title, a
// hyperlink), up to and including its terminator: BEL, ESC \ or the 8-bit
// ST. A line break ends it too, and stays, so that a stray ESC ] cannot
// swallow the rest of the output.
func skipString(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case 0x07:
			return i + 1
		case '\n':
			return i
		case 0x1b:
			if i+1 < len(b) && b[i+1] == '\\' {
				return i + 2
			}
		case 0xc2:
			if i+1 < len(b) && b[i+1] == 0x9c {
				return i + 2
			}
		}
		i++
	}
	return i
}

// needsSanitizing reports whether [SanitizeString] would change s.
func needsSanitizing(s string) bool {
	ok, high := scanControls(s)
	return !ok || (high && !utf8.ValidString(s))
}

// SanitizeValue returns v, a value as programs yield them, with
// [SanitizeString] applied to every string in it, map keys included. v is
// never modified: a list or object holding a string to clean is copied, and
// a clean v is returned as is, without allocating. When cleaning two keys
// of one object yields the same key, a key that was clean keeps its value,
// else the key that sorts first does; the other entries are dropped.
func SanitizeValue(v any) any {
	out, _ := sanitizing.value(v)
	return out
}

// sanitizing is the rewrite that [SanitizeValue] makes.
var sanitizing = rewrite{
	str: func(s string) (string, bool) {
		if needsSanitizing(s) {
			return Sanitize([]byte(s)), true
		}
		return s, false
	},
	keys: true,
	json: jsonNeedsSanitizing,
}

// jsonNeedsSanitizing reports whether a string in b, JSON as encoding/json
// writes it, may hold a character to clean: an escaped control (it may
// also be a backslash followed by u00, a false alarm that only costs time),
// or a raw DEL, C1 control or invalid byte.
func jsonNeedsSanitizing(b []byte) bool {
	for _, esc := range []string{`\u00`, `\r`, `\b`, `\f`} {
		if bytes.Contains(b, []byte(esc)) {
			return true
		}
	}
	return !isClean(b)
}
