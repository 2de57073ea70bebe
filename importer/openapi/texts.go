package openapi

import (
	"html"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Descriptions come from documents nobody here wrote, and every byte of
// them is read by a model on every turn. Before they are written they are
// made plain text: HTML tags become text (a line break, a list item), a
// long example (a fenced code block, a <pre>) is left out, invisible and
// control characters go, and whitespace is folded. Then each is cut, at
// the end of a sentence where one is near, at a budget: the tool's
// description at Options.DescriptionBudget, any other (a parameter's, a
// schema's) at Options.FieldDescriptionBudget. x-mcp-description-budget
// on an operation, a parameter or a schema (a number of bytes, 0 for no
// cap), which an overlay may add, lifts the budget of its description.

// maxTextInput bounds the text a description is made from: a document
// may hold descriptions of megabytes.
const maxTextInput = 64 << 10

// maxExample is the longest example kept in a description, in bytes.
const maxExample = 160

// exampleLeftOut stands for an example that was too long.
const exampleLeftOut = "(example left out)"

var (
	// htmlTag matches a tag of HTML's text markup by name: a placeholder
	// such as <id> or <token> is not one, and stays.
	htmlTag = regexp.MustCompile(`(?i)</?(a|abbr|b|big|blockquote|br|center|cite|code|dd|del|details|div|dl|dt|em|figcaption|figure|font|h[1-6]|hr|i|img|ins|kbd|li|mark|ol|p|pre|q|s|samp|section|small|span|strike|strong|sub|summary|sup|table|tbody|td|tfoot|th|thead|tr|tt|u|ul|var|wbr)(\s[^<>]*)?/?>`)
	// htmlHidden are HTML comments and the contents of script and style
	// elements: never text.
	htmlHidden = regexp.MustCompile(`(?is)<!--.*?-->|<script\b[^>]*>.*?</script\s*>|<style\b[^>]*>.*?</style\s*>`)
	// examples are fenced code blocks and <pre> elements.
	examples = regexp.MustCompile("(?is)```.*?```|~~~.*?~~~|<pre\\b[^>]*>.*?</pre\\s*>")
	// manyBreaks are three line breaks or more (blank lines between).
	manyBreaks = regexp.MustCompile(`\n[ \t]*\n(?:[ \t]*\n)+`)
	// spaces are runs of spaces and tabs.
	spaces = regexp.MustCompile(`[ \t]{2,}`)
)

// plainText is a document's description as plain text (see above), not
// cut.
func plainText(s string) string {
	if len(s) > maxTextInput {
		s = s[:maxTextInput]
	}
	s = strings.ToValidUTF8(s, "")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = examples.ReplaceAllStringFunc(s, func(m string) string {
		if len(m) > maxExample {
			return exampleLeftOut
		}
		return m
	})
	if strings.ContainsRune(s, '<') {
		s = htmlHidden.ReplaceAllString(s, "")
		found := false
		s = htmlTag.ReplaceAllStringFunc(s, func(tag string) string {
			found = true
			name := strings.ToLower(strings.FieldsFunc(tag, func(r rune) bool { return r == '<' || r == '>' || r == '/' || unicode.IsSpace(r) })[0])
			closing := strings.HasPrefix(tag, "</")
			switch {
			case name == "br", name == "hr", name == "tr" && closing:
				return "\n"
			case name == "p", name == "div", name == "pre", name == "blockquote", name == "table", name == "ul", name == "ol", name == "dl", name == "section", name == "details", len(name) == 2 && name[0] == 'h' && name[1] >= '1' && name[1] <= '6':
				return "\n\n"
			case name == "li" && !closing:
				return "\n- "
			case (name == "td" || name == "th") && closing, name == "dd" && !closing:
				return " "
			case name == "code" || name == "kbd" || name == "tt" || name == "samp":
				return "`"
			}
			return ""
		})
		if found {
			s = html.UnescapeString(s)
		}
	}
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case r == '\t', r == '\u00a0':
			return ' '
		case unicode.IsControl(r), invisible(r):
			return -1
		}
		return r
	}, s)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(spaces.ReplaceAllString(l, " "), " ")
	}
	s = strings.Join(lines, "\n")
	s = manyBreaks.ReplaceAllString(s, "\n\n")
	return strings.TrimSpace(s)
}

// invisible reports whether r changes how text shows without showing:
// bidirectional overrides and isolates, zero-width characters, a byte
// order mark. They could make a description read one way to a person
// and another to a model.
func invisible(r rune) bool {
	return r >= '\u200b' && r <= '\u200f' || r >= '\u202a' && r <= '\u202e' || r >= '\u2060' && r <= '\u2064' ||
		r >= '\u2066' && r <= '\u2069' || r == '\ufeff'
}

// fitText is plainText cut at max bytes (0: not cut): at the end of the
// last sentence that fits, when it ends past half of max; else at a word,
// with an ellipsis.
func fitText(s string, max int) string {
	s = plainText(s)
	if max <= 0 || len(s) <= max {
		return s
	}
	cut := s[:max]
	for !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	end := -1
	for _, sep := range []string{". ", ".\n", "! ", "? ", ".) "} {
		if i := strings.LastIndex(cut, sep); i > end {
			end = i + len(sep) - 1
		}
	}
	if end > max/2 {
		return strings.TrimSpace(cut[:end])
	}
	return trimText(s, max)
}

// budget is the budget of a description whose owner (an operation, a
// parameter, a schema) may set x-mcp-description-budget, else def.
func budget(owner map[string]any, def int) int {
	switch n := owner["x-mcp-description-budget"].(type) {
	case int64:
		if n >= 0 {
			return int(min(n, maxTextInput))
		}
	case float64:
		if n >= 0 && n == float64(int(n)) {
			return int(min(n, maxTextInput))
		}
	}
	return def
}

// repeats reports whether a title says no more than the start of the
// description: "Get a pet" over "Get a pet by its id.", say.
func repeats(title, description string) bool {
	t, d := words(title), words(description)
	return t != "" && (d == t || strings.HasPrefix(d, t+" "))
}

// words is s in lower case, its letters and digits in words parted by one
// space.
func words(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}

// describe cleans the description and the title of a converted schema,
// out, made from the document's m: the description fitted to its budget,
// the title dropped when the description starts with it.
func (c *converter) describe(out, m map[string]any) {
	d, hasD := out["description"].(string)
	if hasD {
		d = fitText(d, budget(m, c.textBudget))
		if d == "" {
			delete(out, "description")
		} else {
			out["description"] = d
		}
	}
	if t, ok := out["title"].(string); ok {
		t = fitText(t, 100)
		if t == "" || repeats(t, d) {
			delete(out, "title")
		} else {
			out["title"] = t
		}
	}
}
