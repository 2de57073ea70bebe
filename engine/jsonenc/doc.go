// Package jsonenc writes the JSON of the values that flow through a call
// (results, cache keys, messages) as one line, the way the engine and the
// adapters all want it: encoding/json's output with HTML escaping off and
// no trailing newline. It also says whether a string is a JSON number.
//
// A writer of its own, without reflection, was measured against
// encoding/json on every row of `go run ./bench` and saved under 8% of
// the server's CPU per call on all of them (issue #32), so it was dropped.
package jsonenc
