package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	execaction "github.com/mcpdecl/mcpdecl/adapters/exec"
	"github.com/mcpdecl/mcpdecl/engine/server"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
	"github.com/mcpdecl/mcpdecl/internal/testservice"
)

// roundTools ask for an address the call lacks and for consent: send
// asks both in one round (its message reads no argument), label asks the
// consent after the address (its message reads it), and parcel asks both
// in a task. Each appends what it does to the file %[1]q.
const roundTools = `
tool "send" {
  description = "Sends a parcel."
  arg "address" {
    type = string
    ask  = "Where to?"
  }
  confirm {
    message = "Send the parcel?"
  }
  exec {
    command = ["sh", "-c", "echo \"sent to $TO\" >> \"$LOG\""]
    env     = { TO = expr("args.address"), LOG = %[1]q }
  }
  text = expr("'sent to ' + args.address")
}

tool "label" {
  description = "Prints a label."
  arg "address" {
    type = string
    ask  = "Where to?"
  }
  confirm {
    message = expr("'Print a label for ' + args.address + '?'")
  }
  text = expr("'label for ' + args.address")
}

tool "parcel" {
  description = "Sends a parcel, as a task."
  arg "address" {
    type = string
    ask  = "Where to?"
  }
  confirm {
    message = "Send the parcel?"
    field "note" {
      type     = string
      optional = true
    }
  }
  text = expr("'parcel to ' + args.address")
  task {
    confirm = "in_task"
  }
}
`

// keysOf are the keys of an inputRequests map, sorted.
func keysOf(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("inputRequests %s: %v", raw, err)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func stateOf(res map[string]json.RawMessage) string {
	var s string
	_ = json.Unmarshal(res["requestState"], &s)
	return s
}

// TestOneRoundTwoQuestions: over stateless HTTP on 2026-07-28, a call
// that lacks an argument asked for and needs consent whose message reads
// no argument gets both questions in one input_required result; an answer
// to one of them is kept in the next request state and only the other is
// asked again; with both, the action runs once. A decline of the consent
// ends the call at once, with nothing run. A consent whose message reads
// the argument is asked in a round of its own, after it.
func TestOneRoundTwoQuestions(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	ts := serveTasks(t, fmt.Sprintf(roundTools, log))
	c := taskClient{t, ts.URL, "", false}
	call := func(tool string, state string, answers map[string]any) map[string]json.RawMessage {
		t.Helper()
		params := map[string]any{"name": tool, "arguments": map[string]any{}}
		if state != "" {
			params["requestState"], params["inputResponses"] = state, answers
		}
		res, e := c.rpc("tools/call", tool, params)
		if e != nil {
			t.Fatalf("%s: %+v", tool, e)
		}
		return res
	}
	accept := func(content map[string]any) map[string]any {
		return map[string]any{"action": "accept", "content": content}
	}

	first := call("send", "", nil)
	if got := keysOf(t, first["inputRequests"]); !slices.Equal(got, []string{"arguments", "confirm"}) {
		t.Fatalf("the first round asks %v, want the argument and the consent: %v", got, first)
	}
	// The consent first: only the argument is asked again.
	second := call("send", stateOf(first), map[string]any{"confirm": accept(map[string]any{})})
	if got := keysOf(t, second["inputRequests"]); !slices.Equal(got, []string{"arguments"}) {
		t.Fatalf("after the consent alone, asked %v, want the argument alone: %v", got, second)
	}
	if _, err := os.Stat(log); err == nil {
		t.Fatal("the action ran before the argument was answered")
	}
	done := call("send", stateOf(second), map[string]any{"arguments": accept(map[string]any{"address": "10 Downing St"})})
	if !strings.Contains(string(done["content"]), "sent to 10 Downing St") || string(done["isError"]) == "true" {
		t.Fatalf("after both answers: %v", done)
	}
	// The argument first: the consent is asked again.
	again := call("send", stateOf(call("send", "", nil)), map[string]any{"arguments": accept(map[string]any{"address": "Baker St"})})
	if got := keysOf(t, again["inputRequests"]); !slices.Equal(got, []string{"confirm"}) {
		t.Fatalf("after the argument alone, asked %v, want the consent alone: %v", got, again)
	}
	declined := call("send", stateOf(call("send", "", nil)), map[string]any{"confirm": map[string]any{"action": "decline"}})
	if string(declined["isError"]) != "true" || !strings.Contains(string(declined["content"]), "declined") {
		t.Errorf("a decline with the argument unanswered: %v", declined)
	}
	if b, _ := os.ReadFile(log); string(b) != "sent to 10 Downing St\n" {
		t.Errorf("ran: %q, want once, after both answers", b)
	}

	label := call("label", "", nil)
	if got := keysOf(t, label["inputRequests"]); !slices.Equal(got, []string{"arguments"}) {
		t.Fatalf("a consent that reads the argument was asked with it: %v", got)
	}
	label = call("label", stateOf(label), map[string]any{"arguments": accept(map[string]any{"address": "Elm St"})})
	if !strings.Contains(string(label["inputRequests"]), "Print a label for Elm St?") {
		t.Fatalf("the second round: %v", label)
	}
}

// TestOneRoundTwoQuestionsStdio: over stdio on 2025-11-25 the two
// questions of a round are two elicitation/create requests, and the
// action runs with both answers.
func TestOneRoundTwoQuestionsStdio(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	live := newLive(t, loadTools(t, fmt.Sprintf(roundTools, log), execaction.New()), server.Options{})
	var mu sync.Mutex
	var asked []string
	cs := connectLive(t, live, "2025-11-25", &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		asked = append(asked, req.Params.Message)
		mu.Unlock()
		if req.Params.Message == "Where to?" {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"address": "Main St"}}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
	}})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "send", Arguments: map[string]any{}})
	if err != nil || res.IsError || firstText(res) != "sent to Main St" {
		t.Fatalf("%v %+v", err, res)
	}
	slices.Sort(asked)
	if !slices.Equal(asked, []string{"Send the parcel?", "Where to?"}) {
		t.Errorf("asked %q", asked)
	}
}

