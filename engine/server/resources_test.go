package server_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/engine/server"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

const resourcesSrc = `
variable "secret" {
  type      = string
  default   = "s3cr3t-value"
  sensitive = true
}

resource "readme" {
  uri         = "docs://readme"
  title       = "Read me"
  description = "What this server is."
  text        = "Hello, reader."
  icons       = [{ src = "https://example.com/readme.png", mime_type = "image/png" }]
  annotations {
    audience      = ["user"]
    priority      = 0.8
    last_modified = "2026-11-01T10:00:00Z"
  }
}

resource "pixel" {
  uri       = "img://pixel"
  mime_type = "image/png"
  content "image" {
    data      = "iVBORw0KGgo="
    mime_type = "image/png"
  }
}

resource_template "order" {
  uri_template = "shop://orders/{id}"
  mime_type    = "application/json"
  annotations {
    audience = ["assistant"]
  }
  arg "id" {
    type    = integer
    minimum = 1
    complete {
      error_if      = expr("!(args.value matches '^[0-9]*$')")
      error_message = expr("'no ids for ' + args.value")
      values        = expr("filter(map(1..150, string(#)), hasPrefix(#, args.value))")
    }
  }
  text = expr("toJSON({id: args.id, double: args.id * 2})")
}

resource_template "secret_echo" {
  uri_template = "echo://{word}"
  arg "word" {
    type = string
    enum = ["alpha", "beta", "alphabet", "s3cr3t-value"]
  }
  error_if      = expr("args.word in ['beta', 's3cr3t-value']")
  error_message = expr("'refused with ' + args.word")
  text          = expr("args.word")
}

prompt "review" {
  description = "Review a text."
  arg "style" {
    description = "How to review"
    enum        = ["short", "long", "shouty"]
  }
  arg "text" {
    optional = true
    complete {
      values = expr("[args.value + '!', upper(args.value), args.value + '!']")
    }
  }
  message "user" {
    text = expr("'Review this (' + args.style + '): ' + args.text")
  }
  message "assistant" {
    content "image" {
      data      = "iVBORw0KGgo="
      mime_type = "image/png"
    }
  }
}
`

func resourcesSession(t *testing.T) *mcp.ClientSession {
	t.Helper()
	return connect(t, loadTools(t, resourcesSrc))
}

func TestResourcesListAndRead(t *testing.T) {
	cs := resourcesSession(t)
	ctx := context.Background()
	if caps := cs.InitializeResult().Capabilities; caps.Resources == nil || caps.Prompts == nil || caps.Completions == nil {
		t.Errorf("capabilities = %+v, want resources, prompts and completions declared", caps)
	}
	// Listed by URI, as the SDK orders them.
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Resources) != 2 || list.Resources[1].URI != "img://pixel" || list.Resources[0].Title != "Read me" || list.Resources[0].MIMEType != "text/plain" {
		for _, r := range list.Resources {
			t.Errorf("resources/list: %+v", *r)
		}
	}
	if r := list.Resources[0]; r.Annotations == nil || r.Annotations.Priority != 0.8 || len(r.Annotations.Audience) != 1 || r.Annotations.Audience[0] != "user" || r.Annotations.LastModified != "2026-11-01T10:00:00Z" ||
		len(r.Icons) != 1 || r.Icons[0].Source != "https://example.com/readme.png" {
		t.Errorf("readme's annotations %+v and icons %+v", r.Annotations, r.Icons)
	}
	if list.Resources[1].Annotations != nil || list.Resources[1].Icons != nil {
		t.Errorf("pixel has annotations %+v or icons %+v it did not declare", list.Resources[1].Annotations, list.Resources[1].Icons)
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range templates.ResourceTemplates {
		if tt.Name == "order" && (tt.Annotations == nil || len(tt.Annotations.Audience) != 1 || tt.Annotations.Audience[0] != "assistant") {
			t.Errorf("order template's annotations: %+v", tt.Annotations)
		}
	}
	tests := []struct {
		uri, text, mime string
		blob            bool
	}{
		{"docs://readme", "Hello, reader.", "text/plain", false},
		{"img://pixel", "", "image/png", true},
		{"shop://orders/21", "{\n  \"double\": 42,\n  \"id\": 21\n}", "application/json", false},
		{"echo://alpha", "alpha", "text/plain", false},
	}
	for _, tc := range tests {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: tc.uri})
		if err != nil {
			t.Errorf("read %s: %v", tc.uri, err)
			continue
		}
		c := res.Contents[0]
		if c.URI != tc.uri || c.Text != tc.text || c.MIMEType != tc.mime || (len(c.Blob) > 0) != tc.blob {
			t.Errorf("read %s = %+v, want text %q, MIME type %s, blob %v", tc.uri, c, tc.text, tc.mime, tc.blob)
		}
	}
}

