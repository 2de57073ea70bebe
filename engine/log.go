package engine

import (
	"context"
	"slices"
)

// LogLevels are the levels of MCP's log messages (notifications/message),
// least severe first, as RFC 5424 names them.
var LogLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// ValidLogLevel reports whether level is one of [LogLevels].
func ValidLogLevel(level string) bool { return slices.Contains(LogLevels, level) }

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

// Log sends a log message of the call, when ctx carries a [LogFunc]: text
// is redacted as everything the call reports is (see [RedactText]) and
// cleaned of terminal controls first.
func Log(ctx context.Context, level, text string) {
	if f, _ := ctx.Value(logKey{}).(LogFunc); f != nil {
		f(level, SanitizeString(RedactText(ctx, text)))
	}
}

// EmitsLogs reports whether the tool's action may send log messages.
func (t *Tool) EmitsLogs() bool {
	e, ok := t.spec.Action.(LogEmitter)
	return ok && e.EmitsLogs()
}
