package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/tasks"
)

// The tasks extension of MCP (SEP-2663): a tool with a task block answers
// a client that declares the extension with a task at once, and runs its
// call in the background; the client polls tasks/get, answers questions
// with tasks/update, and stops the work with tasks/cancel. The SDK knows
// none of it: the methods are registered as custom ones, and taskMethods
// (a receiving middleware) serves them and turns the result of a tools/call
// that created a task into the extension's CreateTaskResult.

// tasksExtension names the extension in capabilities.
const tasksExtension = "io.modelcontextprotocol/tasks"

// taskRuns are the tasks whose work runs in this process, by id, with
// the function that stops it: a tasks/cancel on this replica stops it at
// once, one on another replica through the shared store (see watch).
type taskRuns struct {
	boot    string // starts the ids of the tasks this process created
	mem     *tasks.Memory
	mu      sync.Mutex
	stops   map[string]context.CancelFunc
	stopped bool // the server is closing: no more runs
	// sessions are the sessions (stdio) of the clients that created the
	// tasks whose status they are sent (notifications/tasks/status), by
	// task id, until the task ends. Stateless HTTP keeps none.
	sessions map[string]*mcp.ServerSession
}

// stop stops every run, for the server to close: their tasks fail.
func (r *taskRuns) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped = true
	for _, stop := range r.stops {
		stop()
	}
}

// closing reports whether the server is closing.
func (r *taskRuns) closing() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopped
}

func newTaskRuns() *taskRuns {
	return &taskRuns{boot: randomHex(4), mem: tasks.NewMemory(), stops: map[string]context.CancelFunc{}, sessions: map[string]*mcp.ServerSession{}}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// store is where the tasks of g are kept: its tasks block's store, else
// this process's memory.
func (l *Live) taskStore(g *generation) engine.TaskStore {
	if s := g.cfg.Settings.Tasks; s != nil {
		return s
	}
	return l.runs.mem
}

// declaresTasks reports whether a client declared the tasks extension.
func declaresTasks(caps *mcp.ClientCapabilities) bool {
	if caps == nil {
		return false
	}
	_, ok := caps.Extensions[tasksExtension]
	return ok
}

// missingTasks is the protocol error of a request that needs the tasks
// extension from a client that did not declare it.
func missingTasks(message string) error {
	data, _ := json.Marshal(mcp.MissingRequiredClientCapabilityData{RequiredCapabilities: &mcp.ClientCapabilities{Extensions: map[string]any{tasksExtension: map[string]any{}}}})
	return &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Data: data, Message: message}
}

// createdTask marks the result of a tools/call that created a task, for
// taskMethods to answer with the task.
type createdTask struct{ task *engine.Task }

// taskCall decides how a call of a tool with a task block runs: as a task
// for a client that declared the extension (handled), refused when the
// task is required and the client did not, else as any call. A tool that
// asks first asks in the call, and the task starts with the answer.
func (l *Live) taskCall(ctx context.Context, t *engine.Tool, req *mcp.CallToolRequest) (*mcp.CallToolResult, error, bool) {
	spec := t.Task()
	if !declaresTasks(req.ClientCapabilities()) {
		if spec.Required {
			return nil, missingTasks("the tool " + t.Name() + " runs only as a task, and the client did not declare the tasks extension (" + tasksExtension + "); nothing was done"), true
		}
		return nil, nil, false
	}
	if spec.AskFirst && t.Asks() && (req.Params == nil || req.Params.RequestState == "" || len(req.Params.InputResponses) == 0) {
		return nil, nil, false // asks in the call; the task starts with the answer
	}
	g := l.generation()
	store := l.taskStore(g)
	caller := callerOf(req.GetExtra())
	now := time.Now()
	params, err := json.Marshal(req.Params)
	if err != nil {
		return nil, err, true
	}
	task := &engine.Task{
		ID: l.runs.boot + "-" + randomHex(16), Owner: caller.ID, Tool: t.Name(), Status: engine.TaskWorking,
		Created: now, Updated: now, Expires: now.Add(spec.TTL), PollInterval: spec.PollInterval, Run: 1, Params: params,
	}
	max := g.cfg.Settings.TasksPerCaller
	if max <= 0 {
		max = engine.DefaultTasksPerCaller
	}
	switch err := store.Create(ctx, task, max); {
	case errors.Is(err, engine.ErrTooManyTasks):
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf("the caller %s has %d tasks already, as many as the server keeps for one caller (the tasks block's max_per_caller); wait for one to end and its ttl to pass, or cancel one, and call again", caller.ID, max)}, true
	case err != nil:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the task could not be created: " + err.Error()}, true
	}
	if !l.opts.HTTP && req.Session != nil {
		l.runs.mu.Lock()
		l.runs.sessions[task.ID] = req.Session
		l.runs.mu.Unlock()
	}
	l.startRun(ctx, task, req)
	return &mcp.CallToolResult{StructuredContent: &createdTask{task}}, nil, true
}

