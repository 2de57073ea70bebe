package engine

import (
	"context"

	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// LogLevels are the levels of MCP's log messages (notifications/message),
// least severe first, as RFC 5424 names them.
var LogLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// LogFunc sends one log message of a call to its client, at level (one of
// [LogLevels]). The text is the action's own, redacted and cleaned of
// terminal controls by the one who calls it; the client's level decides
// whether it is sent.
type LogFunc func(level, text string)

// A LogEmitter is an action that may send log messages while it runs
// (through [Log]): the server then gives its calls a [LogFunc], and
// declares the logging capability.
type LogEmitter interface {
	EmitsLogs() bool
}

type logKey struct{}

// WithLog returns ctx carrying f, which [Log] calls.
func WithLog(ctx context.Context, f LogFunc) context.Context {
	return context.WithValue(ctx, logKey{}, f)
}

// Logging reports whether ctx carries a [LogFunc]: whether log messages of
// the call can reach a client.
func Logging(ctx context.Context) bool {
	f, _ := ctx.Value(logKey{}).(LogFunc)
	return f != nil
}

// Log sends a log message of the call, when ctx carries a [LogFunc]: msg
// is redacted as everything the call reports is (see [text.Redacted]) and
// cleaned of terminal controls first.
func Log(ctx context.Context, level, msg string) {
	if f, _ := ctx.Value(logKey{}).(LogFunc); f != nil {
		f(level, text.SanitizeString(text.Redacted(ctx, msg)))
	}
}

// A LogMessage is a log message a tool declares (a log block): sent to
// the client as a call starts, before the action runs.
type LogMessage struct {
	Level   string        // one of LogLevels
	Message mapping.Value // over args and caller
}

// EmitsLogs reports whether the tool may send log messages: it declares
// some, or its action may send some.
func (t *Tool) EmitsLogs() bool {
	if len(t.spec.Logs) > 0 {
		return true
	}
	e, ok := t.spec.Action.(LogEmitter)
	return ok && e.EmitsLogs()
}

// sendLogs sends the tool's declared log messages of a call. A message
// whose program fails is sent as the failure, at level warning: a log
// message never fails a call.
func (t *Tool) sendLogs(ctx context.Context, args, caller map[string]any) {
	env := map[string]any{"args": args}
	if caller != nil {
		env["caller"] = caller
	}
	for _, m := range t.spec.Logs {
		v, err := m.Message.Eval(env)
		switch {
		case err != nil:
			Log(ctx, "warning", "a log message of tool "+t.spec.Name+" could not be written: "+err.Error())
		case v == nil:
			// null: nothing to say this time.
		default:
			s, ok := v.(string)
			if !ok {
				s = jsonenc.Text(v) // a number, a list…: as JSON
			}
			Log(ctx, m.Level, s)
		}
	}
}
