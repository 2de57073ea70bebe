package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	execaction "github.com/mcpdecl/mcpdecl/adapters/exec"
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/server"
	"github.com/mcpdecl/mcpdecl/internal/testservice"
)

// confirmTools delete an order, which appends a line to the file %[1]q,
// once the person consents; delete_anyway runs when its client cannot be
// asked.
const confirmTools = `
audit {
  file = "%[1]s.audit"
}

tool "delete_order" {
  description = "Deletes an order."
  arg "id" {
    type = string
  }
  confirm {
    message = expr("'Delete order ' + args.id + '?'")
    field "reason" {
      type        = string
      title       = "Reason"
      description = "Why the order goes"
      enum        = ["duplicate", "fraud", "customer request"]
    }
    field "notify" {
      type    = bool
      default = true
    }
  }
  exec {
    command = ["sh", "-c", "echo \"$ID $REASON $NOTIFY\" >> \"$LOG\""]
    env     = { ID = expr("args.id"), REASON = expr("confirm.reason"), NOTIFY = expr("string(confirm.notify)"), LOG = %[1]q }
  }
  text = expr("'deleted ' + args.id + ' (' + confirm.reason + ')'")
}

tool "delete_anyway" {
  description = "Deletes an order, asking when it can."
  arg "id" {
    type = string
  }
  confirm {
    message             = "Delete it?"
    without_elicitation = "run"
  }
  exec {
    command = ["sh", "-c", "echo \"$ID anyway\" >> \"$LOG\""]
    env     = { ID = expr("args.id"), LOG = %[1]q }
  }
}
`

// answering is a client's elicitation handler that answers as told, and
// keeps the questions it was asked.
type answering struct {
	mu     sync.Mutex
	answer *mcp.ElicitResult
	asked  []*mcp.ElicitParams
}

func (a *answering) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, req.Params)
	return a.answer, nil
}

func (a *answering) set(r *mcp.ElicitResult) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.answer, a.asked = r, nil
}

// TestConfirm: a tool with a confirm block asks the person through the
// client before its action runs, with the message built from the
// arguments and the form's schema; an acceptance runs the action, whose
// programs read the answers; a decline or a dismissal is a tool error that
// says so, and an answer outside the form is refused: neither runs
// anything. Over stdio on 2025-11-25 (elicitation/create on the session)
// and 2026-07-28, over stateless HTTP on 2026-07-28 (input_required
// and a signed request state, which the go-sdk client answers itself), and
// with http_sessions over an HTTP session on 2025-11-25 (elicitation/create
// on its stream) while 2026-07-28 goes on as without.
func TestConfirm(t *testing.T) {
	for _, transport := range []string{"stdio 2025-11-25", "stdio 2026-07-28", "http 2026-07-28", "sessions 2025-11-25", "sessions 2026-07-28"} {
		t.Run(transport, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "deleted")
			kind, version, _ := strings.Cut(transport, " ")
			ans := &answering{}
			cs := connectOver(t, loadTools(t, withSessions(kind, fmt.Sprintf(confirmTools, log)), execaction.New()), kind, version, &mcp.ClientOptions{ElicitationHandler: ans.handle})
			deleted := func() string {
				b, _ := os.ReadFile(log)
				return string(b)
			}
			call := func(id string) (*mcp.CallToolResult, error) {
				return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_order", Arguments: map[string]any{"id": id}})
			}

			ans.set(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"reason": "fraud"}})
			res, err := call("42")
			if err != nil || res.IsError || firstText(res) != "deleted 42 (fraud)" {
				t.Fatalf("accepted: %v %+v", err, res)
			}
			if got := deleted(); got != "42 fraud true\n" {
				t.Errorf("accepted: the action wrote %q, want the id, the reason and the default of notify", got)
			}
			if len(ans.asked) != 1 {
				t.Fatalf("accepted: asked %d times, want once", len(ans.asked))
			}
			q := ans.asked[0]
			props, _ := q.RequestedSchema.(map[string]any)["properties"].(map[string]any)
			reason, _ := props["reason"].(map[string]any)
			if q.Message != "Delete order 42?" || reason["title"] != "Reason" || len(reason["enum"].([]any)) != 3 || fmt.Sprint(q.RequestedSchema.(map[string]any)["required"]) != "[reason]" {
				t.Errorf("the question was %q with the schema %v", q.Message, q.RequestedSchema)
			}

			for _, c := range []struct{ action, says string }{{"decline", "declined"}, {"cancel", "dismissed"}} {
				ans.set(&mcp.ElicitResult{Action: c.action})
				res, err := call("43")
				if err != nil || !res.IsError || !strings.Contains(firstText(res), c.says) || !strings.Contains(firstText(res), "nothing was done") {
					t.Errorf("%s: %v %+v", c.action, err, res)
				}
			}
			ans.set(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"reason": "boredom"}})
			if res, err := call("44"); err == nil && !res.IsError {
				t.Errorf("an answer outside the form was taken: %+v", res)
			}
			if got := deleted(); got != "42 fraud true\n" {
				t.Errorf("a call that was not accepted ran: the log is %q", got)
			}
			audit, _ := os.ReadFile(log + ".audit")
			for _, decision := range []string{"asked", "accepted", "declined", "cancelled"} {
				if !strings.Contains(string(audit), `"confirmation":"`+decision+`"`) {
					t.Errorf("no audit line says the confirmation was %s:\n%s", decision, audit)
				}
			}
		})
	}
}

