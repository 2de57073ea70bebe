package engine

// Audit says where the audit log goes: one JSON line per tool call with the
// time, the tool, the caller, the duration, the outcome and the size of the
// result.
type Audit struct {
	// File is the path the lines are appended to; empty means standard
	// error.
	File string
	// Arguments adds the call's arguments to each line, sensitive ones
	// masked.
	Arguments bool
}
