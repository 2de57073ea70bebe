package spec

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// Errorf is an error at rng, for the rules a block checks after decoding:
// a summary, and a detail that says what is wrong and what to do.
func Errorf(rng hcl.Range, summary, format string, args ...any) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: rng.Ptr()}
}