// TestConfirmWithoutElicitation: a client that cannot be asked (no
// elicitation capability; a client of 2025-11-25 over stateless HTTP,
// which keeps no session to ask it on) is refused with the reason, and
// nothing runs; a tool with without_elicitation = "run" runs.
func TestConfirmWithoutElicitation(t *testing.T) {
	for _, transport := range []string{"stdio without elicitation", "http 2025-11-25"} {
		t.Run(transport, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "deleted")
			cfg := loadTools(t, fmt.Sprintf(confirmTools, log), execaction.New())
			var cs *mcp.ClientSession
			why := "did not declare the elicitation capability"
			if transport == "http 2025-11-25" {
				ans := &answering{answer: &mcp.ElicitResult{Action: "accept"}}
				cs, _ = sessionServer(t, cfg, "2025-11-25", &mcp.ClientOptions{ElicitationHandler: ans.handle})
				why = "which this HTTP server does not keep (its server block keeps them with http_sessions = true"
			} else {
				cs = connectLive(t, newLive(t, cfg, server.Options{}), "2025-11-25", nil)
			}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_order", Arguments: map[string]any{"id": "42"}})
			if err != nil || !res.IsError || !strings.Contains(firstText(res), why) || !strings.Contains(firstText(res), "nothing was done") {
				t.Errorf("delete_order: %v %q, want a tool error that says %q", err, firstText(res), why)
			}
			answeredAnyway(t, cs, log)
		})
	}
}

// TestConfirmMissingCapability: over 2026-07-28, a client that did not
// declare elicitation is answered with the protocol error that names the
// capability (SEP-2575); without_elicitation = "run" runs all the same.
func TestConfirmMissingCapability(t *testing.T) {
	log := filepath.Join(t.TempDir(), "deleted")
	cs, _ := sessionServer(t, loadTools(t, fmt.Sprintf(confirmTools, log), execaction.New()), "2026-07-28", nil)
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_order", Arguments: map[string]any{"id": "42"}})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != mcp.CodeMissingRequiredClientCapabilities || !strings.Contains(string(werr.Data), `"elicitation"`) {
		t.Errorf("delete_order: %v, want the error %d naming elicitation", err, mcp.CodeMissingRequiredClientCapabilities)
	}
	answeredAnyway(t, cs, log)
}

