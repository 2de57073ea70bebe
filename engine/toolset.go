package engine

import (
	"slices"

	"github.com/hashicorp/hcl/v2"
)

// Toolset is a named subset of a configuration's tools (a toolset block),
// served on its own: at /mcp/<name> over HTTP, with serve --toolset over
// stdio. Its clients list and call its tools only.
type Toolset struct {
	Name, Description string
	// Tools are the names of its tools, sorted.
	Tools []string
	// OutputSchemas, when not "", is what its tools' outputSchema carries
	// in tools/list, in place of the server's setting (see
	// Settings.OutputSchemas).
	OutputSchemas string
	Range         hcl.Range
}

// Has reports whether the toolset holds the tool called name.
func (t *Toolset) Has(name string) bool {
	_, ok := slices.BinarySearch(t.Tools, name)
	return ok
}
