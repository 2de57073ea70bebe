package openapi

import (
	"path"
	"strings"
)

// Selection says which operations become tools. Patterns are globs: *
// matches any run of characters (slashes included), ? one, [a-z] a class.
// An empty list selects everything; the exclusions apply after.
type Selection struct {
	Tags, ExcludeTags   []string // tag names, or patterns
	Ops, ExcludeOps     []string // operationIds or tool names, or patterns
	Paths, ExcludePaths []string // paths as written in the document, or patterns
	Methods             []string // GET, POST…, in any case
}

// selects reports whether the selection takes op, whose tool is named name.
func (s Selection) selects(op *Operation, name string) bool {
	if len(s.Tags) > 0 && !anyMatch(s.Tags, op.Tags...) {
		return false
	}
	if len(s.Ops) > 0 && !anyMatch(s.Ops, op.ID, name) {
		return false
	}
	if len(s.Paths) > 0 && !anyMatch(s.Paths, op.Path) {
		return false
	}
	if len(s.Methods) > 0 {
		ok := false
		for _, m := range s.Methods {
			ok = ok || strings.EqualFold(m, op.Method)
		}
		if !ok {
			return false
		}
	}
	return !anyMatch(s.ExcludeTags, op.Tags...) && !anyMatch(s.ExcludeOps, op.ID, name) && !anyMatch(s.ExcludePaths, op.Path)
}

// anyMatch reports whether one of the patterns matches one of the values.
func anyMatch(patterns []string, values ...string) bool {
	for _, p := range patterns {
		for _, v := range values {
			if v != "" && glob(p, v) {
				return true
			}
		}
	}
	return false
}

// glob matches v against p, where * also matches slashes.
func glob(p, v string) bool {
	if p == v {
		return true
	}
	// path.Match's * stops at "/": match with "/" swapped for a character
	// that neither holds.
	const sep = "\x00"
	ok, err := path.Match(strings.ReplaceAll(p, "/", sep), strings.ReplaceAll(v, "/", sep))
	return err == nil && ok
}