// TestTaskPartlyAnswered: a task that asks two questions at once waits in
// input_required until both are answered; tasks/update with one answer is
// acknowledged, and tasks/get then shows only the other question.
func TestTaskPartlyAnswered(t *testing.T) {
	ts := serveTasks(t, fmt.Sprintf(roundTools, filepath.Join(t.TempDir(), "log")))
	c := taskClient{t, ts.URL, "", true}
	id, _, e := c.call("parcel", map[string]any{})
	if e != nil || id == "" {
		t.Fatalf("no task: %+v", e)
	}
	res := c.await(id, "input_required")
	if got := keysOf(t, res["inputRequests"]); !slices.Equal(got, []string{"arguments", "confirm"}) {
		t.Fatalf("asked %v: %v", got, res)
	}
	update := func(answers map[string]any) {
		t.Helper()
		if ack, e := c.rpc("tasks/update", id, map[string]any{"taskId": id, "inputResponses": answers}); e != nil || string(ack["resultType"]) != `"complete"` {
			t.Fatalf("tasks/update: %v %+v", ack, e)
		}
	}
	update(map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"note": "fragile"}}})
	res, _ = c.task(id)
	if status(res) != "input_required" {
		t.Fatalf("partly answered: %v", res)
	}
	if got := keysOf(t, res["inputRequests"]); !slices.Equal(got, []string{"arguments"}) {
		t.Fatalf("after one answer, asks %v: %v", got, res)
	}
	// An answer to the question already answered changes nothing.
	update(map[string]any{"confirm": map[string]any{"action": "decline"}})
	update(map[string]any{"arguments": map[string]any{"action": "accept", "content": map[string]any{"address": "Pier 39"}}})
	done := c.await(id, "completed", "failed")
	if !strings.Contains(string(done["result"]), "parcel to Pier 39") {
		t.Errorf("after both answers: %v", done)
	}

	// Both answers at once, each in its own tasks/update: neither is lost.
	for i := range 10 {
		id, _, e := c.call("parcel", map[string]any{})
		if e != nil || id == "" {
			t.Fatalf("no task: %+v", e)
		}
		c.await(id, "input_required")
		var wg sync.WaitGroup
		for _, answer := range []map[string]any{
			{"confirm": map[string]any{"action": "accept", "content": map[string]any{}}},
			{"arguments": map[string]any{"action": "accept", "content": map[string]any{"address": fmt.Sprint("Quay ", i)}}},
		} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _ = c.rpc("tasks/update", id, map[string]any{"taskId": id, "inputResponses": answer})
			}()
		}
		wg.Wait()
		if done := c.await(id, "completed", "failed"); !strings.Contains(string(done["result"]), fmt.Sprint("parcel to Quay ", i)) {
			t.Fatalf("two answers at once: %v", done)
		}
	}
}

