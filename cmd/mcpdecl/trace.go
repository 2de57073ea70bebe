package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mcpdecl/mcpdecl/engine/calltrace"
	"github.com/spf13/cobra"
)

// Trace formats of call --trace.
const (
	traceText = "text"
	traceJSON = "json"
)

// addTraceFlag adds --trace to call: --trace or --trace=text for a readable
// trace on stderr, --trace=json for one JSON document there.
func addTraceFlag(c *cobra.Command, mode *string) {
	c.Flags().StringVar(mode, "trace", "", "print every stage of the call on stderr: --trace (readable text) or --trace=json (one JSON document)")
	c.Flags().Lookup("trace").NoOptDefVal = traceText
}

// checkTraceMode refuses a --trace value that is neither text nor json.
func checkTraceMode(mode string) error {
	switch mode {
	case "", traceText, traceJSON:
		return nil
	}
	return usageError{fmt.Errorf("--trace=%s: the trace is written as text (--trace) or JSON (--trace=json)", mode)}
}

// writeTrace writes the stages of a traced call to w in mode's format.
// result is the call's MCP result, as JSON.
func writeTrace(w io.Writer, mode, tool string, stages []calltrace.Stage, total time.Duration, result json.RawMessage) error {
	if mode == traceJSON {
		return writeTraceJSON(w, tool, stages, total, result)
	}
	return writeTraceText(w, tool, stages, total)
}

// writeTraceText writes one block per stage: its name and duration, then
// its fields, one a line; a long or multi-line value goes on the lines
// after its name, indented.
func writeTraceText(w io.Writer, tool string, stages []calltrace.Stage, total time.Duration) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "trace of %s\n", tool)
	for _, s := range stages {
		b.WriteString("\n== ")
		b.WriteString(s.Name)
		if s.Took > 0 {
			fmt.Fprintf(&b, " (%s)", roundDuration(s.Took))
		}
		b.WriteByte('\n')
		for _, f := range s.Fields {
			writeTraceField(&b, f)
		}
	}
	fmt.Fprintf(&b, "\n== total (%s)\n", roundDuration(total))
	_, err := w.Write(b.Bytes())
	return err
}

// writeTraceField writes one field of a stage.
func writeTraceField(b *bytes.Buffer, f calltrace.Field) {
	const indent = "     "
	var text string
	if s, ok := f.Value.(string); ok && f.Name != "value" {
		// A text as it is; a program's value is JSON, so that "1" and 1
		// differ.
		text = s
	} else if m, ok := f.Value.(map[string]any); ok && f.Name == "headers" && flatStrings(m) && len(m) > 0 {
		// Headers: one a line, sorted.
		fmt.Fprintf(b, "   %s:\n", f.Name)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(b, "%s%s: %s\n", indent, k, m[k])
		}
		return
	} else {
		j, err := marshalJSON(f.Value, "")
		if err != nil {
			j = []byte(fmt.Sprint(f.Value))
		}
		text = string(j)
		if len(text) > 80 {
			if ij, err := marshalJSON(f.Value, "  "); err == nil {
				text = string(ij)
			}
		}
	}
	if !strings.Contains(text, "\n") && len(text) <= 80 {
		fmt.Fprintf(b, "   %s: %s\n", f.Name, text)
		return
	}
	fmt.Fprintf(b, "   %s:\n", f.Name)
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		b.WriteString(indent)
		b.WriteString(line)
		b.WriteByte('\n')
	}
}

// flatStrings reports whether every value of m is a string.
func flatStrings(m map[string]any) bool {
	for _, v := range m {
		if _, ok := v.(string); !ok {
			return false
		}
	}
	return true
}

// roundDuration rounds d for reading.
func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond / 10)
}

// traceDocument is the shape of --trace=json.
type traceDocument struct {
	Tool       string          `json:"tool"`
	Stages     []traceJSONItem `json:"stages"`
	DurationMS float64         `json:"duration_ms"`
	Result     json.RawMessage `json:"result"`
}

// traceJSONItem is one stage in --trace=json; its fields keep their order.
type traceJSONItem struct {
	Stage      string      `json:"stage"`
	DurationMS float64     `json:"duration_ms"`
	Fields     orderedJSON `json:"fields"`
}

// orderedJSON is a JSON object whose keys keep the order of the fields.
type orderedJSON []calltrace.Field

// MarshalJSON writes the fields as one object, in order.
func (o orderedJSON) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshalJSON(f.Name, "")
		if err != nil {
			return nil, err
		}
		v, err := marshalJSON(f.Value, "")
		if err != nil {
			v, _ = marshalJSON(fmt.Sprint(f.Value), "")
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// writeTraceJSON writes the trace as one JSON document.
func writeTraceJSON(w io.Writer, tool string, stages []calltrace.Stage, total time.Duration, result json.RawMessage) error {
	doc := traceDocument{Tool: tool, Stages: make([]traceJSONItem, len(stages)), DurationMS: ms(total), Result: result}
	for i, s := range stages {
		doc.Stages[i] = traceJSONItem{Stage: s.Name, DurationMS: ms(s.Took), Fields: orderedJSON(s.Fields)}
	}
	b, err := marshalJSON(doc, "  ")
	if err != nil {
		return fmt.Errorf("writing the trace as JSON: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// marshalJSON is json.Marshal without escaping <, > and &, which a reader
// of a trace would have to decode, indented by indent when not empty.
func marshalJSON(v any, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
