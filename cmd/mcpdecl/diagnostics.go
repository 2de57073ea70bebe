package main

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// writeDiagnostics prints each diagnostic as
//
//	Error: Summary
//	  --> file.hcl:12:7
//	   |
//	12 |   query = { q = expr("args.ctiy") }
//	   |                           ^
//	Detail, a full sentence.
//
// and then a count of the errors. Nothing printed holds a secret that
// secrets records (sensitive variables, credentials), and the source lines
// hide the passwords of URLs and DSNs too (see [maskSource]).
func writeDiagnostics(w io.Writer, files load.Files, diags hcl.Diagnostics, secrets *text.Redactor) {
	for _, d := range diags {
		severity := "Error"
		if d.Severity == hcl.DiagWarning {
			severity = "Warning"
		}
		fmt.Fprintf(w, "%s: %s\n", severity, secrets.Redact(d.Summary))
		if d.Subject != nil {
			writeSnippet(w, files, *d.Subject, secrets)
		}
		if d.Detail != "" {
			fmt.Fprintf(w, "%s\n", secrets.Redact(d.Detail))
		}
		fmt.Fprintln(w)
	}
	if errs := len(diags.Errs()); errs > 0 {
		fmt.Fprintf(w, "%d %s in the configuration.\n", errs, plural(errs, "error", "errors"))
	}
}

// writeSnippet prints where rng is, and its first line underlined, with
// its secrets masked.
func writeSnippet(w io.Writer, files load.Files, rng hcl.Range, secrets *text.Redactor) {
	fmt.Fprintf(w, "  --> %s:%d:%d\n", rng.Filename, rng.Start.Line, rng.Start.Column)
	f, ok := files[rng.Filename]
	if !ok || f == nil {
		return
	}
	lines := bytes.Split(f.Bytes, []byte("\n"))
	if rng.Start.Line < 1 || rng.Start.Line > len(lines) {
		return
	}
	line := strings.ReplaceAll(string(lines[rng.Start.Line-1]), "\t", " ")
	num := fmt.Sprint(rng.Start.Line)
	pad := strings.Repeat(" ", len(num))
	start := rng.Start.Column - 1
	width := rng.End.Column - rng.Start.Column
	if rng.End.Line != rng.Start.Line {
		width = utf8.RuneCountInString(line) - start
	}
	// The underline follows the masked text: what precedes the range, and
	// what it spans, are measured after masking.
	if start >= 0 && start+width <= utf8.RuneCountInString(line) {
		runes := []rune(line)
		before := utf8.RuneCountInString(maskSource(string(runes[:start]), secrets))
		width = utf8.RuneCountInString(maskSource(string(runes[:start+width]), secrets)) - before
		start = before
	}
	line = maskSource(line, secrets)
	width = max(width, 1)
	fmt.Fprintf(w, "%s |\n%s | %s\n%s | %s%s\n", pad, num, line, pad, strings.Repeat(" ", max(start, 0)), strings.Repeat("^", width))
}

// Passwords as written in URLs (scheme://user:password@host), MySQL DSNs
// (user:password@tcp(host)/db) and keyword DSNs (password=secret).
var (
	urlPassword     = regexp.MustCompile(`(://[^/@\s"':]*:)[^/\s"']*@`)
	mysqlPassword   = regexp.MustCompile(`((?:^|[\s"'=])[^\s"'=:@/]*:)[^\s"']*@((?:tcp6?|udp|unix)\(|/)`)
	keywordPassword = regexp.MustCompile(`(?i)(\bpass(?:word)?=)('[^']*'|[^\s"']+)`)
)

// maskSource hides the secrets of a line of configuration: those secrets
// records, and any password of a URL or a DSN, even one the load could not
// read (a DSN its driver refuses).
func maskSource(line string, secrets *text.Redactor) string {
	line = secrets.Redact(line)
	line = urlPassword.ReplaceAllString(line, "${1}"+text.Mask+"@")
	line = mysqlPassword.ReplaceAllString(line, "${1}"+text.Mask+"@${2}")
	return keywordPassword.ReplaceAllString(line, "${1}"+text.Mask)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