func TestResourceReadErrors(t *testing.T) {
	cs := resourcesSession(t)
	ctx := context.Background()
	tests := []struct {
		uri  string
		code int64
		want string
	}{
		{"docs://nope", jsonrpc.CodeInvalidParams, "Resource not found"},
		{"shop://orders/0", jsonrpc.CodeInvalidParams, "/id: must be at least 1"},
		{"shop://orders/abc", jsonrpc.CodeInvalidParams, "/id: must be an integer"},
		{"echo://gamma", jsonrpc.CodeInvalidParams, "/word: must be one of"},
		{"echo://beta", jsonrpc.CodeInternalError, "reading echo://beta failed: refused with beta"},
		{"echo://s3cr3t-value", jsonrpc.CodeInternalError, "reading echo://(sensitive) failed: refused with (sensitive)"},
	}
	for _, tc := range tests {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: tc.uri})
		var je *jsonrpc.Error
		if !errors.As(err, &je) {
			t.Errorf("read %s: err = %v, want a JSON-RPC error", tc.uri, err)
			continue
		}
		if je.Code != tc.code || !strings.Contains(je.Message, tc.want) {
			t.Errorf("read %s: error %d %q, want %d containing %q", tc.uri, je.Code, je.Message, tc.code, tc.want)
		}
		if strings.Contains(je.Message, "s3cr3t-value") {
			t.Errorf("read %s: the error shows the secret: %q", tc.uri, je.Message)
		}
	}
}

