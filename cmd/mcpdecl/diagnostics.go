package main

import (
	"fmt"
	"io"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine/load"
)

// writeDiagnostics prints diags with file:line:col and a source snippet,
// then a count.
func writeDiagnostics(w io.Writer, files load.Files, diags hcl.Diagnostics) {
	wr := hcl.NewDiagnosticTextWriter(w, files, 0, false)
	_ = wr.WriteDiagnostics(diags)
	errs := len(diags.Errs())
	if errs > 0 {
		fmt.Fprintf(w, "%d %s in the configuration.\n", errs, plural(errs, "error", "errors"))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
