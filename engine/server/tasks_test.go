package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	execaction "github.com/mcpdecl/mcpdecl/adapters/exec"
	"github.com/mcpdecl/mcpdecl/engine/server"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
	"github.com/mcpdecl/mcpdecl/internal/testservice"
)

// taskTools are tools that run as tasks: work writes its process id to
// %[1]s/pid, waits for %[1]s/go, then writes %[1]s/done.
const taskTools = `
auth {
  token "ann" {
    value = "ann-token-0123456789abcdef"
  }
  token "bob" {
    value = "bob-token-0123456789abcdef"
  }
}

tool "quick" {
  description = "Says hello, as a task."
  arg "name" {
    type = string
  }
  text = expr("'Hello, ' + args.name")
  task {}
}

tool "work" {
  description = "Waits for a file, as a task."
  exec {
    command = ["sh", "-c", "echo $$ > %[1]s/pid.tmp; mv %[1]s/pid.tmp %[1]s/pid; while [ ! -f %[1]s/go ]; do sleep 0.02; done; echo done > %[1]s/done"]
  }
  task {
    poll_interval = "100ms"
  }
}

tool "big" {
  description = "Answers more than its task keeps."
  text        = "twenty-five bytes or more of text"
  task {
    max_result = 20
  }
}

tool "must" {
  description = "Runs only as a task."
  text        = "ran"
  task {
    support = "required"
  }
}

tool "ask" {
  description = "Asks in the task, then says what was answered."
  confirm {
    message = "Go on?"
    field "why" {
      type = string
    }
  }
  text = expr("'went on: ' + confirm.why")
  task {
    confirm = "in_task"
  }
}
`

// rpcError is a JSON-RPC error.
type rpcError struct {
	Code    int64
	Message string
	Data    json.RawMessage
}

// taskClient posts JSON-RPC requests as a client of 2026-07-28 with a
// token, declaring the tasks extension or not.
type taskClient struct {
	t     *testing.T
	url   string
	token string
	ext   bool
}

