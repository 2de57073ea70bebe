package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
	"github.com/mcpdecl/mcpdecl/engine/spec"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// Spec is the audit block.
var Spec = &spec.Block{
	Name:    "audit",
	Summary: "Writes one line per call: who called which tool, when, how it ended.",
	Doc: "An audit file holds JSON lines; on standard error the lines follow the format of the logs. " +
		`Argument values are left out unless arguments = true, and sensitive ones are written as "(sensitive)".`,
	Example: `audit {
  file      = "audit.log"
  arguments = false
}`,
	Attrs: []*spec.Attr{
		spec.String("file", `is where audit lines are appended: a path relative to this file, or "-" for standard error`).WithDefault("-"),
		spec.Bool("arguments", "adds the calls' argument values to the lines").WithDefault(false),
	},
}

// Decode reads the audit block: where to write one line per call, and
// whether the lines carry argument values. A relative file is taken from
// ctx.Dir, the directory of the block's file.
func Decode(block *hcl.Block, ctx *engine.DecodeContext) (*Log, hcl.Diagnostics) {
	v, diags := Spec.Decode(block.Body, ctx)
	if v.Has("file") && v.String("file") == "" {
		diags = append(diags, spec.Errorf(v.Attr("file").Expr.Range(), "Invalid audit file",
			`file is where audit lines are appended: a path relative to this file, or "-" for standard error (the default).`))
	}
	if diags.HasErrors() {
		return nil, diags
	}
	a := &Log{Arguments: v.Bool("arguments")}
	if f := v.String("file"); f != "" && f != "-" {
		a.File = f
		if !filepath.IsAbs(a.File) {
			a.File = filepath.Join(ctx.Dir, a.File)
		}
	}
	return a, diags
}

// Log is a configuration's audit block, and the layer of each of its
// tools' per-call path that writes the line of every call, refused ones
// too, once a server opened it (see Open).
type Log struct {
	// File is the path the lines are appended to; empty means standard
	// error.
	File string
	// Arguments adds the call's arguments to each line, sensitive ones
	// masked.
	Arguments bool

	w atomic.Pointer[writer] // nil until opened, and once closed
}

var _ engine.CallLayer = (*Log)(nil)

// Of returns the audit log of cfg, nil when it has no audit block.
func Of(cfg *engine.Config) *Log {
	for _, l := range cfg.Layers {
		if a, ok := l.(*Log); ok {
			return a
		}
	}
	return nil
}

// writer is an open audit log: one JSON line per tool call, or one text
// line like the logs' when it shares standard error with text logs.
type writer struct {
	log       *slog.Logger
	arguments bool
	text      bool     // lines as text: the arguments as one JSON string
	file      *os.File // nil when writing to standard error
}

// Open starts writing the lines of calls: appending to a's file, created
// with mode 0600 when missing, else to stderr, as text lines when text is
// true and JSON lines otherwise. Until it is opened, and once closed, a
// writes nothing. Open on a nil Log does nothing.
func (a *Log) Open(stderr io.Writer, text bool) error {
	if a == nil {
		return nil
	}
	w, err := a.open(stderr, text)
	if err != nil {
		return err
	}
	if old := a.w.Swap(w); old != nil {
		_ = old.close()
	}
	return nil
}

func (a *Log) open(stderr io.Writer, text bool) (*writer, error) {
	w := &writer{arguments: a.Arguments}
	if a.File == "" && text {
		// Never filtered by --log-level: the audit records every call.
		w.log, w.text = slog.New(slog.NewTextHandler(stderr, nil)), true
		return w, nil
	}
	out := stderr
	if a.File != "" {
		f, err := os.OpenFile(a.File, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("cannot open the audit log: %w; check that its directory exists and is writable", err)
		}
		w.file, out = f, f
	}
	w.log = slog.New(slog.NewJSONHandler(out, nil))
	return w, nil
}

// Check reports whether a's file, if any, can be written, creating it
// when missing; it writes nothing. A nil Log checks nothing.
func (a *Log) Check() error {
	if a == nil {
		return nil
	}
	w, err := a.open(io.Discard, false)
	if err != nil {
		return err
	}
	return w.close()
}

// Close stops writing, and closes the file, if any. Close on a nil Log
// does nothing.
func (a *Log) Close() error {
	if a == nil {
		return nil
	}
	return a.w.Swap(nil).close()
}

// close closes the audit file, if any.
func (w *writer) close() error {
	if w == nil || w.file == nil {
		return nil
	}
	return w.file.Close()
}

// Wrap writes the line of each call of t, timed from the moment the call
// reaches it, once a is open.
func (a *Log) Wrap(t *engine.Tool, next engine.CallStep) (engine.CallStep, error) {
	return func(ctx context.Context, caller engine.Caller, raw json.RawMessage) *engine.Result {
		w := a.w.Load()
		if w == nil {
			return next(ctx, caller, raw)
		}
		start := time.Now()
		res := next(ctx, caller, raw)
		w.record(t, caller, raw, res, time.Since(start))
		return res
	}, nil
}

// record writes the line of one call that took d. raw are the arguments as
// sent; only with audit { arguments = true } are they written, each
// sensitive one as [text.Mask], after redaction of every known secret.
func (w *writer) record(t *engine.Tool, caller engine.Caller, raw json.RawMessage, res *engine.Result, d time.Duration) {
	attrs := make([]slog.Attr, 0, 8)
	attrs = append(attrs,
		slog.String("tool", t.Name()),
		slog.String("client", caller.ID),
		slog.Float64("duration_ms", float64(d.Microseconds())/1000),
		slog.String("outcome", outcome(res)),
		slog.Int("bytes", resultSize(res)),
	)
	if c := res.Confirmation.String(); c != "" {
		attrs = append(attrs, slog.String("confirmation", c))
	}
	if res.IsError {
		attrs = append(attrs, slog.String("error", text.Excerpt(context.Background(), res.Text())))
	}
	if w.arguments {
		args, omitted := Arguments(t, raw)
		if w.text {
			attrs = append(attrs, slog.String("arguments", jsonenc.Text(args)))
		} else {
			attrs = append(attrs, slog.Any("arguments", args))
		}
		if omitted > 0 {
			attrs = append(attrs, slog.Int("arguments_omitted", omitted))
		}
	}
	w.log.LogAttrs(context.Background(), slog.LevelInfo, "tool call", attrs...)
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
// content, as JSON.
func resultSize(res *engine.Result) int {
	n := 0
	for _, c := range res.Content {
		n += len(c.Text) + len(c.Data)
	}
	return n + len(res.StructuredJSON())
}
