// Package jsonenc writes the JSON of the values that flow through a call —
// what encoding/json decodes, and the numbers, strings and lists that
// adapters and expr programs produce — byte for byte as encoding/json
// writes them with HTML escaping off, but without reflection. Results are
// written on every call, so the engine and the adapters share this one
// writer instead of each reaching for encoding/json.
package jsonenc
