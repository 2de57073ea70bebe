package openapi

import (
	"strconv"
	"strings"
	"unicode"
)

// maxToolName is the longest tool name mcpdecl accepts.
const maxToolName = 128

// snake turns an identifier such as "getPetById", "repos/list-for-org" or
// "X-Request-ID" into snake_case of ASCII letters, digits and underscores:
// get_pet_by_id, repos_list_for_org, x_request_id. It returns "" when
// nothing is left.
func snake(s string) string {
	var b strings.Builder
	rs := []rune(s)
	under := true // at the start, or just wrote _
	for i, r := range rs {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if unicode.IsUpper(r) && !under && i > 0 {
				prev := rs[i-1]
				nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
					b.WriteByte('_')
				}
			}
			b.WriteRune(unicode.ToLower(r))
			under = false
		default:
			if !under {
				b.WriteByte('_')
				under = true
			}
		}
	}
	return strings.Trim(b.String(), "_")
}

// identifier makes s an HCL identifier and an expr-lang name: snake_case,
// starting with a letter.
func identifier(s, fallback string) string {
	n := snake(s)
	if n == "" {
		n = fallback
	}
	if n[0] >= '0' && n[0] <= '9' {
		n = fallback + "_" + n
	}
	return n
}

// names hands out unique names.
type names map[string]bool

// unique returns name, or name_2, name_3… when it is taken, within max
// bytes.
func (n names) unique(name string, max int) string {
	if len(name) > max {
		name = strings.TrimRight(name[:max], "_")
	}
	try := name
	for i := 2; n[try]; i++ {
		suffix := "_" + strconv.Itoa(i)
		base := name
		if len(base)+len(suffix) > max {
			base = base[:max-len(suffix)]
		}
		try = base + suffix
	}
	n[try] = true
	return try
}

// toolName is the name of an operation's tool: its operationId in
// snake_case, else its method and path.
func toolName(op *Operation) string {
	if n := snake(op.ID); n != "" {
		return n
	}
	n := snake(strings.ToLower(op.Method) + " " + op.Path)
	if n == "" {
		return strings.ToLower(op.Method)
	}
	return n
}