func TestPromptsListGetComplete(t *testing.T) {
	cs := resourcesSession(t)
	ctx := context.Background()
	list, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Prompts) != 1 || len(list.Prompts[0].Arguments) != 2 || !list.Prompts[0].Arguments[0].Required || list.Prompts[0].Arguments[1].Required {
		t.Fatalf("prompts/list = %+v", list.Prompts)
	}
	got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review", Arguments: map[string]string{"style": "short", "text": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) != 2 || got.Messages[0].Role != "user" || got.Messages[1].Role != "assistant" {
		t.Fatalf("prompts/get = %+v", got.Messages)
	}
	if tc, ok := got.Messages[0].Content.(*mcp.TextContent); !ok || tc.Text != "Review this (short): hi" {
		t.Errorf("first message = %#v", got.Messages[0].Content)
	}
	if _, ok := got.Messages[1].Content.(*mcp.ImageContent); !ok {
		t.Errorf("second message = %#v, want an image", got.Messages[1].Content)
	}

	// A message is redacted as a tool's result is: a client that sends the
	// secret does not get it back.
	got, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review", Arguments: map[string]string{"style": "short", "text": "s3cr3t-value"}})
	if err != nil {
		t.Fatal(err)
	}
	if tc, ok := got.Messages[0].Content.(*mcp.TextContent); !ok || tc.Text != "Review this (short): "+text.Mask {
		t.Errorf("first message = %#v, want the secret redacted", got.Messages[0].Content)
	}

	for _, tc := range []struct {
		args map[string]string
		want string
	}{
		{map[string]string{}, `the argument "style" is required`},
		{map[string]string{"style": "rude"}, `the argument "style" must be one of short, long, shouty`},
		{map[string]string{"style": "short", "tone": "x"}, `the prompt has no argument "tone"`},
	} {
		_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review", Arguments: tc.args})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, tc.want) {
			t.Errorf("get with %v: %v, want invalid params saying %q", tc.args, err, tc.want)
		}
	}

	for _, tc := range []struct {
		ref    *mcp.CompleteReference
		arg    string
		prefix string
		want   []string
	}{
		{&mcp.CompleteReference{Type: "ref/prompt", Name: "review"}, "style", "sh", []string{"short", "shouty"}},
		{&mcp.CompleteReference{Type: "ref/prompt", Name: "review"}, "text", "ok", []string{"ok!", "OK"}}, // complete block, repeats dropped
		{&mcp.CompleteReference{Type: "ref/prompt", Name: "review"}, "nope", "", []string{}},
		{&mcp.CompleteReference{Type: "ref/resource", URI: "echo://{word}"}, "word", "ALP", []string{"alpha", "alphabet"}},
		{&mcp.CompleteReference{Type: "ref/resource", URI: "shop://orders/{id}"}, "id", "14", []string{"14", "140", "141", "142", "143", "144", "145", "146", "147", "148", "149"}},
	} {
		res, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: tc.ref, Argument: mcp.CompleteParamsArgument{Name: tc.arg, Value: tc.prefix}})
		if err != nil {
			t.Errorf("complete %s %q: %v", tc.arg, tc.prefix, err)
			continue
		}
		if strings.Join(res.Completion.Values, ",") != strings.Join(tc.want, ",") || res.Completion.HasMore {
			t.Errorf("complete %s %q = %v (hasMore %v), want %v", tc.arg, tc.prefix, res.Completion.Values, res.Completion.HasMore, tc.want)
		}
	}

	// A complete block that yields 150 values offers 100, and says there
	// are more; one that fails is an error that shows no secret.
	orders := &mcp.CompleteReference{Type: "ref/resource", URI: "shop://orders/{id}"}
	res, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: orders, Argument: mcp.CompleteParamsArgument{Name: "id", Value: ""}})
	if err != nil || len(res.Completion.Values) != 100 || !res.Completion.HasMore || res.Completion.Values[99] != "100" {
		t.Errorf("complete id \"\" = %+v, %v; want the first 100 and hasMore", res, err)
	}
	_, err = cs.Complete(ctx, &mcp.CompleteParams{Ref: orders, Argument: mcp.CompleteParamsArgument{Name: "id", Value: "s3cr3t-value"}})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInternalError || !strings.Contains(je.Message, "no ids for (sensitive)") || strings.Contains(je.Message, "s3cr3t-value") {
		t.Errorf("complete id with the secret: %v, want an internal error saying why, without the secret", err)
	}
}

func TestUndeclaredCapabilitiesRefused(t *testing.T) {
	cs := connect(t, newConfig(t, 0, "a"))
	ctx := context.Background()
	if caps := cs.InitializeResult().Capabilities; caps.Resources != nil || caps.Prompts != nil || caps.Completions != nil {
		t.Errorf("capabilities = %+v, want tools alone", caps)
	}
	if _, err := cs.ListPrompts(ctx, nil); err == nil {
		t.Error("prompts/list answered by a server without prompts")
	}
	if _, err := cs.ListResources(ctx, nil); err == nil {
		t.Error("resources/list answered by a server without resources")
	}
}

