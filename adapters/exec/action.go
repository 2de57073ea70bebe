package execaction

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/calltrace"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// DefaultKillTimeout is how long a process group has to exit after SIGTERM,
// when a call's time runs out or it is cancelled, before it is sent SIGKILL,
// unless the exec block sets kill_timeout.
const DefaultKillTimeout = 2 * time.Second

var _ engine.ConcurrencyLimiter = (*action)(nil)

// DefaultMaxConcurrency bounds the runs of a tool under way at once, when
// the tool does not set max_concurrency, to the number of CPUs.
func (a *action) DefaultMaxConcurrency() int { return runtime.NumCPU() }

// Run runs the program once, and returns its exit code and output.
func (a *action) Run(ctx context.Context, args map[string]any) (*engine.Response, error) {
	var env map[string]any
	if a.dynamic {
		env = engine.ProgramEnv(ctx, args)
	}
	argv, err := a.argv(env)
	if err != nil {
		return nil, err
	}
	environ, err := a.environ(env)
	if err != nil {
		return nil, err
	}
	in, err := a.input(env)
	if err != nil {
		return nil, err
	}

	runCtx := ctx
	if a.timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, a.timeout)
		defer cancel()
	}
	tr := calltrace.From(ctx)
	var began time.Time
	if tr != nil {
		began = time.Now()
	}
	_, x := engine.BeginUpstreamCall(ctx, "exec", a.name, a.span, trace.SpanKindInternal)
	g := &group{grace: a.killTimeout}
	stdout := &capped{max: a.maxOutput, stop: g.cutOff}
	stderr := &capped{max: a.maxOutput, stop: g.cutOff}
	var errOut io.Writer = stderr
	var logged *stderrLog
	if a.logStderr != "" && engine.Logging(ctx) {
		logged = &stderrLog{ctx: ctx, level: a.logStderr}
		errOut = io.MultiWriter(stderr, logged)
	}
	var outLines, errLines *progressLines
	var out io.Writer = stdout
	if a.progress != nil && engine.Progressing(ctx) {
		outLines = &progressLines{ctx: ctx, pattern: a.progress}
		errLines = &progressLines{ctx: ctx, pattern: a.progress}
		out = io.MultiWriter(stdout, outLines)
		errOut = io.MultiWriter(errOut, errLines)
	}
	err = g.start(a.cgroups, func() *exec.Cmd {
		cmd := exec.CommandContext(runCtx, a.path, argv...)
		cmd.Args[0] = a.name // as a shell would: programs name themselves so
		cmd.Dir = a.dir
		cmd.Env = environ
		cmd.Stdout = out
		cmd.Stderr = errOut
		if in != nil {
			cmd.Stdin = bytes.NewReader(in)
		}
		return cmd
	})
	if err != nil {
		if runCtx.Err() != nil {
			err := a.stopped(ctx, runCtx, "")
			x.End("error", "timeout", err.Error())
			return nil, err
		}
		err = fmt.Errorf("command %s could not be started: %s", a.path, startError(err))
		x.End("error", "start_failed", err.Error())
		return nil, err
	}
	stopped, err := g.wait()
	if logged != nil {
		logged.flush()
	}
	if outLines != nil {
		outLines.flush()
		errLines.flush()
	}
	a.endUpstreamCall(&x, g, stopped, err)
	if tr != nil {
		a.trace(tr, time.Since(began), argv, in, g, stopped, stdout, stderr)
	}
	if stopped {
		return nil, a.stopped(ctx, runCtx, stderr.text(ctx))
	}
	if stdout.over || stderr.over {
		// The run was killed at max_output, unless it had just ended: how
		// it ended says nothing of the program then, and the output is
		// the whole result.
		return a.response(ctx, 0, "", stdout, stderr)
	}
	if g.cmd.ProcessState == nil {
		return nil, fmt.Errorf("command %s could not be waited for: %v", a.path, err)
	}
	code, signal := exitStatus(g.cmd.ProcessState)
	return a.response(ctx, code, signal, stdout, stderr)
}

