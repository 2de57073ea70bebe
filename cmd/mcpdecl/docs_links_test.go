package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// docFiles are the Markdown documents a reader follows links between: the
// README, every document under docs/ and the CHANGELOG, as paths from the
// repository's root.
func docFiles(t *testing.T) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	for _, n := range names {
		files = append(files, filepath.ToSlash(filepath.Join("docs", filepath.Base(n))))
	}
	return append(files, "CHANGELOG.md")
}

var (
	// fence matches a fenced code block, whose text holds no links.
	fence = regexp.MustCompile("(?ms)^```.*?^```")
	// codeSpan matches inline code, whose text holds no links.
	codeSpan = regexp.MustCompile("`[^`\n]*`")
	// mdLink matches the target of an inline link or image: [text](target).
	mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// heading matches a Markdown heading's text.
	heading = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *#*$`)
	// htmlAnchor matches an explicit anchor: <a id="name"></a>.
	htmlAnchor = regexp.MustCompile(`<a id="([^"]+)">`)
)

// anchors returns the anchors of a Markdown document: the explicit ones,
// and those GitHub derives from its headings (lower case, punctuation
// but - and _ dropped, spaces as -, repeats numbered -1, -2…).
func anchors(doc string) map[string]bool {
	doc = fence.ReplaceAllString(doc, "")
	out := map[string]bool{}
	for _, m := range htmlAnchor.FindAllStringSubmatch(doc, -1) {
		out[m[1]] = true
	}
	seen := map[string]int{}
	for _, m := range heading.FindAllStringSubmatch(doc, -1) {
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			out[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// TestDocsLinks checks that every relative link of the README, of the
// documents under docs/ and of the CHANGELOG leads to a file of the repository, and that every
// #anchor names a heading or an anchor of the document it points into, so
// that moving a section cannot leave a reader at a dead link.
func TestDocsLinks(t *testing.T) {
	root := filepath.Join("..", "..")
	docs := map[string]map[string]bool{}
	read := func(name string) (map[string]bool, error) {
		if a, ok := docs[name]; ok {
			return a, nil
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			return nil, err
		}
		docs[name] = anchors(string(b))
		return docs[name], nil
	}
	checked := 0
	for _, name := range docFiles(t) {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		text := codeSpan.ReplaceAllString(fence.ReplaceAllString(string(b), ""), "")
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			file, anchor, _ := strings.Cut(target, "#")
			dest := name
			if file != "" {
				dest = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(name), file)))
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(dest))); err != nil {
					t.Errorf("%s: the link %q leads to %s, which does not exist", name, target, dest)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(dest, ".md") {
				t.Errorf("%s: the link %q has an anchor into %s, which is not a Markdown document", name, target, dest)
				continue
			}
			a, err := read(dest)
			if err != nil {
				t.Fatal(err)
			}
			if !a[anchor] {
				t.Errorf("%s: the link %q names #%s, which is no heading or anchor of %s", name, target, anchor, dest)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative link found: the pattern no longer matches the documents")
	}
}

// TestAnchors checks the slugs of a few headings against what GitHub
// (github-slugger) makes of them: each space a hyphen, "{ … }" dropped
// but for its spaces.
func TestAnchors(t *testing.T) {
	a := anchors("## The language\n#### `confirm { … }`: asking the person first\n#### `arg \"name\"` → `inputSchema`\n### `resource \"name\"`, `resource_template \"name\"`\n## Examples\n## Examples\n")
	for _, want := range []string{"the-language", "confirm----asking-the-person-first", "arg-name--inputschema", "resource-name-resource_template-name", "examples", "examples-1"} {
		if !a[want] {
			t.Errorf("no anchor %q in %v", want, a)
		}
	}
}

// sourcePath matches inline code that names a file of the repository by
// its path: `engine/load/tool.go`, `.ci/fuzz.sh`.
var sourcePath = regexp.MustCompile("`((?:[\\w.-]+/)+[\\w.-]+\\.(?:go|sh|md))`")

// TestDevelopmentPaths checks that every file docs/development.md names in
// inline code exists, so that its recipes lead to real files when code
// moves; its links are checked by TestDocsLinks.
func TestDevelopmentPaths(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "development.md"))
	if err != nil {
		t.Fatal(err)
	}
	named := sourcePath.FindAllStringSubmatch(fence.ReplaceAllString(string(b), ""), -1)
	if len(named) == 0 {
		t.Fatal("docs/development.md names no file in inline code: the pattern no longer matches it")
	}
	for _, m := range named {
		if _, err := os.Stat(filepath.Join("..", "..", filepath.FromSlash(m[1]))); err != nil {
			t.Errorf("docs/development.md names %s, which does not exist: name the file that now holds what the text describes", m[1])
		}
	}
}