// answeredAnyway calls delete_anyway, which runs, and checks that it
// alone wrote to log.
func answeredAnyway(t *testing.T, cs *mcp.ClientSession, log string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_anyway", Arguments: map[string]any{"id": "7"}})
	if err != nil || res.IsError {
		t.Errorf("delete_anyway: %v %+v", err, res)
	}
	if b, _ := os.ReadFile(log); string(b) != "7 anyway\n" {
		t.Errorf("the log is %q, want delete_anyway's line alone", b)
	}
}

// firstText is the text of a result's first block.
func firstText(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// askTools ask for the city when a call lacks it.
const askTools = `
tool "weather" {
  description = "The weather in a city."
  arg "city" {
    type        = string
    description = "A city"
    min_length  = 2
    ask         = "Which city?"
  }
  arg "days" {
    type    = integer
    default = 1
  }
  text = expr("'Weather in ' + args.city + ' for ' + string(args.days) + ' days'")
}
`

// TestAskMissingArgument: a call that lacks an argument with ask is asked
// for it, with a form of the argument's schema; the answer is validated as
// any argument; a decline runs nothing; a call that has it is not asked.
// Over stdio on 2025-11-25 and over stateless HTTP on 2026-07-28.
func TestAskMissingArgument(t *testing.T) {
	for _, transport := range []string{"stdio 2025-11-25", "http 2026-07-28"} {
		t.Run(transport, func(t *testing.T) {
			kind, version, _ := strings.Cut(transport, " ")
			ans := &answering{}
			cs := connectOver(t, loadTools(t, askTools), kind, version, &mcp.ClientOptions{ElicitationHandler: ans.handle})
			call := func(args map[string]any) (*mcp.CallToolResult, error) {
				return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "weather", Arguments: args})
			}
			ans.set(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"city": "Lyon"}})
			res, err := call(map[string]any{"days": 3})
			if err != nil || res.IsError || firstText(res) != "Weather in Lyon for 3 days" {
				t.Fatalf("answered: %v %+v", err, res)
			}
			if len(ans.asked) != 1 || ans.asked[0].Message != "Which city?" {
				t.Fatalf("asked %+v", ans.asked)
			}
			city, _ := ans.asked[0].RequestedSchema.(map[string]any)["properties"].(map[string]any)["city"].(map[string]any)
			if city["type"] != "string" || city["description"] != "A city" || fmt.Sprint(city["minLength"]) != "2" {
				t.Errorf("the form: %v", ans.asked[0].RequestedSchema)
			}

			ans.set(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"city": "Lyon"}})
			if res, err := call(map[string]any{"city": "Paris"}); err != nil || firstText(res) != "Weather in Paris for 1 days" || len(ans.asked) != 0 {
				t.Errorf("a call with the argument: %v %+v, asked %d times", err, res, len(ans.asked))
			}
			ans.set(&mcp.ElicitResult{Action: "decline"})
			if res, err := call(nil); err != nil || !res.IsError || !strings.Contains(firstText(res), "gave no city") {
				t.Errorf("declined: %v %+v", err, res)
			}
			// The go-sdk client checks the answer against the form itself
			// (the engine's tests send it one outside); either way,
			// nothing runs.
			ans.set(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"city": "X"}})
			if res, err := call(nil); err == nil && !res.IsError {
				t.Errorf("an answer the argument's schema refuses was taken: %q", firstText(res))
			}
		})
	}
}

// replicas is an http.RoundTripper that sends each request to the next of
// its servers in turn, as a load balancer without affinity would.
type replicas struct {
	mu   sync.Mutex
	urls []*url.URL
	next int
}

func (r *replicas) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	u := r.urls[r.next%len(r.urls)]
	r.next++
	r.mu.Unlock()
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host, req.Host = u.Scheme, u.Host, u.Host
	return http.DefaultTransport.RoundTrip(req)
}

