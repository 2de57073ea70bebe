package lsp

import (
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// Positions in the protocol count lines from 0 and characters in UTF-16
// code units; HCL's count bytes. These convert between the two through
// the text.

// offset is the byte offset of pos in text, clamped to the text.
func offset(text string, pos protocol.Position) int {
	i := 0
	for line := uint32(0); line < pos.Line; line++ {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			return len(text)
		}
		i += j + 1
	}
	for units := uint32(0); units < pos.Character && i < len(text) && text[i] != '\n'; {
		r, size := utf8.DecodeRuneInString(text[i:])
		units += uint32(utf16Len(r))
		i += size
	}
	return i
}

// position is the protocol position of the byte offset off of text.
func position(text string, off int) protocol.Position {
	off = min(max(off, 0), len(text))
	line := strings.Count(text[:off], "\n")
	start := strings.LastIndexByte(text[:off], '\n') + 1
	var units uint32
	for _, r := range text[start:off] {
		units += uint32(utf16Len(r))
	}
	return protocol.Position{Line: uint32(line), Character: units}
}

// span is the protocol range of an HCL range of text.
func span(text string, r hcl.Range) protocol.Range {
	return protocol.Range{Start: position(text, r.Start.Byte), End: position(text, r.End.Byte)}
}

func utf16Len(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}