func (c taskClient) rpc(method, name string, params map[string]any) (map[string]json.RawMessage, *rpcError) {
	c.t.Helper()
	caps := map[string]any{"elicitation": map[string]any{}}
	if c.ext {
		caps["extensions"] = map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": caps,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "test", "version": "0"},
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, c.url+server.Path, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var msg struct {
		Result map[string]json.RawMessage
		Error  *rpcError
	}
	if err := json.Unmarshal(raw, &msg); err != nil || msg.Result == nil && msg.Error == nil {
		c.t.Fatalf("%s: %d %s", method, resp.StatusCode, raw)
	}
	return msg.Result, msg.Error
}

// call calls tool with args, and returns the task's id ("" when the
// answer is not a task) and the result.
func (c taskClient) call(tool string, args map[string]any) (string, map[string]json.RawMessage, *rpcError) {
	c.t.Helper()
	res, e := c.rpc("tools/call", tool, map[string]any{"name": tool, "arguments": args})
	if e != nil {
		return "", nil, e
	}
	var id string
	if string(res["resultType"]) == `"task"` {
		_ = json.Unmarshal(res["taskId"], &id)
	}
	return id, res, nil
}

// task is tasks/get of id.
func (c taskClient) task(id string) (map[string]json.RawMessage, *rpcError) {
	c.t.Helper()
	return c.rpc("tasks/get", id, map[string]any{"taskId": id})
}

func status(res map[string]json.RawMessage) string {
	var s string
	_ = json.Unmarshal(res["status"], &s)
	return s
}

// await polls task id until its status is one of want, as long as
// enginetest.Patience.
func (c taskClient) await(id string, want ...string) map[string]json.RawMessage {
	c.t.Helper()
	for deadline := time.Now().Add(enginetest.Patience); time.Now().Before(deadline); {
		res, e := c.task(id)
		if e != nil {
			c.t.Fatalf("tasks/get %s: %+v", id, e)
		}
		for _, w := range want {
			if status(res) == w {
				return res
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.t.Fatalf("task %s never became %v", id, want)
	return nil
}

// waitFor waits until ok, as long as enginetest.Patience.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(enginetest.Patience); time.Now().Before(deadline); {
		if ok() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("never: %s", what)
}

// alive reports whether the process whose id is in file runs.
func alive(t *testing.T, file string) bool {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}

// serveTasks serves src, which may run commands, over HTTP on a test
// server.
func serveTasks(t *testing.T, src string) *httptest.Server {
	t.Helper()
	_, ts := serveOverHTTP(t, loadTools(t, src, execaction.New()), server.Options{})
	return ts
}

// TestTasks: a client that declares the tasks extension gets a task at
// once, polls it to its result, and cancels one, which kills its process;
// a caller neither sees nor cancels another's tasks; a result larger than
// the task keeps fails it; a required task refuses a client without the
// extension; a question in a task is answered with tasks/update.
func TestTasks(t *testing.T) {
	dir := t.TempDir()
	ts := serveTasks(t, fmt.Sprintf(taskTools, dir))
	ann := taskClient{t, ts.URL, "ann-token-0123456789abcdef", true}
	bob := taskClient{t, ts.URL, "bob-token-0123456789abcdef", true}

	t.Run("result", func(t *testing.T) {
		id, res, e := ann.call("quick", map[string]any{"name": "Ada"})
		if e != nil || id == "" || string(res["ttlMs"]) != "3600000" || string(res["pollIntervalMs"]) != "1000" {
			t.Fatalf("want a task, got %v %+v", res, e)
		}
		done := ann.await(id, "completed")
		var r struct {
			Content []struct{ Text string }
		}
		_ = json.Unmarshal(done["result"], &r)
		if len(r.Content) != 1 || r.Content[0].Text != "Hello, Ada" {
			t.Errorf("result %s", done["result"])
		}
		if _, e := bob.task(id); e == nil || e.Code != -32602 {
			t.Errorf("another caller's tasks/get: %+v, want -32602", e)
		}
	})

	t.Run("without the extension", func(t *testing.T) {
		plain := ann
		plain.ext = false
		id, res, e := plain.call("quick", map[string]any{"name": "Ada"})
		if e != nil || id != "" || !strings.Contains(string(res["content"]), "Hello, Ada") {
			t.Errorf("optional task without the extension: %v %+v, want the result at once", res, e)
		}
		if _, _, e := plain.call("must", map[string]any{}); e == nil || e.Code != -32021 || !strings.Contains(string(e.Data), "io.modelcontextprotocol/tasks") {
			t.Errorf("required task without the extension: %+v, want -32021 naming the extension", e)
		}
		if _, e := plain.task("x"); e == nil || e.Code != -32021 {
			t.Errorf("tasks/get without the extension: %+v, want -32021", e)
		}
	})

	t.Run("cancel", func(t *testing.T) {
		id, _, e := ann.call("work", map[string]any{})
		if e != nil || id == "" {
			t.Fatalf("no task: %+v", e)
		}
		pid := filepath.Join(dir, "pid")
		waitFor(t, "the process started", func() bool { _, err := os.Stat(pid); return err == nil })
		// Another caller can neither cancel it nor see it.
		if _, e := bob.rpc("tasks/cancel", id, map[string]any{"taskId": id}); e == nil || e.Code != -32602 {
			t.Errorf("another caller's tasks/cancel: %+v, want -32602", e)
		}
		if res, _ := ann.task(id); status(res) != "working" {
			t.Fatalf("after another caller's cancel: %s", res["status"])
		}
		if res, e := ann.rpc("tasks/cancel", id, map[string]any{"taskId": id}); e != nil || string(res["resultType"]) != `"complete"` || res["status"] != nil {
			t.Fatalf("tasks/cancel: %v %+v", res, e)
		}
		waitFor(t, "the process was killed", func() bool { return !alive(t, pid) })
		if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, "done")); err == nil {
			t.Error("the cancelled work finished")
		}
		if res, _ := ann.task(id); status(res) != "cancelled" || res["result"] != nil {
			t.Errorf("after cancel: %v", res)
		}
	})

	t.Run("oversize", func(t *testing.T) {
		id, _, _ := ann.call("big", map[string]any{})
		res := ann.await(id, "failed", "completed")
		var e rpcError
		_ = json.Unmarshal(res["error"], &e)
		if status(res) != "failed" || res["result"] != nil || !strings.Contains(e.Message, "max_result") {
			t.Errorf("an oversize result: %v", res)
		}
	})

	t.Run("question", func(t *testing.T) {
		id, _, _ := ann.call("ask", map[string]any{})
		res := ann.await(id, "input_required")
		var reqs map[string]struct {
			Method string
			Params struct{ Message string }
		}
		_ = json.Unmarshal(res["inputRequests"], &reqs)
		if reqs["confirm"].Method != "elicitation/create" || reqs["confirm"].Params.Message != "Go on?" || res["requestState"] != nil {
			t.Fatalf("input_required: %v", res)
		}
		if ack, e := ann.rpc("tasks/update", id, map[string]any{"taskId": id, "inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"why": "tested"}}}}); e != nil || string(ack["resultType"]) != `"complete"` {
			t.Fatalf("tasks/update: %v %+v", ack, e)
		}
		done := ann.await(id, "completed", "failed")
		if !strings.Contains(string(done["result"]), "went on: tested") {
			t.Errorf("after the answer: %v", done)
		}
	})
}

// TestTasksPerCaller: one caller's tasks are capped, with an error that
// says so; another caller is not.
func TestTasksPerCaller(t *testing.T) {
	dir := t.TempDir()
	ts := serveTasks(t, fmt.Sprintf(taskTools, dir)+`
tasks {
  max_per_caller = 2
}
`)
	ann := taskClient{t, ts.URL, "ann-token-0123456789abcdef", true}
	bob := taskClient{t, ts.URL, "bob-token-0123456789abcdef", true}
	for range 2 {
		if id, _, e := ann.call("quick", map[string]any{"name": "x"}); e != nil || id == "" {
			t.Fatalf("within the cap: %+v", e)
		}
	}
	if _, _, e := ann.call("quick", map[string]any{"name": "x"}); e == nil || !strings.Contains(e.Message, "max_per_caller") {
		t.Errorf("over the cap: %+v, want an error naming max_per_caller", e)
	}
	if id, _, e := bob.call("quick", map[string]any{"name": "x"}); e != nil || id == "" {
		t.Errorf("another caller: %+v", e)
	}
}

// TestTasksAfterRestart: a task of a server that kept it in memory is
// unknown to the next one, which says why.
func TestTasksAfterRestart(t *testing.T) {
	src := fmt.Sprintf(taskTools, t.TempDir())
	first := taskClient{t, serveTasks(t, src).URL, "ann-token-0123456789abcdef", true}
	id, _, _ := first.call("quick", map[string]any{"name": "x"})
	second := taskClient{t, serveTasks(t, src).URL, "ann-token-0123456789abcdef", true}
	if _, e := second.task(id); e == nil || e.Code != -32602 || !strings.Contains(e.Message, "earlier run of this server") {
		t.Errorf("a task of the previous run: %+v", e)
	}
}

// TestTasksAcrossReplicas: two replicas sharing a Redis tasks store: a
// task started on one is read and cancelled on the other, which stops its
// process on the first.
func TestTasksAcrossReplicas(t *testing.T) {
	redisURL := "redis://" + testservice.Redis(t) + "/0"
	dir := t.TempDir()
	src := fmt.Sprintf(taskTools, dir) + `
tasks {
  store     = "redis"
  redis_url = "` + redisURL + `"
  prefix    = "mcpdecl-test-` + strconv.Itoa(os.Getpid()) + `"
}
`
	one := taskClient{t, serveTasks(t, src).URL, "ann-token-0123456789abcdef", true}
	two := taskClient{t, serveTasks(t, src).URL, "ann-token-0123456789abcdef", true}

	id, _, e := one.call("quick", map[string]any{"name": "Ada"})
	if e != nil || id == "" {
		t.Fatalf("no task: %+v", e)
	}
	if res := two.await(id, "completed"); !strings.Contains(string(res["result"]), "Hello, Ada") {
		t.Errorf("read on the other replica: %v", res)
	}

	id, _, _ = one.call("work", map[string]any{})
	pid := filepath.Join(dir, "pid")
	waitFor(t, "the process started", func() bool { _, err := os.Stat(pid); return err == nil })
	if _, e := two.rpc("tasks/cancel", id, map[string]any{"taskId": id}); e != nil {
		t.Fatalf("cancel on the other replica: %+v", e)
	}
	waitFor(t, "the process on the first replica was killed", func() bool { return !alive(t, pid) })
	if res, _ := one.task(id); status(res) != "cancelled" {
		t.Errorf("after cancel: %v", res)
	}
}

// TestTasksStopWithTheServer: closing the server stops the work of its
// tasks (it does not wait for them).
func TestTasksStopWithTheServer(t *testing.T) {
	dir := t.TempDir()
	cfg := loadTools(t, fmt.Sprintf(taskTools, dir), execaction.New())
	live := server.NewLive(cfg, nil, server.Options{HTTP: true})
	ts := httptest.NewServer(live.HTTPHandler())
	t.Cleanup(ts.Close)
	ann := taskClient{t, ts.URL, "ann-token-0123456789abcdef", true}
	if id, _, e := ann.call("work", map[string]any{}); e != nil || id == "" {
		t.Fatalf("no task: %+v", e)
	}
	pid := filepath.Join(dir, "pid")
	waitFor(t, "the process started", func() bool { _, err := os.Stat(pid); return err == nil })
	if err := live.Close(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the process was killed", func() bool { return !alive(t, pid) })
}

// TestTasksOverStdio: a client of 2025-11-25 that declares the extension
// when it initializes gets tasks over stdio too, and polls them on its
// session.
func TestTasksOverStdio(t *testing.T) {
	live := newLive(t, loadTools(t, fmt.Sprintf(taskTools, t.TempDir()), execaction.New()), server.Options{})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = live.Server().Run(ctx, &mcp.IOTransport{Reader: inR, Writer: outW}) }()
	// The pipes are closed first when the test ends: what the server
	// writes after the test's last read (a task's status, sent as the task
	// ends) then fails instead of waiting for a reader.
	t.Cleanup(func() { _ = outR.Close(); _ = inW.Close() })
	lines := bufio.NewScanner(outR)
	id := 0
	rpc := func(method string, params string) map[string]json.RawMessage {
		t.Helper()
		id++
		fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params)
		for {
			if !lines.Scan() {
				t.Fatalf("%s: no answer", method)
			}
			var msg struct {
				ID     json.RawMessage
				Result map[string]json.RawMessage
				Error  *rpcError
			}
			if err := json.Unmarshal(lines.Bytes(), &msg); err != nil || msg.Error != nil {
				t.Fatalf("%s: %s", method, lines.Bytes())
			}
			if msg.ID != nil { // not a notification (the task's status)
				return msg.Result
			}
		}
	}
	rpc("initialize", `{"protocolVersion":"2025-11-25","clientInfo":{"name":"c","version":"0"},"capabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`)
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	res := rpc("tools/call", `{"name":"quick","arguments":{"name":"Ada"}}`)
	var taskID string
	if err := json.Unmarshal(res["taskId"], &taskID); err != nil || string(res["resultType"]) != `"task"` {
		t.Fatalf("tools/call: %v", res)
	}
	for deadline := time.Now().Add(enginetest.Patience); time.Now().Before(deadline); {
		res = rpc("tasks/get", `{"taskId":"`+taskID+`"}`)
		if status(res) == "completed" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(string(res["result"]), "Hello, Ada") {
		t.Errorf("tasks/get: %v", res)
	}
}
