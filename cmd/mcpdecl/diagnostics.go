package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine/load"
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
// and then a count of the errors.
func writeDiagnostics(w io.Writer, files load.Files, diags hcl.Diagnostics) {
	for _, d := range diags {
		severity := "Error"
		if d.Severity == hcl.DiagWarning {
			severity = "Warning"
		}
		fmt.Fprintf(w, "%s: %s\n", severity, d.Summary)
		if d.Subject != nil {
			writeSnippet(w, files, *d.Subject)
		}
		if d.Detail != "" {
			fmt.Fprintf(w, "%s\n", d.Detail)
		}
		fmt.Fprintln(w)
	}
	if errs := len(diags.Errs()); errs > 0 {
		fmt.Fprintf(w, "%d %s in the configuration.\n", errs, plural(errs, "error", "errors"))
	}
}

// writeSnippet prints where rng is, and its first line underlined.
func writeSnippet(w io.Writer, files load.Files, rng hcl.Range) {
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
	width = max(width, 1)
	fmt.Fprintf(w, "%s |\n%s | %s\n%s | %s%s\n", pad, num, line, pad, strings.Repeat(" ", max(start, 0)), strings.Repeat("^", width))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
