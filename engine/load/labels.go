package load

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// HCL's details of a block with too few or too many labels, such as "All
// tool blocks must have 1 labels (name).", which say neither how the block
// is written nor in plain words what is wrong.
var (
	missingLabels = regexp.MustCompile(`^All (\S+) blocks must have \d+ labels \((.+)\)\.$`)
	extraLabels   = regexp.MustCompile(`^Only \d+ labels \((.+)\) are expected for (\S+) blocks\.$`)
	noLabels      = regexp.MustCompile(`^No labels are expected for (\S+) blocks\.$`)
)

// ExplainLabels rewrites the detail of HCL's label errors to show how the
// block is written: `A tool block needs its name: write tool "name" { … }.`
func ExplainLabels(diags hcl.Diagnostics) {
	for _, d := range diags {
		if m := missingLabels.FindStringSubmatch(d.Detail); m != nil {
			labels := strings.Split(m[2], ", ")
			need := "its " + m[2]
			if len(labels) > 1 {
				need = fmt.Sprintf("%d labels (%s)", len(labels), m[2])
			}
			d.Detail = fmt.Sprintf("%s %s block needs %s: write %s.", article(m[1]), m[1], need, labelled(m[1], labels))
		} else if m := extraLabels.FindStringSubmatch(d.Detail); m != nil {
			labels := strings.Split(m[1], ", ")
			takes := "one label, its " + m[1]
			if len(labels) > 1 {
				takes = fmt.Sprintf("%d labels (%s)", len(labels), m[1])
			}
			d.Detail = fmt.Sprintf("%s %s block takes %s: write %s.", article(m[2]), m[2], takes, labelled(m[2], labels))
		} else if m := noLabels.FindStringSubmatch(d.Detail); m != nil {
			d.Detail = fmt.Sprintf("%s %s block takes no label: write %s.", article(m[1]), m[1], labelled(m[1], nil))
		}
	}
}

// labelled is how a block of kind with labels is written.
func labelled(kind string, labels []string) string {
	var b strings.Builder
	b.WriteString(kind)
	for _, l := range labels {
		fmt.Fprintf(&b, " %q", l)
	}
	b.WriteString(" { … }")
	return b.String()
}

// article is "An" before a word that starts with a vowel, else "A".
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "An"
	}
	return "A"
}