// startRun runs the work of task in the background, with req's params and
// caller, and records its outcome unless it was cancelled or resumed
// meanwhile.
func (l *Live) startRun(ctx context.Context, task *engine.Task, req *mcp.CallToolRequest) {
	run := task.Run
	ctx, stop := context.WithDeadline(context.WithoutCancel(ctx), task.Expires)
	l.runs.mu.Lock()
	if l.runs.stopped {
		stop() // closing: the run fails at once
	}
	l.runs.stops[task.ID] = stop
	l.runs.mu.Unlock()
	// The call's request is over by the time the task runs: logs and
	// progress have no stream to go on.
	bg := &mcp.CallToolRequest{Params: req.Params, Extra: req.Extra}
	l.runs.mu.Lock()
	if ss := l.runs.sessions[task.ID]; ss != nil {
		// Its questions are asked as its client declared it can be.
		ctx = context.WithValue(ctx, taskSessionKey{}, ss)
	}
	l.runs.mu.Unlock()
	go func() {
		defer func() {
			stop()
			l.runs.mu.Lock()
			delete(l.runs.stops, task.ID)
			l.runs.mu.Unlock()
		}()
		g := l.generation()
		store := l.taskStore(g)
		if store.Shared() {
			go l.watch(ctx, stop, store, task, run)
		}
		t, ok := g.cfg.Tool(task.Tool)
		var out *mcp.CallToolResult
		var err error
		g.mu.RLock()
		switch {
		case g.closed:
			err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the configuration was reloaded as the task started; call the tool again"}
		case !ok:
			err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the tool " + task.Tool + " was removed by a configuration reload"}
		default:
			out, err = l.call(ctx, g, t, bg)
		}
		// Before the generation may close, with its store.
		done := l.finish(store, task, run, t, out, err)
		g.mu.RUnlock()
		// Not under the generation's lock: a client that reads nothing
		// more may hold the notification up, but neither a reload nor
		// the server's close.
		if done != nil {
			l.notifyStatus(done)
		}
	}()
}

// watch stops a run whose task was cancelled, or resumed, on another
// replica: it reads the shared store every poll interval.
func (l *Live) watch(ctx context.Context, stop context.CancelFunc, store engine.TaskStore, task *engine.Task, run int) {
	every := max(task.PollInterval, 500*time.Millisecond)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			cur, err := store.Get(ctx, task.Owner, task.ID)
			if err == nil && (cur == nil || cur.Run != run || engine.TaskTerminal(cur.Status)) {
				stop()
				return
			}
		}
	}
}