// promptTools is a prompt that asks before it gives its message.
const promptTools = `
prompt "brief" {
  description = "A brief on a topic, in the tone the person picks."
  arg "topic" {}
  confirm {
    key     = "tone"
    message = expr("'Which tone for the brief on ' + args.topic + '?'")
    field "tone" {
      type = string
      enum = ["dry", "warm"]
    }
  }
  message "user" {
    text = expr("'Write a ' + confirm.tone + ' brief on ' + args.topic + '.'")
  }
}
`

// TestPromptAsks: prompts/get of a prompt with a confirm block asks the
// person first, as a tool does: over stateless HTTP on 2026-07-28 an
// input_required result with the signed request state, then the messages,
// which read the answer; a decline, an answer outside the form, a state
// answered already or made for other arguments give no messages; a client
// that did not declare elicitation is told so (-32021). Over stdio on
// 2025-11-25 the question is elicitation/create on the session.
func TestPromptAsks(t *testing.T) {
	cfg := loadTools(t, promptTools)
	_, ts := serveOverHTTP(t, cfg, server.Options{})
	c := taskClient{t, ts.URL, "", false}
	get := func(topic, state string, answer map[string]any) (map[string]json.RawMessage, *rpcError) {
		t.Helper()
		params := map[string]any{"name": "brief", "arguments": map[string]any{"topic": topic}}
		if state != "" {
			params["requestState"], params["inputResponses"] = state, map[string]any{"tone": answer}
		}
		return c.rpc("prompts/get", "brief", params)
	}
	asked, e := get("tea", "", nil)
	if e != nil || string(asked["resultType"]) != `"input_required"` || !strings.Contains(string(asked["inputRequests"]), "Which tone for the brief on tea?") {
		t.Fatalf("the first get: %v %+v", asked, e)
	}
	res, e := get("tea", stateOf(asked), map[string]any{"action": "accept", "content": map[string]any{"tone": "warm"}})
	if e != nil || !strings.Contains(string(res["messages"]), "Write a warm brief on tea.") {
		t.Fatalf("answered: %v %+v", res, e)
	}
	if _, e := get("tea", stateOf(asked), map[string]any{"action": "accept", "content": map[string]any{"tone": "warm"}}); e == nil || e.Code != -32602 || !strings.Contains(e.Message, "answered already") {
		t.Errorf("a state answered twice: %+v", e)
	}
	for _, bad := range []struct {
		topic  string
		answer map[string]any
		want   string
	}{
		{"tea", map[string]any{"action": "decline"}, "declined"},
		{"tea", map[string]any{"action": "accept", "content": map[string]any{"tone": "shouty"}}, "does not fit its form"},
		{"coffee", map[string]any{"action": "accept", "content": map[string]any{"tone": "dry"}}, "other arguments"},
	} {
		first, _ := get("tea", "", nil)
		if res, e := get(bad.topic, stateOf(first), bad.answer); e == nil || !strings.Contains(e.Message, bad.want) {
			t.Errorf("%v: want an error saying %q, got %v %+v", bad.answer, bad.want, res, e)
		}
	}

	cs, err := connectSession(t, ts.URL, "2026-07-28", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "brief", Arguments: map[string]string{"topic": "tea"}})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != mcp.CodeMissingRequiredClientCapabilities {
		t.Errorf("a client without elicitation: %v", err)
	}

	t.Run("stdio", func(t *testing.T) {
		stdio := newLive(t, cfg, server.Options{})
		ans := &answering{}
		ans.set(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"tone": "dry"}})
		cs := connectLive(t, stdio, "2025-11-25", &mcp.ClientOptions{ElicitationHandler: ans.handle})
		res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "brief", Arguments: map[string]string{"topic": "rain"}})
		if err != nil || len(res.Messages) != 1 || res.Messages[0].Content.(*mcp.TextContent).Text != "Write a dry brief on rain." {
			t.Fatalf("%v %+v", err, res)
		}
		if len(ans.asked) != 1 || ans.asked[0].Message != "Which tone for the brief on rain?" {
			t.Errorf("asked %+v", ans.asked)
		}
	})
}

