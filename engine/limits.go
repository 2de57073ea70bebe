package engine

import (
	"context"
	"fmt"
	"runtime"
	"unicode/utf8"
)

// IOConcurrency is the max_concurrency of a tool whose action waits on
// the network (HTTP, SQL) when the tool does not set one: 8 calls per CPU
// that Go uses (GOMAXPROCS). Each call may hold what it reads, up to its
// caps, so the calls under way at once are bounded for memory to stay
// bounded; more wait for a free slot, and give up at their timeout.
func IOConcurrency() int { return 8 * runtime.GOMAXPROCS(0) }

// MaxResultBytes returns the max_result_bytes of the tool whose call ctx
// belongs to, or 0 for none. An action that reads more than it may show
// (rows, say) stops reading once what it read passes it: the result would
// be cut to it anyway, and memory stays bounded by it.
func MaxResultBytes(ctx context.Context) int64 {
	if s := scopeOf(ctx); s != nil {
		return s.maxResultBytes
	}
	return 0
}

// DepthLimit is the deepest nesting of arrays and objects accepted in a
// call's arguments.
const DepthLimit = 64

// jsonDepth returns the deepest nesting of arrays and objects in the JSON
// text b, stopping as soon as it passes limit. It does not validate b.
func jsonDepth(b []byte, limit int) int {
	depth, deepest := 0, 0
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
			if depth > deepest {
				deepest = depth
				if deepest > limit {
					return deepest
				}
			}
		case ']', '}':
			depth--
		}
	}
	return deepest
}

// capResult keeps r within max bytes: the text and data of its content and
// the JSON of its structured content. Text is cut at a character boundary
// and ends with a notice saying so; a block that does not fit at all is
// dropped, and a notice says which. Structured content larger than the
// whole budget cannot be cut without breaking its schema: the call fails.
func capResult(r *Result, max int64, structuredSize int64) *Result {
	if max <= 0 {
		return r
	}
	if structuredSize > max {
		return errorResult(fmt.Sprintf("the result's structured content takes %s, more than this tool's max_result_bytes of %s; ask for less (a narrower query, fewer rows), or raise max_result_bytes",
			formatBytes(structuredSize), formatBytes(max)))
	}
	budget := max - structuredSize
	total := int64(0)
	for _, c := range r.Content {
		total += contentSize(c)
	}
	if total <= budget {
		return r
	}
	out := make([]Content, 0, len(r.Content)+1)
	dropped := 0
	for _, c := range r.Content {
		size := contentSize(c)
		switch {
		case size <= budget:
			out = append(out, c)
			budget -= size
		case (c.Type == TextContent || c.Type == ResourceContent && c.Data == nil) && budget > 0:
			c.Text = TruncateUTF8(c.Text, int(budget)) + truncationNotice(int64(len(c.Text)), max)
			out = append(out, c)
			budget = 0
		default:
			dropped++
		}
	}
	if dropped > 0 {
		out = append(out, Content{Type: TextContent, Text: fmt.Sprintf("[%d content block(s) left out: the result is larger than max_result_bytes (%s)]", dropped, formatBytes(max))})
	}
	r.Content = out
	return r
}

// truncationNotice ends a text cut short at the result size limit.
func truncationNotice(size, max int64) string {
	return fmt.Sprintf("\n[truncated: the text takes %s, more than max_result_bytes (%s); ask for less to see the rest]", formatBytes(size), formatBytes(max))
}

// contentSize is what a block weighs against max_result_bytes.
func contentSize(c Content) int64 {
	return int64(len(c.Text) + len(c.Data) + len(c.URI) + len(c.Name) + len(c.Title) + len(c.Description))
}

// TruncateUTF8 returns the longest prefix of s of at most n bytes that does
// not end inside a character: where texts are cut to a size.
func TruncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// formatBytes writes a size for people: 512 B, 64 KiB, 1.5 MiB.
func formatBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return trimZero(float64(n)/(1<<10)) + " KiB"
	default:
		return trimZero(float64(n)/(1<<20)) + " MiB"
	}
}

func trimZero(f float64) string {
	s := fmt.Sprintf("%.1f", f)
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		return s[:len(s)-2]
	}
	return s
}