// finish records the outcome of a run: completed with the tool's result
// (a tool error too), input_required with its question, or failed with a
// protocol error (a result larger than the task keeps is one). It returns
// the task as kept, to tell its client of; nil when it was not kept.
func (l *Live) finish(store engine.TaskStore, task *engine.Task, run int, t *engine.Tool, out *mcp.CallToolResult, err error) *engine.Task {
	done := *task
	done.Updated = time.Now()
	switch {
	case l.runs.closing():
		done.Status = engine.TaskFailed
		done.Error = &engine.TaskError{Code: jsonrpc.CodeInternalError, Message: "the server that ran the task stopped before it was done; call the tool again"}
	case err != nil:
		done.Status = engine.TaskFailed
		done.Error = &engine.TaskError{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			done.Error = &engine.TaskError{Code: je.Code, Message: je.Message}
		}
	case out.InputRequests != nil:
		b, merr := json.Marshal(out.InputRequests)
		if merr != nil {
			done.Status, done.Error = engine.TaskFailed, &engine.TaskError{Code: jsonrpc.CodeInternalError, Message: merr.Error()}
			break
		}
		done.Status, done.InputRequests, done.State = engine.TaskInputRequired, b, out.RequestState
		done.Message = "waiting for the answer to its question (tasks/update)"
	default:
		b, merr := json.Marshal(out)
		switch {
		case merr != nil:
			done.Status, done.Error = engine.TaskFailed, &engine.TaskError{Code: jsonrpc.CodeInternalError, Message: merr.Error()}
		case t != nil && len(b) > t.Task().MaxResult:
			done.Status = engine.TaskFailed
			done.Error = &engine.TaskError{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("the result of the tool %s is %d bytes of JSON, more than the %d its task keeps (the task block's max_result); nothing of it was kept", task.Tool, len(b), t.Task().MaxResult)}
		default:
			done.Status, done.Result = engine.TaskCompleted, b
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	switch ok, err := store.Update(ctx, &done, run); {
	case err != nil:
		l.logger.Error("a task's outcome could not be kept", "task", task.ID, "tool", task.Tool, "error", err)
	case ok:
		return &done
	}
	return nil
}

// notifyStatus sends task's status to the session of the client that
// created it, if it has one (stdio), with what tasks/get would answer;
// the session is forgotten once the task ends. The notification is
// optional (SEP-2663): one that cannot be sent is only logged.
func (l *Live) notifyStatus(task *engine.Task) {
	l.runs.mu.Lock()
	ss := l.runs.sessions[task.ID]
	if engine.TaskTerminal(task.Status) {
		delete(l.runs.sessions, task.ID)
	}
	l.runs.mu.Unlock()
	if ss == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	params := &taskStatus{taskWire: wireTask(task), Result: task.Result, Error: task.Error, InputRequests: task.InputRequests}
	if err := ss.NotifyExtension(ctx, "notifications/tasks/status", params); err != nil {
		l.logger.Debug("a task's status could not be sent", "task", task.ID, "error", err)
	}
}

// The wire forms of the extension.
type (
	taskWire struct {
		TaskID         string `json:"taskId"`
		Status         string `json:"status"`
		StatusMessage  string `json:"statusMessage,omitempty"`
		CreatedAt      string `json:"createdAt"`
		LastUpdatedAt  string `json:"lastUpdatedAt"`
		TTLMs          int64  `json:"ttlMs"`
		PollIntervalMs int64  `json:"pollIntervalMs,omitempty"`
	}
	// createTaskResult answers a tools/call that created a task.
	createTaskResult struct {
		mcp.ResultBase
		ResultType string `json:"resultType"`
		taskWire
	}
	// detailedTask answers tasks/get.
	detailedTask struct {
		mcp.ResultBase
		ResultType string `json:"resultType"`
		taskWire
		Result        json.RawMessage   `json:"result,omitempty"`
		Error         *engine.TaskError `json:"error,omitempty"`
		InputRequests json.RawMessage   `json:"inputRequests,omitempty"`
	}
	// taskStatus is the params of notifications/tasks/status: the task
	// as tasks/get shows it.
	taskStatus struct {
		taskWire
		Result        json.RawMessage   `json:"result,omitempty"`
		Error         *engine.TaskError `json:"error,omitempty"`
		InputRequests json.RawMessage   `json:"inputRequests,omitempty"`
	}
	// taskAck answers tasks/update and tasks/cancel.
	taskAck struct {
		mcp.ResultBase
		ResultType string `json:"resultType"`
	}
	// taskParams are the params of tasks/get, tasks/update and
	// tasks/cancel.
	taskParams struct {
		mcp.ParamsBase
		TaskID         string                     `json:"taskId"`
		InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
	}
)

func wireTask(t *engine.Task) taskWire {
	return taskWire{
		TaskID: t.ID, Status: t.Status, StatusMessage: t.Message,
		CreatedAt: t.Created.UTC().Format(time.RFC3339Nano), LastUpdatedAt: t.Updated.UTC().Format(time.RFC3339Nano),
		TTLMs: t.Expires.Sub(t.Created).Milliseconds(), PollIntervalMs: t.PollInterval.Milliseconds(),
	}
}

// taskMethodNames are the methods of the extension this server serves:
// tasks/result and tasks/list are gone from it (the result is on
// tasks/get), and are unknown methods.
var taskMethodNames = []string{"tasks/get", "tasks/update", "tasks/cancel"}

// addTaskMethods registers the extension's methods with the SDK, so that it
// decodes their params; taskMethods serves them.
func addTaskMethods(srv *mcp.Server) {
	for _, m := range taskMethodNames {
		_ = mcp.AddReceivingCustomMethod(srv, m, func(context.Context, *mcp.ServerSession, *taskParams) (*taskAck, error) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: m + " was not served"}
		})
	}
}

