package audit

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpdecl/mcpdecl/engine"
)

// Caps on the arguments an audit record shows: clients choose them, and one
// call must not write megabytes to the audit log.
const (
	// maxAuditString is the longest string value shown whole, in bytes;
	// a longer one is cut and marked with its full size.
	maxAuditString = 256
	// maxAuditArguments bounds the arguments of one record, as JSON: the
	// arguments that do not fit, in name order, are left out and counted.
	maxAuditArguments = 4 << 10
)

// Arguments are the arguments a client sent to t, raw JSON, as an audit
// line or a span may show them: each sensitive one as [text.Mask], every
// known secret redacted from the others (see [engine.Tool.AuditArguments]),
// every string cut to 256 bytes, and the arguments kept, in name order,
// while they fit in 4 KiB of JSON. omitted is the number left out.
func Arguments(t *engine.Tool, raw json.RawMessage) (args any, omitted int) {
	return capArguments(t.AuditArguments(raw))
}

// capArguments caps args, as [engine.Tool.AuditArguments] returns them:
// every string cut to maxAuditString bytes, and the arguments kept, in name
// order, while they fit in maxAuditArguments bytes of JSON. omitted is the
// number left out.
func capArguments(args any) (capped any, omitted int) {
	m, ok := args.(map[string]any)
	if !ok {
		return capValue(args), 0
	}
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	slices.Sort(names)
	out := make(map[string]any, len(m))
	size := len("{}")
	for _, name := range names {
		v := capValue(m[name])
		b, err := json.Marshal(map[string]any{capString(name): v})
		if err != nil || size+len(b)-1 > maxAuditArguments { // -1: "{}" less a comma
			omitted++
			continue
		}
		out[capString(name)] = v
		size += len(b) - 1
	}
	return out, omitted
}

// capValue is v with every string in it cut by capString.
func capValue(v any) any {
	switch v := v.(type) {
	case string:
		return capString(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = capValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[capString(k)] = capValue(e)
		}
		return out
	}
	return v
}

// capString cuts s to maxAuditString bytes, on a character boundary, and
// says how long it was: "abc…(1000 bytes)".
func capString(s string) string {
	if len(s) <= maxAuditString {
		return s
	}
	return fmt.Sprintf("%s…(%d bytes)", engine.TruncateUTF8(s, maxAuditString), len(s))
}