// TestConfirmAcrossReplicas: two replicas that share request_state_keys
// resume each other's confirmations: the question comes from one, the
// answer goes to the other. Replicas whose keys differ refuse the other's
// state, and nothing runs.
func TestConfirmAcrossReplicas(t *testing.T) {
	key := func(c string) string {
		return `server {
  request_state_keys = ["` + strings.Repeat(c, 32) + `"]
}
`
	}
	for _, c := range []struct {
		name   string
		keys   [2]string
		resume bool
	}{{"shared keys", [2]string{"a", "a"}, true}, {"other keys", [2]string{"a", "b"}, false}} {
		t.Run(c.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "deleted")
			var urls []*url.URL
			for _, k := range c.keys {
				_, ts := serveOverHTTP(t, loadTools(t, key(k)+fmt.Sprintf(confirmTools, log), execaction.New()), server.Options{})
				u, _ := url.Parse(ts.URL)
				urls = append(urls, u)
			}
			lb := &replicas{urls: urls}
			ans := &answering{answer: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"reason": "duplicate"}}}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, &mcp.ClientOptions{ElicitationHandler: ans.handle}).Connect(context.Background(),
				&mcp.StreamableClientTransport{Endpoint: "http://replicas" + server.Path, HTTPClient: &http.Client{Transport: lb}}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cs.Close() })
			lb.mu.Lock()
			lb.next = 0 // the call goes to the first, its answer to the second
			lb.mu.Unlock()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_order", Arguments: map[string]any{"id": "9"}})
			b, _ := os.ReadFile(log)
			if c.resume {
				if err != nil || res.IsError || string(b) != "9 duplicate true\n" {
					t.Errorf("resumed on the other replica: %v %+v, log %q", err, res, b)
				}
			} else if err == nil || !strings.Contains(err.Error(), "signature") || len(b) > 0 {
				t.Errorf("a state signed with another key: %v %+v, log %q; want a refusal and nothing run", err, res, b)
			}
			if len(ans.asked) != 1 {
				t.Errorf("asked %d times, want once", len(ans.asked))
			}
		})
	}
}

// TestConfirmReplayAcrossReplicas: two replicas that share request_states
// in Redis take a request state once between them: answered on one, it
// is refused on the other, and the action runs once.
func TestConfirmReplayAcrossReplicas(t *testing.T) {
	redisURL := "redis://" + testservice.Redis(t) + "/0"
	prefix := fmt.Sprintf("mcpdecl-test-%d", os.Getpid())
	shared := `server {
  request_state_keys = ["` + strings.Repeat("s", 32) + `"]
}
request_states {
  store     = "redis"
  redis_url = "` + redisURL + `"
  prefix    = "` + prefix + `"
}
`
	log := filepath.Join(t.TempDir(), "deleted")
	var tools []*engine.Tool
	for range 2 {
		tool, _ := loadTools(t, shared+fmt.Sprintf(confirmTools, log), execaction.New()).Tool("delete_order")
		tools = append(tools, tool)
	}
	args := json.RawMessage(`{"id": "5"}`)
	ctx := engine.WithAsking(context.Background(), &engine.Asking{Able: true})
	q := tools[0].Call(ctx, args)
	if q.Round == nil {
		t.Fatal("not asked")
	}
	answer := engine.WithAsking(context.Background(), &engine.Asking{Able: true, State: q.Round.State,
		Answers: map[string]engine.Answer{"confirm": {Action: "accept", Content: map[string]any{"reason": "fraud"}}}})
	if res := tools[0].Call(answer, args); res.IsError {
		t.Fatalf("answered on the first replica: %s", res.Text())
	}
	res := tools[1].Call(answer, args)
	if res.StateError == nil || !strings.Contains(res.StateError.Reason, "answered already") {
		t.Errorf("the same state on the second replica: %+v, want it refused as answered already", res)
	}
	if b, _ := os.ReadFile(log); string(b) != "5 fraud true\n" {
		t.Errorf("the log is %q, want one deletion", b)
	}
}