// taskMethods is the receiving middleware of the extension.
func (l *Live) taskMethods(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/call":
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.CallToolResult); ok && err == nil {
				if c, ok := r.StructuredContent.(*createdTask); ok {
					return &createTaskResult{ResultType: "task", taskWire: wireTask(c.task)}, nil
				}
			}
			return res, err
		case "tasks/get", "tasks/update", "tasks/cancel":
			r, ok := req.(*mcp.ServerRequest[*taskParams])
			if !ok || r.Params == nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: method + ": no params"}
			}
			return l.serveTask(ctx, method, r)
		}
		return next(ctx, method, req)
	}
}

// serveTask answers tasks/get, tasks/update and tasks/cancel.
func (l *Live) serveTask(ctx context.Context, method string, req *mcp.ServerRequest[*taskParams]) (mcp.Result, error) {
	if !declaresTasks(req.ClientCapabilities()) {
		return nil, missingTasks(method + " is a method of the tasks extension (" + tasksExtension + "), which the client did not declare")
	}
	id := req.Params.TaskID
	if extra := req.GetExtra(); extra != nil && extra.Header != nil {
		if name := extra.Header.Get("Mcp-Name"); name != "" && strings.TrimSpace(name) != id {
			return nil, &jsonrpc.Error{Code: mcp.CodeHeaderMismatch, Message: "the Mcp-Name header does not match params.taskId"}
		}
	}
	if id == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: method + " needs params.taskId"}
	}
	g := l.generation()
	store := l.taskStore(g)
	owner := callerOf(req.GetExtra()).ID
	task, err := store.Get(ctx, owner, id)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the task could not be read: " + err.Error()}
	}
	if task == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: l.unknownTask(store, id)}
	}
	ack := &taskAck{ResultType: "complete"}
	switch method {
	case "tasks/get":
		return &detailedTask{ResultType: "complete", taskWire: wireTask(task), Result: task.Result, Error: task.Error, InputRequests: task.InputRequests}, nil
	case "tasks/cancel":
		if engine.TaskTerminal(task.Status) {
			return ack, nil
		}
		task.Status, task.Message, task.Updated = engine.TaskCancelled, "cancelled by the client", time.Now()
		task.InputRequests, task.State = nil, ""
		ok, err := store.Update(ctx, task, task.Run)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the task could not be cancelled: " + err.Error()}
		}
		if ok {
			l.notifyStatus(task)
		}
		l.runs.mu.Lock()
		stop := l.runs.stops[id]
		l.runs.mu.Unlock()
		if stop != nil {
			stop()
		}
		return ack, nil
	default: // tasks/update
		return l.answerTask(ctx, store, task, req)
	}
}

// unknownTask says why there is no task id for its caller.
func (l *Live) unknownTask(store engine.TaskStore, id string) string {
	boot, _, ours := strings.Cut(id, "-")
	if !store.Shared() && ours && boot != l.runs.boot && len(boot) == len(l.runs.boot) {
		return "no task " + id + " here: it was created by an earlier run of this server (or by another replica), and tasks are kept in the memory of the process that runs them, so its work and its result are lost; call the tool again (a tasks block with store = \"redis\" keeps tasks across restarts and replicas)"
	}
	return "no task " + id + ": it never existed, is another caller's, or was forgotten after its ttl"
}

