package execaction

import (
	"time"

	"github.com/mcpdecl/mcpdecl/engine/calltrace"
)

// trace records a finished run: the program and its arguments, its
// directory, how it ended and what it wrote. The environment is not shown:
// its values are often credentials.
func (a *action) trace(tr calltrace.Tracer, took time.Duration, argv []string, stdin []byte, g *group, stopped bool, stdout, stderr *capped) {
	command := make([]any, 0, len(argv)+1)
	command = append(command, a.path)
	for _, s := range argv {
		command = append(command, s)
	}
	fields := []calltrace.Field{{Name: "command", Value: command}}
	if a.dir != "" {
		fields = append(fields, calltrace.Field{Name: "dir", Value: a.dir})
	}
	if stdin != nil {
		fields = append(fields, calltrace.Field{Name: "stdin", Value: stdin})
	}
	switch {
	case stopped:
		fields = append(fields, calltrace.Field{Name: "ended", Value: "stopped before it finished (timeout or cancelled)"})
	case g.cmd != nil && g.cmd.ProcessState != nil:
		code, signal := exitStatus(g.cmd.ProcessState)
		fields = append(fields, calltrace.Field{Name: "exit_code", Value: code})
		if signal != "" {
			fields = append(fields, calltrace.Field{Name: "signal", Value: signal})
		}
	}
	if stdout.over || stderr.over {
		fields = append(fields, calltrace.Field{Name: "max_output", Value: "output was cut at max_output"})
	}
	fields = append(fields,
		calltrace.Field{Name: "stdout", Value: stdout.bytes()},
		calltrace.Field{Name: "stderr", Value: stderr.bytes()})
	tr.Stage("exec", took, fields...)
}