// response builds what programs see from a finished run.
func (a *action) response(ctx context.Context, code int, signal string, stdout, stderr *capped) (*engine.Response, error) {
	if !a.truncate && (stdout.over || stderr.over) {
		stream := "stdout"
		if !stdout.over {
			stream = "stderr"
		} else if stderr.over {
			stream = "stdout and to stderr"
		}
		msg := fmt.Sprintf("command %s wrote more than %d bytes to %s, the limit of max_output, and was stopped; raise max_output, or set truncate = true to keep the first %d bytes",
			a.path, a.maxOutput, stream, a.maxOutput)
		return nil, errors.New(msg)
	}
	outBytes := stdout.bytes()
	text := stdout.text(ctx)
	errText := stderr.text(ctx)

	var out any
	switch a.parse {
	case parseText:
		out = text
	case parseLines:
		out = splitLines(text)
	case parseJSON:
		v, err := decodeJSON(outBytes)
		switch {
		case err == nil:
			out = v
		case code != 0:
			out = text // a failure's output, kept as it is
		default:
			msg := fmt.Sprintf("command %s printed invalid JSON on stdout (parse = \"json\"): %v", a.path, err)
			if stdout.over {
				msg += fmt.Sprintf("; the output was cut at %d bytes (max_output, with truncate = true)", a.maxOutput)
			}
			return nil, errors.New(msg)
		}
	}
	resp := &engine.Response{
		Vars: make(map[string]any, 5), // and args, added by the engine
		Content: []engine.Content{{
			Type: engine.TextContent,
			Text: text,
		}},
	}
	resp.Vars["exit_code"] = code
	resp.Vars["stdout"] = out
	resp.Vars["stderr"] = errText
	resp.Vars["truncated"] = stdout.over || stderr.over
	if code != 0 {
		resp.Failure = a.failure(ctx, code, signal, errText, text)
	}
	return resp, nil
}

// failure words a non-zero exit code, with an excerpt of what the program
// said: its stderr, or its stdout when stderr is empty.
func (a *action) failure(ctx context.Context, code int, signal, stderr, stdout string) string {
	var b strings.Builder
	b.WriteString("command ")
	b.WriteString(a.path)
	if signal != "" {
		b.WriteString(" was killed by ")
		b.WriteString(signal)
	} else {
		fmt.Fprintf(&b, " exited with code %d", code)
	}
	if ex := text.Excerpt(ctx, stderr); ex != "" {
		b.WriteString(": ")
		b.WriteString(ex)
	} else if ex := text.Excerpt(ctx, stdout); ex != "" {
		b.WriteString("; stdout: ")
		b.WriteString(ex)
	}
	return b.String()
}

// stoppedError is a run stopped because its context ended.
type stoppedError struct {
	msg   string
	cause error
}

func (e *stoppedError) Error() string { return e.msg }
func (e *stoppedError) Unwrap() error { return e.cause }

// stopped words a run that was stopped: by its own timeout, or because the
// call ended (its timeout, which the engine reports, or the client).
func (a *action) stopped(parent, run context.Context, stderr string) error {
	var msg string
	if parent.Err() == nil && errors.Is(run.Err(), context.DeadlineExceeded) {
		msg = fmt.Sprintf("command %s timed out after %s and was stopped", a.path, a.timeout)
	} else {
		msg = fmt.Sprintf("command %s was stopped before it finished", a.path)
	}
	if ex := text.Excerpt(parent, stderr); ex != "" {
		msg += "; its stderr: " + ex
	}
	return &stoppedError{msg: msg, cause: run.Err()}
}

// argv computes the arguments after the program.
func (a *action) argv(env map[string]any) ([]string, error) {
	if a.args == nil {
		return a.fixed, nil
	}
	out := make([]string, 0, len(a.args)+4)
	for _, arg := range a.args {
		if arg.value == nil {
			out = append(out, arg.fixed...)
			continue
		}
		v, err := arg.value.Eval(env)
		if err != nil {
			return nil, err
		}
		if out, err = appendArgs(out, v); err != nil {
			return nil, fmt.Errorf("command[%d] (%s) %s", arg.index, arg.where, err)
		}
	}
	return out, nil
}

// environ computes the program's environment: the server's when inherited,
// PATH otherwise, then the entries of env. Later entries win.
func (a *action) environ(env map[string]any) ([]string, error) {
	if !a.inherit && len(a.envVars) == 0 {
		return a.env[:len(a.env):len(a.env)], nil
	}
	var base []string
	if a.inherit {
		base = os.Environ()
	}
	out := make([]string, 0, len(base)+len(a.env)+len(a.envVars))
	out = append(out, base...)
	out = append(out, a.env...)
	for _, ev := range a.envVars {
		v, err := ev.value.Eval(env)
		if err != nil {
			return nil, err
		}
		s, set, err := envValue(v)
		if err != nil {
			// Never the value: it may be a secret.
			return nil, fmt.Errorf("env %s (%s) %s", ev.name, ev.where, err)
		}
		if set {
			out = append(out, ev.name+"="+s)
		}
	}
	return out, nil
}

// input computes what the program reads on stdin; nil for nothing.
func (a *action) input(env map[string]any) ([]byte, error) {
	if a.stdin == nil {
		return a.stdinFixed, nil
	}
	v, err := a.stdin.Eval(env)
	if err != nil {
		return nil, err
	}
	return stdinBytes(v)
}

// startError words why a program could not be started.
func startError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "it no longer exists, or its working directory does not"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	return err.Error()
}
