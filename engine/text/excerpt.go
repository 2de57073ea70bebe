package text

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"unicode/utf8"
)

// ExcerptBytes bounds the part of a body or an output quoted in messages.
const ExcerptBytes = 512

// Excerpt returns the start of text on one line, for error messages. The
// redaction ctx carries (see [WithRedaction]) is applied to the whole text
// first, so that the cut can never leave part of a secret. Then runs of
// white space become one space, control characters and invalid UTF-8
// become U+FFFD, and at most ExcerptBytes bytes are kept, with "…" when
// text was cut.
func Excerpt(ctx context.Context, text string) string {
	text = Redacted(ctx, text)
	var b strings.Builder
	b.Grow(min(len(text), ExcerptBytes) + 3)
	space := false
	for _, r := range text {
		if r == ' ' || r == '\t' || r == '\r' || r == '\n' || r == '\v' || r == '\f' {
			space = b.Len() > 0
			continue
		}
		if r < 0x20 || r == 0x7f {
			r = utf8.RuneError
		}
		need := utf8.RuneLen(r)
		if space {
			need++
		}
		if b.Len()+need > ExcerptBytes {
			b.WriteString("…")
			break
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// UnwrapURLError returns what a *url.Error in err wraps, or err as it is:
// net/http's client names the method and the whole URL, which may hold
// credentials (a key in the query), before the cause; a message that needs
// the URL names it as shown elsewhere.
func UnwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