// answerTask resumes a task in input_required with the answers of
// tasks/update to its questions; answers to other keys are ignored. While
// some of its questions are not answered, the task keeps the answers and
// waits, in input_required, for the others. When another update of the
// task came first (an answer to another of its questions, on this replica
// or another), the task is read again and the answers applied to it.
func (l *Live) answerTask(ctx context.Context, store engine.TaskStore, task *engine.Task, req *mcp.ServerRequest[*taskParams]) (mcp.Result, error) {
	ack := &taskAck{ResultType: "complete"}
	for attempt := 1; ; attempt++ {
		if task == nil || task.Status != engine.TaskInputRequired {
			return ack, nil
		}
		kept, err := l.answerOnce(ctx, store, task, req)
		if err != nil {
			return nil, err
		}
		if kept || attempt == maxAnswerAttempts {
			return ack, nil
		}
		if task, err = store.Get(ctx, task.Owner, task.ID); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the task could not be read again: " + err.Error()}
		}
	}
}

// maxAnswerAttempts bounds the times tasks/update reads a task again
// because another update came first.
const maxAnswerAttempts = 5

// answerOnce applies the answers of req to task as read; kept is false
// when the task changed meanwhile (the store refused the update).
func (l *Live) answerOnce(ctx context.Context, store engine.TaskStore, task *engine.Task, req *mcp.ServerRequest[*taskParams]) (kept bool, _ error) {
	var pending map[string]json.RawMessage
	if err := json.Unmarshal(task.InputRequests, &pending); err != nil {
		return false, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the task's questions could not be read: " + err.Error()}
	}
	answered := map[string]json.RawMessage{}
	if len(task.Answers) > 0 {
		if err := json.Unmarshal(task.Answers, &answered); err != nil {
			return false, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the task's answers so far could not be read: " + err.Error()}
		}
	}
	fresh := map[string]json.RawMessage{}
	for k, v := range req.Params.InputResponses {
		if _, ok := pending[k]; ok {
			fresh[k] = v
		}
	}
	if len(fresh) == 0 {
		return true, nil
	}
	// Each answer is checked as it comes: one kept must not break the
	// task's resumption later.
	b, _ := json.Marshal(fresh)
	if err := json.Unmarshal(b, &mcp.InputResponseMap{}); err != nil {
		return false, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the answer is not one to the task's question: " + err.Error()}
	}
	for k, v := range fresh {
		answered[k] = v
		delete(pending, k)
	}
	b, _ = json.Marshal(answered)
	run := task.Run
	task.Run++
	task.Updated = time.Now()
	if len(pending) > 0 {
		// Partly answered: the answers wait in the task for the others.
		task.InputRequests, _ = json.Marshal(pending)
		task.Answers = b
		ok, err := store.Update(ctx, task, run)
		if err != nil {
			return false, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the task's answers could not be kept: " + err.Error()}
		}
		if ok {
			l.notifyStatus(task)
		}
		return ok, nil
	}
	var responses mcp.InputResponseMap
	if err := json.Unmarshal(b, &responses); err != nil {
		return false, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the answer is not one to the task's question: " + err.Error()}
	}
	var params mcp.CallToolParamsRaw
	if err := json.Unmarshal(task.Params, &params); err != nil {
		return false, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the task's call could not be read: " + err.Error()}
	}
	params.InputResponses, params.RequestState = responses, task.State
	task.Status, task.Message = engine.TaskWorking, ""
	task.InputRequests, task.State, task.Answers = nil, "", nil
	ok, err := store.Update(ctx, task, run)
	if err != nil {
		return false, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the task could not be resumed: " + err.Error()}
	}
	if ok {
		l.notifyStatus(task)
		l.startRun(ctx, task, &mcp.CallToolRequest{Params: &params, Extra: req.GetExtra()})
	}
	return ok, nil
}
