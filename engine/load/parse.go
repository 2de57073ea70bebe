package load

import (
	"bytes"
	"runtime"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// parseWhole is the size of source below which a file is parsed in one
// piece.
const parseWhole = 64 << 10

// parsePiece is the least size of the pieces a bigger file is cut into:
// small enough that the parser's slice of tokens stays a small object.
const parsePiece = 1 << 10

// parseConfig parses one configuration file, as hclsyntax.ParseConfig
// does. A big file (an imported API of thousands of tools is several
// megabytes) is cut between top-level blocks and its pieces parsed on every
// CPU: HCL's parser is serial, and spends most of its time growing one slice
// of tokens for the whole file.
//
// The cut is a guess made on the text (after a line holding only "}", when
// the next line that is not blank starts with a letter), so it is checked: every piece must
// parse alone with no error and no attribute may be set in two pieces.
// Otherwise (a heredoc or a comment cut in two, a syntax error) the whole
// file is parsed again in one piece, so diagnostics are always those of
// hclsyntax.ParseConfig. (The file of pieces has no Nav, which the loader
// does not use.)
func parseConfig(src []byte, filename string) (*hcl.File, hcl.Diagnostics) {
	if len(src) < parseWhole {
		return hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	}
	cuts := cutTopLevel(src, parsePiece)
	if len(cuts) < 2 {
		return hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	}
	bodies := make([]*hclsyntax.Body, len(cuts))
	failed := make([]bool, len(cuts))
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			// Each worker parses a run of pieces, and counts lines as it goes.
			first, last := w*len(cuts)/workers, (w+1)*len(cuts)/workers
			line, counted := 1, 0
			for i := first; i < last; i++ {
				start, end := cuts[i], len(src)
				if i+1 < len(cuts) {
					end = cuts[i+1]
				}
				line += bytes.Count(src[counted:start], []byte{'\n'})
				counted = start
				pos := hcl.Pos{Line: line, Column: 1, Byte: start}
				f, diags := hclsyntax.ParseConfig(src[start:end], filename, pos)
				body, ok := f.Body.(*hclsyntax.Body)
				bodies[i], failed[i] = body, diags.HasErrors() || !ok
			}
		})
	}
	wg.Wait()
	body := &hclsyntax.Body{Attributes: hclsyntax.Attributes{}}
	for i, b := range bodies {
		if failed[i] {
			return hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
		}
		for name, attr := range b.Attributes {
			if _, twice := body.Attributes[name]; twice {
				return hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
			}
			body.Attributes[name] = attr
		}
		body.Blocks = append(body.Blocks, b.Blocks...)
	}
	last := bodies[len(bodies)-1]
	body.SrcRange = hcl.Range{Filename: filename, Start: hcl.InitialPos, End: last.SrcRange.End}
	body.EndRange = last.EndRange
	return &hcl.File{Body: body, Bytes: src}, nil
}

// cutTopLevel returns the offsets at which src may be cut into pieces of
// about size bytes, each starting a top-level block: after a line that is
// only "}", when the next line that is not blank starts with a letter. The first offset is 0;
// a source smaller than two pieces gives one.
func cutTopLevel(src []byte, size int) []int {
	cuts := []int{0}
	for at := size; at < len(src)-size/2; {
		i := bytes.Index(src[at:], []byte("\n}\n"))
		if i < 0 {
			break
		}
		next := at + i + 3
		j := next
		for j < len(src) && (src[j] == '\n' || src[j] == ' ' || src[j] == '\t') {
			j++
		}
		if j < len(src) && isLetter(src[j]) {
			cuts = append(cuts, next)
			at = next + size
			continue
		}
		at = next - 1
	}
	return cuts
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
