package engine

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// TaskSpec is a tool's task block: its calls may run as tasks (the tasks
// extension of MCP, io.modelcontextprotocol/tasks): tools/call answers at
// once with the task, and the client polls tasks/get for its result.
type TaskSpec struct {
	// Required refuses a call from a client that did not declare the
	// extension; otherwise such a call runs as any other.
	Required bool
	// TTL is how long a task and its result are kept from its creation.
	TTL time.Duration
	// PollInterval is how often a client is told to poll.
	PollInterval time.Duration
	// MaxResult caps the size of the result a task keeps, in bytes: a
	// larger one fails the task.
	MaxResult int
	// AskFirst asks a tool's confirmation (or question) in the call,
	// before the task is created; otherwise the task starts at once and
	// waits in input_required for the answer.
	AskFirst bool
}

// The defaults of a task block.
const (
	DefaultTaskTTL          = time.Hour
	DefaultTaskPollInterval = time.Second
	DefaultTaskMaxResult    = 1 << 20
	// DefaultTasksPerCaller is how many tasks one caller may have at
	// once (running or kept), without a tasks block that says otherwise.
	DefaultTasksPerCaller = 100
)

// Task returns the tool's task block, nil when its calls never run as
// tasks.
func (t *Tool) Task() *TaskSpec { return t.spec.Task }

// The statuses of a task.
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// TaskTerminal reports whether a task of the status is done.
func TaskTerminal(status string) bool {
	return status == TaskCompleted || status == TaskFailed || status == TaskCancelled
}

// Task is one task as a store keeps it.
type Task struct {
	ID string `json:"id"`
	// Owner is the caller that created it (Caller.ID): only it sees it.
	Owner   string    `json:"owner"`
	Tool    string    `json:"tool"`
	Status  string    `json:"status"`
	Message string    `json:"message,omitempty"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Expires is when the store forgets it: Created + the tool's TTL.
	Expires      time.Time     `json:"expires"`
	PollInterval time.Duration `json:"poll"`
	// Run counts the runs of its work: a run writes its outcome only if
	// no other run (a resume after an answer) or a cancellation came
	// after it.
	Run int `json:"run"`
	// Args are the call's arguments, and Params the call's params as the
	// client sent them, for a run resumed by any replica.
	Params json.RawMessage `json:"params,omitempty"`
	// Result is the tools/call result of a completed task, as JSON.
	Result json.RawMessage `json:"result,omitempty"`
	// Error is the protocol error of a failed task.
	Error *TaskError `json:"error,omitempty"`
	// InputRequests are the questions of a task in input_required, as
	// the wire carries them; State is the request state the answers
	// resume with.
	InputRequests json.RawMessage `json:"inputRequests,omitempty"`
	State         string          `json:"state,omitempty"`
	// Answers are the answers of tasks/update to some of the questions of
	// a task in input_required, by key, kept until the others are
	// answered too (InputRequests holds only those).
	Answers json.RawMessage `json:"answers,omitempty"`
}

// TaskError is the protocol error of a failed task.
type TaskError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

// TaskStore keeps tasks until they expire: in this process's memory, or
// shared by the replicas of a server.
type TaskStore interface {
	// Create stores t, unless its owner already has max tasks
	// (ErrTooManyTasks).
	Create(ctx context.Context, t *Task, max int) error
	// Get returns the task id of owner, nil when there is none (or it is
	// another caller's, or expired).
	Get(ctx context.Context, owner, id string) (*Task, error)
	// Update replaces the stored task t.ID with t, if the stored one is
	// not done and its Run is run; ok is false otherwise.
	Update(ctx context.Context, t *Task, run int) (ok bool, err error)
	// Shared is true when the replicas of the server share the store.
	Shared() bool
	Close() error
}

// ErrTooManyTasks is the refusal of a task over the cap of its caller.
var ErrTooManyTasks = errors.New("too many tasks")
