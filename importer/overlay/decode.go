package overlay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"
)

// Decode reads JSON or YAML into plain values: maps with string keys,
// lists, strings, bools, int64 or float64 numbers, and strings for
// timestamps. location names data in messages.
func Decode(data []byte, location string) (any, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%s is empty", location)
	}
	var v any
	if trimmed[0] == '{' {
		d := json.NewDecoder(bytes.NewReader(trimmed))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s is not valid JSON: %s", location, jsonError(err, trimmed))
		}
	} else {
		var n yaml.Node
		if err := yaml.Unmarshal(trimmed, &n); err != nil {
			return nil, fmt.Errorf("%s is not valid YAML: %v", location, err)
		}
		if err := n.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s is not valid YAML: %v", location, err)
		}
	}
	return plain(v), nil
}

// jsonError says where a JSON syntax error is, as line:column.
func jsonError(err error, data []byte) string {
	var off int64 = -1
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
	}
	if err.Error() == "unexpected EOF" {
		return "it ends too early (truncated?)"
	}
	if off < 0 || off > int64(len(data)) {
		return err.Error()
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - int64(bytes.LastIndexByte(data[:off], '\n'))
	return fmt.Sprintf("line %d, column %d: %v", line, col, err)
}

// plain turns what the decoders give into maps with string keys, float64
// or int64 numbers and strings for timestamps.
func plain(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = plain(e)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = plain(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = plain(e)
		}
		return x
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case int:
		return int64(x)
	case uint64:
		return float64(x)
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return x.Format("2006-01-02")
		}
		return x.Format(time.RFC3339)
	}
	return v
}
