package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// auditor writes the audit log: one JSON line per tool call, or one text
// line like the logs' when it shares standard error with text logs.
type auditor struct {
	log       *slog.Logger
	arguments bool
	text      bool     // lines as text: the arguments as one JSON string
	file      *os.File // nil when writing to standard error
}

// openAudit opens the audit log a describes, appending to its file, created with
// mode 0600 when missing. Without a file it writes to stderr: text lines
// when text is true, JSON lines otherwise. It returns nil when cfg has no
// audit block.
func openAudit(a *engine.Audit, stderr io.Writer, text bool) (*auditor, error) {
	if a == nil {
		return nil, nil
	}
	au := &auditor{arguments: a.Arguments}
	if a.File == "" && text {
		// Never filtered by --log-level: the audit records every call.
		au.log, au.text = slog.New(slog.NewTextHandler(stderr, nil)), true
		return au, nil
	}
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
	au, err := openAudit(cfg.Audit, io.Discard, false)
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
// [text.Mask], after redaction of every known secret. out is res as sent
// to the client.
func (a *auditor) record(t *engine.Tool, caller engine.Caller, raw json.RawMessage, res *engine.Result, out *mcp.CallToolResult, d time.Duration) {
	attrs := make([]slog.Attr, 0, 8)
	attrs = append(attrs,
		slog.String("tool", t.Name()),
		slog.String("client", caller.ID),
		slog.Float64("duration_ms", float64(d.Microseconds())/1000),
		slog.String("outcome", outcome(res)),
		slog.Int("bytes", resultSize(res, out)),
	)
	if c := res.Confirmation.String(); c != "" {
		attrs = append(attrs, slog.String("confirmation", c))
	}
	if res.IsError {
		attrs = append(attrs, slog.String("error", text.Excerpt(context.Background(), res.Text())))
	}
	if a.arguments {
		args, omitted := capArguments(t.AuditArguments(raw))
		if a.text {
			attrs = append(attrs, slog.String("arguments", jsonenc.Text(args)))
		} else {
			attrs = append(attrs, slog.Any("arguments", args))
		}
		if omitted > 0 {
			attrs = append(attrs, slog.Int("arguments_omitted", omitted))
		}
	}
	a.log.LogAttrs(context.Background(), slog.LevelInfo, "tool call", attrs...)
}

func outcome(res *engine.Result) string {
	if res.Round != nil {
		return "input_required"
	}
	if res.IsError {
		return "error"
	}
	return "ok"
}

// resultSize is the size of a result's content and of its structured
// content, as [Result] wrote it.
func resultSize(res *engine.Result, out *mcp.CallToolResult) int {
	n := 0
	for _, c := range res.Content {
		n += len(c.Text) + len(c.Data)
	}
	if b, ok := out.StructuredContent.(json.RawMessage); ok {
		n += len(b)
	}
	return n
}
