package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/mcpdecl/mcpdecl/engine"
)

// auditor writes the audit log: one JSON line per tool call.
type auditor struct {
	log       *slog.Logger
	arguments bool
	file      *os.File // nil when writing to standard error
}

// openAudit opens the audit log a describes, appending to its file, created with
// mode 0600 when missing. It returns nil when cfg has no audit block.
func openAudit(a *engine.Audit, stderr io.Writer) (*auditor, error) {
	if a == nil {
		return nil, nil
	}
	au := &auditor{arguments: a.Arguments}
	w := stderr
	if a.File != "" {
		f, err := os.OpenFile(a.File, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("cannot open the audit log: %w; check that its directory exists and is writable", err)
		}
		au.file, w = f, f
	}
	au.log = slog.New(slog.NewJSONHandler(w, nil))
	return au, nil
}

// CheckAudit reports whether the audit log of cfg, if any, can be written.
func CheckAudit(cfg *engine.Config) error {
	au, err := openAudit(cfg.Audit, io.Discard)
	if err != nil {
		return err
	}
	return au.close()
}

// close closes the audit file, if any.
func (a *auditor) close() error {
	if a == nil || a.file == nil {
		return nil
	}
	return a.file.Close()
}

// record writes the line of one call. raw are the arguments as sent; only
// with audit { arguments = true } are they written, each sensitive one as
// [engine.Mask], after redaction of every known secret.
func (a *auditor) record(t *engine.Tool, caller engine.Caller, raw json.RawMessage, res *engine.Result, d time.Duration, redactor *engine.Redactor) {
	attrs := make([]slog.Attr, 0, 8)
	attrs = append(attrs,
		slog.String("tool", t.Name()),
		slog.String("client", caller.ID),
		slog.Float64("duration_ms", float64(d.Microseconds())/1000),
		slog.String("outcome", outcome(res)),
		slog.Int("bytes", resultSize(res)),
	)
	if res.IsError {
		attrs = append(attrs, slog.String("error", engine.Excerpt(res.Text())))
	}
	if a.arguments {
		attrs = append(attrs, slog.Any("arguments", auditArguments(t, raw, redactor)))
	}
	a.log.LogAttrs(context.Background(), slog.LevelInfo, "tool call", attrs...)
}

func outcome(res *engine.Result) string {
	if res.IsError {
		return "error"
	}
	return "ok"
}

// resultSize is the size of a result's content and structured content.
func resultSize(res *engine.Result) int {
	n := 0
	for _, c := range res.Content {
		n += len(c.Text) + len(c.Data)
	}
	if res.Structured != nil {
		if b, err := json.Marshal(res.Structured); err == nil {
			n += len(b)
		}
	}
	return n
}

// auditArguments are the arguments of a call for the audit log: sensitive
// ones masked, their values and every known secret redacted from the
// others, anything that is not a JSON object described rather than copied.
func auditArguments(t *engine.Tool, raw json.RawMessage, redactor *engine.Redactor) any {
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var args map[string]any
	if err := dec.Decode(&args); err != nil {
		return "(not a JSON object)"
	}
	var secrets []string
	for name, v := range args {
		if s, ok := v.(string); ok && t.IsSensitive(name) && len(s) >= 4 {
			secrets = append(secrets, s)
		}
	}
	redact := func(s string) string {
		s = redactor.Redact(s)
		for _, v := range secrets {
			s = strings.ReplaceAll(s, v, engine.Mask)
		}
		return s
	}
	for name, v := range args {
		if t.IsSensitive(name) {
			args[name] = engine.Mask
			continue
		}
		args[name] = redactAll(v, redact)
	}
	return args
}

// redactAll applies redact to every string in v.
func redactAll(v any, redact func(string) string) any {
	switch v := v.(type) {
	case string:
		return redact(v)
	case []any:
		for i, e := range v {
			v[i] = redactAll(e, redact)
		}
	case map[string]any:
		for k, e := range v {
			v[k] = redactAll(e, redact)
		}
	}
	return v
}
