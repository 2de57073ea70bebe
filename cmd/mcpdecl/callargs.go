package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// splitCallArgs splits call's positional arguments, PATH... TOOL [JSON],
// into the paths, the tool's name and its JSON arguments (nil for none).
// The last argument is JSON when it starts with "{" after white space; a
// last argument that is neither a JSON object nor a tool name, and a PATH
// that does not exist, are usage errors that say what call expects.
func splitCallArgs(rest []string) (paths []string, name string, raw json.RawMessage, err error) {
	if last := rest[len(rest)-1]; looksLikeJSON(last) {
		raw, err = callArguments(last)
		if err != nil {
			return nil, "", nil, usageError{err}
		}
		rest = rest[:len(rest)-1]
	} else if !validToolName(last) {
		return nil, "", nil, usageError{fmt.Errorf("%q is neither a tool name nor JSON arguments: give the arguments last, as one JSON object such as '{\"q\": \"hello\"}'", last)}
	}
	if len(rest) < 2 {
		return nil, "", nil, usageError{errors.New("call needs at least one PATH and a TOOL name: mcpdecl call PATH... TOOL [JSON]")}
	}
	paths, name = rest[:len(rest)-1], rest[len(rest)-1]
	for _, p := range paths {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return nil, "", nil, usageError{fmt.Errorf("no file or directory %q: call takes PATH... TOOL [JSON], with the configuration's files or directories first, then the tool's name, then its arguments as one JSON object", p)}
		}
	}
	return paths, name, raw, nil
}

// looksLikeJSON reports whether arg is meant as JSON arguments rather than a
// tool name or a path: it starts, after white space, with a character that
// begins a JSON value and no tool name or usual path.
func looksLikeJSON(arg string) bool {
	t := strings.TrimSpace(arg)
	if t == "" {
		return arg != ""
	}
	switch t[0] {
	case '{', '[', '"':
		return true
	}
	return t != arg && json.Valid([]byte(t))
}

// callArguments checks that arg is one JSON object, and returns it.
func callArguments(arg string) (json.RawMessage, error) {
	b := bytes.TrimSpace([]byte(arg))
	if !json.Valid(b) {
		var v any
		err := json.Unmarshal(b, &v)
		return nil, fmt.Errorf("the arguments are not valid JSON (%v): give them as one JSON object, such as '{\"q\": \"hello\"}'", err)
	}
	if b[0] != '{' {
		return nil, fmt.Errorf("the arguments must be one JSON object, such as '{\"q\": \"hello\"}', not %s", describeJSON(b))
	}
	return json.RawMessage(b), nil
}

// describeJSON names the kind of a valid JSON value, for messages.
func describeJSON(b []byte) string {
	switch b[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// validToolName reports whether s follows MCP's rule for tool names: 1 to
// 128 characters of A-Z a-z 0-9 _ - and '.'.
func validToolName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.':
		default:
			return false
		}
	}
	return true
}
