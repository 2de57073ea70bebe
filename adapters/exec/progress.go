package execaction

import (
	"bytes"
	"context"
	"regexp"
	"strconv"

	"github.com/mcpdecl/mcpdecl/engine"
)

var _ engine.ProgressEmitter = (*action)(nil)

// EmitsProgress reports whether the program's lines report its progress
// (progress).
func (a *action) EmitsProgress() bool { return a.progress != nil }

// progressLines reads the lines a program writes to one of its streams,
// as it writes them, and reports the progress of those that match the
// progress pattern: its one group is a percentage, its two groups are done
// and total ("3 of 10"). The line is the notification's message. Lines
// longer than maxLogLine are read up to that length.
type progressLines struct {
	ctx     context.Context
	pattern *regexp.Regexp
	line    []byte
	long    bool
}

// Write reports the lines p completes; it never fails, so that the
// program's output is read whole.
func (w *progressLines) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		part := p
		if i >= 0 {
			part = p[:i]
		}
		if room := maxLogLine - len(w.line); len(part) > room {
			part, w.long = part[:max(room, 0)], true
		}
		w.line = append(w.line, part...)
		if i < 0 {
			break
		}
		w.report()
		p = p[i+1:]
	}
	return n, nil
}

// report reports the line under way, if it matches, and starts the next.
func (w *progressLines) report() {
	line := bytes.TrimRight(w.line, "\r")
	if m := w.pattern.FindSubmatch(line); m != nil {
		done, err := strconv.ParseFloat(string(m[1]), 64)
		total := 100.0
		if err == nil && len(m) > 2 {
			total, err = strconv.ParseFloat(string(m[2]), 64)
		}
		if err == nil {
			engine.Progress(w.ctx, done, total, string(bytes.TrimSpace(line)))
		}
	}
	w.line, w.long = w.line[:0], false
}

// flush reports a last line that did not end with a newline.
func (w *progressLines) flush() { w.report() }

// checkProgressPattern says what is wrong with a progress pattern, or "".
func checkProgressPattern(re *regexp.Regexp) string {
	if n := re.NumSubexp(); n < 1 || n > 2 {
		return "the pattern needs one group, a percentage such as \"(\\\\d+)%\", or two, done and total such as \"(\\\\d+) of (\\\\d+)\"; it has " + strconv.Itoa(n)
	}
	return ""
}
