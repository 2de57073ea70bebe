package execaction

import (
	"strconv"

	"go.opentelemetry.io/otel/attribute"

	"github.com/mcpdecl/mcpdecl/engine"
)

// endUpstreamCall ends a finished run's upstream call: for the metrics, ok or error
// (killed, or an exit code other than 0); for its span, if the call is
// traced, the program and its exit code. The arguments, input and output
// of the run never go into a span.
func (a *action) endUpstreamCall(x *engine.UpstreamCall, g *group, stopped bool, err error) {
	if !x.Traced() {
		class := "ok"
		if stopped || err != nil || g.cmd.ProcessState == nil || !g.cmd.ProcessState.Success() {
			class = "error" // killed, or exited other than 0
		}
		x.End(class, "", "")
		return
	}
	x.SetAttributes(attribute.String("process.executable.name", a.name), attribute.String("process.executable.path", a.path))
	switch {
	case stopped:
		x.End("error", "timeout", "the run was stopped")
	case g.cmd.ProcessState == nil:
		x.End("error", "wait_failed", "the run could not be waited for")
	default:
		code, signal := exitStatus(g.cmd.ProcessState)
		x.SetAttributes(attribute.Int("process.exit.code", code))
		switch {
		case signal != "":
			x.End("error", "signal", "killed by "+signal)
		case code != 0:
			x.End("error", "exit_code", "exited with code "+strconv.Itoa(code))
		default:
			x.End("ok", "", "")
		}
	}
}