// TestTaskPartlyAnsweredAcrossReplicas: with the tasks in Redis and the
// request state keys shared, a task's questions are answered one on each
// replica: the answer kept by one is read by the other, which resumes the
// task with both.
func TestTaskPartlyAnsweredAcrossReplicas(t *testing.T) {
	src := fmt.Sprintf(roundTools, filepath.Join(t.TempDir(), "log")) + `
server {
  request_state_keys = ["` + strings.Repeat("k", 32) + `"]
}

tasks {
  store     = "redis"
  redis_url = "redis://` + testservice.Redis(t) + `/0"
  prefix    = "mcpdecl-test-rounds-` + strconv.Itoa(os.Getpid()) + `"
}
`
	one := taskClient{t, serveTasks(t, src).URL, "", true}
	two := taskClient{t, serveTasks(t, src).URL, "", true}
	id, _, e := one.call("parcel", map[string]any{})
	if e != nil || id == "" {
		t.Fatalf("no task: %+v", e)
	}
	one.await(id, "input_required")
	if _, e := two.rpc("tasks/update", id, map[string]any{"taskId": id, "inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{}}}}); e != nil {
		t.Fatalf("tasks/update on the second replica: %+v", e)
	}
	res, _ := one.task(id)
	if got := keysOf(t, res["inputRequests"]); status(res) != "input_required" || !slices.Equal(got, []string{"arguments"}) {
		t.Fatalf("on the first replica after one answer on the second: %v", res)
	}
	if _, e := one.rpc("tasks/update", id, map[string]any{"taskId": id, "inputResponses": map[string]any{"arguments": map[string]any{"action": "accept", "content": map[string]any{"address": "Dock 7"}}}}); e != nil {
		t.Fatalf("tasks/update on the first replica: %+v", e)
	}
	if done := two.await(id, "completed", "failed"); !strings.Contains(string(done["result"]), "parcel to Dock 7") {
		t.Errorf("after both answers: %v", done)
	}
}

// rawSession is a client over an in-memory stdio transport that writes and
// reads JSON-RPC messages itself: the go-sdk client knows no extension's
// notifications.
type rawSession struct {
	t    *testing.T
	conn mcp.Connection
	ctx  context.Context
	// held are the messages read that no next has taken yet: a
	// notification may come before the response that a test waits for
	// first (a task's status before the answer that created it).
	held []map[string]json.RawMessage
}

func (r *rawSession) send(id int, method string, params map[string]any) {
	r.t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if id == 0 {
		b, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	}
	msg, err := jsonrpc.DecodeMessage(b)
	if err != nil {
		r.t.Fatal(err)
	}
	if err := r.conn.Write(r.ctx, msg); err != nil {
		r.t.Fatal(err)
	}
}

// next returns the first message, held or read, that satisfies ok, as
// JSON; at most n more are read.
func (r *rawSession) next(n int, what string, ok func(map[string]json.RawMessage) bool) map[string]json.RawMessage {
	r.t.Helper()
	for i, m := range r.held {
		if ok(m) {
			r.held = slices.Delete(r.held, i, i+1)
			return m
		}
	}
	for range n {
		msg, err := r.conn.Read(r.ctx)
		if err != nil {
			r.t.Fatalf("waiting for %s: %v", what, err)
		}
		b, _ := jsonrpc.EncodeMessage(msg)
		var m map[string]json.RawMessage
		_ = json.Unmarshal(b, &m)
		if ok(m) {
			return m
		}
		r.held = append(r.held, m)
	}
	r.t.Fatalf("no %s in %d messages", what, n)
	return nil
}

// TestTaskStatusNotifications: over stdio, the client that created a task
// is sent notifications/tasks/status when its status changes, with what
// tasks/get would answer: completed with the result, cancelled, or
// input_required with the questions of a task that asks in the task (as
// the client declared it can be asked when it initialized).
func TestTaskStatusNotifications(t *testing.T) {
	src := fmt.Sprintf(roundTools, filepath.Join(t.TempDir(), "log")) + `
tool "wait" {
  description = "Waits for the seconds asked, as a task."
  arg "seconds" {
    type = integer
  }
  exec {
    command = ["sleep", expr("string(args.seconds)")]
  }
  text = expr("'waited ' + string(args.seconds) + ' s'")
  task {}
}
`
	live := newLive(t, loadTools(t, src, execaction.New()), server.Options{})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := live.Server().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	// A bound on a hang only: each step takes milliseconds.
	ctx, cancel := context.WithTimeout(context.Background(), enginetest.Patience)
	t.Cleanup(cancel)
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := &rawSession{t: t, conn: conn, ctx: ctx}
	response := func(id string) func(map[string]json.RawMessage) bool {
		return func(m map[string]json.RawMessage) bool { return string(m["id"]) == id }
	}
	status := func(want string) func(map[string]json.RawMessage) bool {
		return func(m map[string]json.RawMessage) bool {
			return string(m["method"]) == `"notifications/tasks/status"` && strings.Contains(string(m["params"]), `"status":"`+want+`"`)
		}
	}
	r.send(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "clientInfo": map[string]any{"name": "raw", "version": "0"},
		"capabilities": map[string]any{"elicitation": map[string]any{}, "extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}})
	r.next(10, "the initialize response", response("1"))
	r.send(0, "notifications/initialized", map[string]any{})
	start := func(id, seconds int) string {
		t.Helper()
		r.send(id, "tools/call", map[string]any{"name": "wait", "arguments": map[string]any{"seconds": seconds}})
		created := r.next(10, "the task", response(strconv.Itoa(id)))
		var res struct{ TaskID string }
		if err := json.Unmarshal(created["result"], &res); err != nil || res.TaskID == "" {
			t.Fatalf("no task: %s", created["result"])
		}
		return res.TaskID
	}
	id := start(2, 0)
	done := r.next(10, "completed", status("completed"))
	if !strings.Contains(string(done["params"]), id) || !strings.Contains(string(done["params"]), "waited 0 s") {
		t.Errorf("completed: %s", done["params"])
	}
	id = start(3, 600)
	r.send(4, "tasks/cancel", map[string]any{"taskId": id})
	if cancelled := r.next(10, "cancelled", status("cancelled")); !strings.Contains(string(cancelled["params"]), id) {
		t.Errorf("cancelled: %s", cancelled["params"])
	}

	// A task that asks in the task asks the client as it declared it can
	// be asked when it initialized.
	r.send(5, "tools/call", map[string]any{"name": "parcel", "arguments": map[string]any{}})
	r.next(10, "the task", response("5"))
	asked := r.next(10, "input_required", status("input_required"))
	var params struct{ TaskID string }
	_ = json.Unmarshal(asked["params"], &params)
	if !strings.Contains(string(asked["params"]), "Where to?") || !strings.Contains(string(asked["params"]), "Send the parcel?") {
		t.Fatalf("input_required: %s", asked["params"])
	}
	r.send(6, "tasks/update", map[string]any{"taskId": params.TaskID, "inputResponses": map[string]any{
		"confirm":   map[string]any{"action": "accept", "content": map[string]any{}},
		"arguments": map[string]any{"action": "accept", "content": map[string]any{"address": "Canal St"}},
	}})
	if done := r.next(10, "completed", status("completed")); !strings.Contains(string(done["params"]), "parcel to Canal St") {
		t.Errorf("after the answers: %s", done["params"])
	}

	// A go-sdk client, which knows no such notification, ignores it and
	// goes on.
	caps := &mcp.ClientCapabilities{Extensions: map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}
	cs := connectLive(t, live, "2025-11-25", &mcp.ClientOptions{Capabilities: caps})
	for i := range 3 {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{"seconds": 0}})
		if err != nil || res.IsError {
			t.Fatalf("call %d after the notifications: %v %+v", i, err, res)
		}
		if i < 2 {
			// The task's notification comes on the session meanwhile.
			time.Sleep(50 * time.Millisecond)
		}
	}
}