// TestSwapResources: a reload serves the new configuration's resources and
// prompts, and those it dropped are gone.
func TestSwapResources(t *testing.T) {
	before := loadTools(t, `
resource "a" {
  uri  = "x://a"
  text = "A"
}
prompt "p" {
  message "user" { text = "old" }
}
`)
	after := loadTools(t, `
resource "b" {
  uri  = "x://b"
  text = "B"
}
prompt "p" {
  message "user" { text = "new" }
}
prompt "q" {
  message "user" { text = "q" }
}
`)
	live := server.NewLive(before, nil, server.Options{Watch: true})
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := live.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	live.Swap(after)
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Resources) != 1 || list.Resources[0].URI != "x://b" {
		t.Errorf("resources after the reload: %v", list.Resources)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "x://a"}); err == nil {
		t.Error("the dropped resource x://a can still be read")
	}
	got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if tc, ok := got.Messages[0].Content.(*mcp.TextContent); !ok || tc.Text != "new" {
		t.Errorf("prompt p after the reload = %#v, want the new text", got.Messages[0].Content)
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(prompts.Prompts) != 2 {
		t.Errorf("prompts after the reload: %d, want p and q", len(prompts.Prompts))
	}
	_ = live.Close()
}

// TestCapabilitiesFollowReload: what a server declares besides tools is
// what the configuration it serves has, for every session that starts
// after a reload, over HTTP and over stdio with --watch (listChanged true:
// 2026-07-28 clients are sent list changes on their subscriptions/listen
// stream); and the methods of what it no longer declares are refused.
func TestCapabilitiesFollowReload(t *testing.T) {
	const none = `
tool "t" {
  description = "A tool."
  text        = "t"
}
`
	const served = none + `
resource_template "doc" {
  uri_template = "x://docs/{name}"
  arg "name" { type = string }
  text = expr("'doc ' + args.name")
}
prompt "p" {
  arg "topic" { enum = ["go", "hcl"] }
  message "user" { text = expr("'about ' + args.topic") }
}
`
	for _, overHTTP := range []bool{true, false} {
		t.Run(map[bool]string{true: "http", false: "stdio"}[overHTTP], func(t *testing.T) {
			live := server.NewLive(loadTools(t, none), nil, server.Options{Watch: true, HTTP: overHTTP})
			defer live.Close()
			var url string
			if overHTTP {
				ts := httptest.NewServer(live.HTTPHandler())
				defer ts.Close()
				url = ts.URL
			}
			session := func() *mcp.ClientSession {
				t.Helper()
				if overHTTP {
					cs, err := connectHTTP(t, url, "")
					if err != nil {
						t.Fatal(err)
					}
					return cs
				}
				return connectLive(t, live, "", nil)
			}
			check := func(stage string, want bool) {
				t.Helper()
				cs := session()
				caps := cs.InitializeResult().Capabilities
				if (caps.Prompts != nil) != want || (caps.Resources != nil) != want || (caps.Completions != nil) != want {
					t.Fatalf("%s: declared prompts %v, resources %v, completions %v; want all %v", stage, caps.Prompts, caps.Resources, caps.Completions, want)
				}
				if want && (!caps.Prompts.ListChanged || !caps.Resources.ListChanged) {
					t.Errorf("%s: listChanged prompts %v, resources %v; want true", stage, caps.Prompts.ListChanged, caps.Resources.ListChanged)
				}
				_, err := cs.ListPrompts(context.Background(), nil)
				if want && err != nil {
					t.Errorf("%s: prompts/list: %v", stage, err)
				}
				if !want && (err == nil || !strings.Contains(err.Error(), "this server declares no prompts")) {
					t.Errorf("%s: prompts/list answered %v, want it refused", stage, err)
				}
				if want {
					res, err := cs.Complete(context.Background(), &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "p"}, Argument: mcp.CompleteParamsArgument{Name: "topic", Value: "h"}})
					if err != nil || len(res.Completion.Values) != 1 || res.Completion.Values[0] != "hcl" {
						t.Errorf("%s: completion/complete: %v %v", stage, err, res)
					}
				}
			}
			check("before any reload", false)
			live.Swap(loadTools(t, served))
			check("after a reload that adds a prompt and a template", true)
			live.Swap(loadTools(t, none))
			check("after a reload that removes them", false)
		})
	}
}
