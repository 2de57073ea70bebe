package load_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestResourceErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
	}{
		{
			name: "resource without contents",
			src:  `resource "r" { uri = "x://r" }`,
			want: `1:1-1:13: Resource without contents: A resource needs contents`,
		},
		{
			name: "resource without uri",
			src:  `resource "r" { text = "hi" }`,
			want: `Missing required argument: The argument "uri" is required`,
		},
		{
			name: "file and text",
			src:  "resource \"r\" {\n  uri  = \"x://r\"\n  file = \"a.txt\"\n  text = \"hi\"\n}",
			want: `3:3-3:7: Both file and computed contents`,
		},
		{
			name: "missing file",
			src:  "resource \"r\" {\n  uri  = \"x://r\"\n  file = \"nope.txt\"\n}",
			want: `3:10-3:20: Cannot read the resource's file`,
		},
		{
			name: "file larger than max_result_bytes",
			src:  "server {\n  max_result_bytes = 4\n}\nresource \"r\" {\n  uri  = \"x://r\"\n  file = \"tools.hcl\"\n}",
			want: `6:10-6:21: Resource file too large`,
		},
		{
			name: "duplicate uri",
			src:  "resource \"a\" {\n  uri  = \"x://r\"\n  text = \"a\"\n}\nresource \"b\" {\n  uri  = \"x://r\"\n  text = \"b\"\n}",
			want: `6:10-6:17: Duplicate resource URI`,
		},
		{
			name: "tags on a resource, which toolsets do not select",
			src:  "resource \"r\" {\n  uri  = \"x://r\"\n  text = \"a\"\n  tags = [\"x\"]\n}",
			want: `4:3-4:7: Unsupported argument: An argument named "tags" is not expected here.`,
		},
		{
			name: "a resource takes no arguments",
			src:  "resource \"r\" {\n  uri  = \"x://r\"\n  text = \"a\"\n  arg \"x\" { type = string }\n}",
			want: `4:3-4:6: Unsupported block type: Blocks of type "arg" are not expected here.`,
		},
		{
			name: "template variable without arg",
			src:  "resource_template \"t\" {\n  uri_template = \"x://{id}/{part}\"\n  arg \"id\" { type = string }\n  text = expr(\"args.id\")\n}",
			want: `2:18-2:35: Invalid uri_template: The template's variable {part} has no arg block; declare arg "part" { type = string } to say what it may be.`,
		},
		{
			name: "arg that is no variable",
			src:  "resource_template \"t\" {\n  uri_template = \"x://{id}\"\n  arg \"id\" { type = string }\n  arg \"other\" { type = string }\n  text = expr(\"args.id\")\n}",
			want: `Invalid uri_template: The argument "other" is not a variable of the template "x://{id}"; its variables are id.`,
		},
		{
			name: "template typo in a program",
			src:  "resource_template \"t\" {\n  uri_template = \"x://{id}\"\n  arg \"id\" { type = string }\n  text = expr(\"args.di\")\n}",
			want: `Invalid expr program`,
		},
		{
			name: "message role",
			src:  "prompt \"p\" {\n  message \"system\" { text = \"x\" }\n}",
			want: `2:11-2:19: Invalid message role: A message is from the "user" or the "assistant", not "system".`,
		},
		{
			name: "message with two contents",
			src:  "prompt \"p\" {\n  message \"user\" {\n    text = \"x\"\n    content \"text\" { text = \"y\" }\n  }\n}",
			want: `Invalid message: A message has one content: text = … or one content block (text, image, audio, resource), not 2.`,
		},
		{
			name: "prompt without messages",
			src:  `prompt "p" { description = "d" }`,
			want: `1:1-1:11: Prompt without messages`,
		},
		{
			name: "prompt program reads an undeclared argument",
			src:  "prompt \"p\" {\n  arg \"topic\" {}\n  message \"user\" { text = expr(\"args.topik\") }\n}",
			want: `Invalid expr program`,
		},
		{
			name: "enum of numbers",
			src:  "prompt \"p\" {\n  arg \"n\" { enum = [1, 2] }\n  message \"user\" { text = \"x\" }\n}",
			want: `2:20-2:26: Invalid enum: A prompt argument is text`,
		},
		{
			name: "secret in a description",
			src:  "variable \"k\" {\n  default   = \"v\"\n  sensitive = true\n}\nprompt \"p\" {\n  description = \"key ${var.k}\"\n  message \"user\" { text = \"x\" }\n}",
			want: `Sensitive value shown to clients`,
		},
		{
			name: "complete on a tool's argument",
			src:  "tool \"t\" {\n  description = \"d\"\n  arg \"a\" {\n    complete { values = [\"x\"] }\n  }\n  text = \"x\"\n}",
			want: `4:5-4:13: Completion of a tool argument: A complete block offers completions for an argument of a resource_template or a prompt`,
		},
		{
			name: "complete without values",
			src:  "prompt \"p\" {\n  arg \"a\" {\n    complete {}\n  }\n  message \"user\" { text = \"x\" }\n}",
			want: `Missing required argument: The argument "values" is required`,
		},
		{
			name: "values not a list of text",
			src:  "prompt \"p\" {\n  arg \"a\" {\n    complete { values = expr(\"len(args.value)\") }\n  }\n  message \"user\" { text = \"x\" }\n}",
			want: `3:25-3:48: Wrong type for values: values is the list of texts to offer`,
		},
		{
			name: "complete reads an unknown argument",
			src:  "resource_template \"r\" {\n  uri_template = \"x://{id}\"\n  arg \"id\" {\n    complete { values = expr(\"[args.id]\") }\n  }\n  text = expr(\"args.id\")\n}",
			want: `Here a program can read args (value)`,
		},
		{
			name: "poll_interval too short",
			src:  "resource \"r\" {\n  uri           = \"x://r\"\n  poll_interval = \"100ms\"\n  text          = expr(\"string(now().Unix())\")\n}",
			want: `3:19-3:26: Invalid poll_interval: poll_interval is how often a subscribed resource is read again, to tell its subscribers when it changed (contents computed by an action only): at least 1s, not 100ms.`,
		},
		{
			name: "poll_interval on a file",
			src:  "resource \"r\" {\n  uri           = \"x://r\"\n  file          = \"tools.hcl\"\n  poll_interval = \"1m\"\n}",
			want: `4:3-4:16: Nothing to poll: A file resource is read when the configuration loads`,
		},
		{
			name: "poll_interval on contents that read the caller",
			src:  "resource_template \"r\" {\n  uri_template  = \"x://{id}\"\n  poll_interval = \"1m\"\n  arg \"id\" { type = string }\n  text = expr(\"args.id + caller.id\")\n}",
			want: `3:19-3:23: Polled contents read the caller`,
		},
		{
			name: "resource annotations out of range",
			src:  "resource \"r\" {\n  uri  = \"x://r\"\n  text = \"t\"\n  annotations {\n    priority = 2\n  }\n}",
			want: `5:16-5:17: Invalid priority`,
		},
		{
			name: "two annotations blocks on a template",
			src:  "resource_template \"r\" {\n  uri_template = \"x://{id}\"\n  arg \"id\" {}\n  text = expr(\"args.id\")\n  annotations {}\n  annotations {}\n}",
			want: `6:3-6:14: Duplicate annotations block`,
		},
		{
			name: "secret in a resource's icons",
			src:  "variable \"k\" {\n  default   = \"v\"\n  sensitive = true\n}\nresource \"r\" {\n  uri   = \"x://r\"\n  text  = \"t\"\n  icons = [{ src = \"https://x/${var.k}.png\" }]\n}",
			want: `Sensitive value shown to clients`,
		},
		{
			name: "two complete blocks",
			src:  "prompt \"p\" {\n  arg \"a\" {\n    complete { values = [] }\n    complete { values = [] }\n  }\n  message \"user\" { text = \"x\" }\n}",
			want: `4:5-4:13: Duplicate complete block`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := loadString(t, tc.src, nil, nil)
			got := describe(diags)
			if !diags.HasErrors() || !strings.Contains(got, tc.want) {
				t.Errorf("diagnostics:\n%s\nwant one containing:\n%s", got, tc.want)
			}
		})
	}
}

// TestResourceFileHint checks what the error of a resource's file that
// cannot be read says of its path: that a relative one is taken from the
// directory of the configuration file, and nothing of the kind for an
// absolute one.
func TestResourceFileHint(t *testing.T) {
	abs := filepath.Join(t.TempDir(), "nope.txt")
	for _, tc := range []struct{ path, want, notWant string }{
		{path: "nope.txt", want: "nope.txt: no such file or directory. The path is relative to the directory of this file.", notWant: "this process"},
		{path: abs, want: abs + ": no such file or directory. Give the path of a regular file this process can read.", notWant: "relative"},
	} {
		_, diags := loadString(t, fmt.Sprintf("resource \"r\" {\n  uri  = \"x://r\"\n  file = %q\n}", tc.path), nil, nil)
		got := describe(diags)
		if !strings.Contains(got, "Cannot read the resource's file") || !strings.Contains(got, tc.want) || strings.Contains(got, tc.notWant) {
			t.Errorf("file = %q: diagnostics:\n%s\nwant one containing %q, and nothing of %q", tc.path, got, tc.want, tc.notWant)
		}
	}
}
