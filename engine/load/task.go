package load

import (
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/spec"
	"github.com/mcpdecl/mcpdecl/engine/tasks"
)

// taskSpec is the task block of a tool.
var taskSpec = &spec.Block{
	Name:    "task",
	In:      "tool",
	Summary: "Lets the tool's calls run as tasks (the tasks extension of MCP 2026-07-28): tools/call answers at once, and the client polls tasks/get.",
	Doc: "A client that declares the extension io.modelcontextprotocol/tasks gets a task from tools/call at once; tasks/get tells its status " +
		"(working, input_required, completed, failed, cancelled) and, once done, its result; tasks/cancel stops its work (the process, the HTTP " +
		"request or the SQL query); tasks/update answers its confirmation. Only the caller that created a task sees it. A client without the " +
		"extension runs the call as any other when support = \"optional\", and is refused when it is \"required\". Where the tasks are kept, " +
		"and how many one caller may have, is the top-level tasks block's.",
	Example: `task {
  support       = "optional"
  ttl           = "1h"
  poll_interval = "2s"
}`,
	Attrs: []*spec.Attr{
		spec.Enum("support", "says whether a call may or must run as a task",
			spec.Choice{Value: "optional", Doc: "a client without the extension gets the result as from any tool"},
			spec.Choice{Value: "required", Doc: "a client without the extension is refused (error -32021)"}).WithDefault("optional"),
		spec.Duration("ttl", "is how long a task and its result are kept after it was created; its work is stopped then").Range(int64(time.Second), int64(7*24*time.Hour)).WithDefault(engine.DefaultTaskTTL),
		spec.Duration("poll_interval", "is how often the client is told to poll tasks/get").Range(int64(100*time.Millisecond), int64(time.Hour)).WithDefault(engine.DefaultTaskPollInterval),
		spec.Int("max_result", "caps the size of a result the task keeps, in bytes of JSON; a larger one fails the task with an error that says so").Range(1, 64<<20).WithDefault(int64(engine.DefaultTaskMaxResult)),
		spec.Enum("confirm", "says when a tool's confirm block asks the person",
			spec.Choice{Value: "first", Doc: "in the call, before the task is created: the task starts once the person answered"},
			spec.Choice{Value: "in_task", Doc: "the task starts at once and waits in input_required; the client answers with tasks/update"}).WithDefault("first"),
	},
}

// task decodes the task block of a tool, if any.
func (l *loader) task(ctx *engine.DecodeContext, blocks hcl.Blocks) *engine.TaskSpec {
	if len(blocks) == 0 {
		return nil
	}
	v, diags := taskSpec.Decode(blocks[0].Body, ctx)
	l.diags = append(l.diags, diags...)
	return &engine.TaskSpec{
		Required:     v.String("support") == "required",
		TTL:          v.Duration("ttl"),
		PollInterval: v.Duration("poll_interval"),
		MaxResult:    int(v.Int("max_result")),
		AskFirst:     v.String("confirm") != "in_task",
	}
}

// tasksBlock decodes the top-level tasks block, if any, and opens its
// store.
func (l *loader) tasksBlock() {
	b := l.single("tasks", "Where tasks are kept is already declared")
	if b == nil {
		return
	}
	store, max, diags := tasks.Decode(b, l.decodeContext(b.DefRange.Filename))
	l.diags = append(l.diags, diags...)
	l.settings.TasksPerCaller = max
	if store != nil {
		l.settings.Tasks = store
		l.decoded = append(l.decoded, store)
	}
}
