package execaction

import (
	"bytes"
	"context"

	"github.com/mcpdecl/mcpdecl/engine"
)

// The bounds of the log messages of one run (log_stderr): a program may
// write without end, but a client is sent at most maxLogLines messages of
// at most maxLogLine bytes each.
const (
	maxLogLines = 100
	maxLogLine  = 1024
)

var _ engine.LogEmitter = (*action)(nil)

// EmitsLogs reports whether the program's stderr lines are sent to the
// client as log messages (log_stderr).
func (a *action) EmitsLogs() bool { return a.logStderr != "" }

// stderrLog sends each line written to it, as it is written, as a log
// message of the call at level: at most maxLogLines lines, each cut at
// maxLogLine bytes. A last line without a newline is sent by flush.
type stderrLog struct {
	ctx   context.Context
	level string
	line  []byte
	long  bool // the line under way passed maxLogLine: the rest is dropped
	sent  int
}

// Write sends the lines p completes; it never fails, so that the program's
// stderr is read whole.
func (l *stderrLog) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 && l.sent < maxLogLines {
		i := bytes.IndexByte(p, '\n')
		part := p
		if i >= 0 {
			part = p[:i]
		}
		if room := maxLogLine - len(l.line); len(part) > room {
			part, l.long = part[:max(room, 0)], true
		}
		l.line = append(l.line, part...)
		if i < 0 {
			break
		}
		l.send()
		p = p[i+1:]
	}
	return n, nil
}

// send sends the line under way, if any, and starts the next.
func (l *stderrLog) send() {
	line := bytes.TrimRight(l.line, "\r")
	if len(line) > 0 && l.sent < maxLogLines {
		text := string(line)
		if l.long {
			text += "…"
		}
		engine.Log(l.ctx, l.level, text)
		l.sent++
	}
	l.line, l.long = l.line[:0], false
}

// flush sends a last line that did not end with a newline.
func (l *stderrLog) flush() { l.send() }
