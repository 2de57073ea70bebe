package testrun_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	httpaction "github.com/mcpdecl/mcpdecl/adapters/http"
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
	"github.com/mcpdecl/mcpdecl/testrun"
)

// checkConfig is the configuration the tests below test: a tool with a
// sensitive argument and an integer output, over a mocked http_api.
const checkConfig = `
http_api "httpbin" {
  base_url = "https://httpbin.example.com"
}

tool "count" {
  description = "Counts the words of a text."
  arg "txt" {
    type      = string
    sensitive = true
  }
  arg "note" {
    type    = string
    default = ""
  }
  http {
    api    = http_api.httpbin
    method = "POST"
    path   = "/anything"
    body   = { t = expr("args.txt") }
  }
  output "words" {
    type  = integer
    value = expr("len(split(body.json.t, ' '))")
  }
}
`

// parseTest writes the configuration and a test file, and parses it.
func parseTest(t *testing.T, test string) ([]*testrun.File, string, string) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"tools.hcl": checkConfig, "tools.test.hcl": test} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	name := filepath.Join(dir, "tools.test.hcl")
	files, _, diags := testrun.Parse([]string{name}, nil)
	return files, enginetest.Describe(diags), name
}

// TestAssertionsCheckedAgainstTheTool: an assertion is compiled against
// the arguments and outputs of the tool its test calls, so that a typo in
// a name is an error when the file loads, with the name meant, and not an
// assertion that passes whatever the call returns.
func TestAssertionsCheckedAgainstTheTool(t *testing.T) {
	tests := []struct{ condition, want string }{
		{`structured.wrds != 5`, `2:41-2:42: Invalid expr program: The program "structured.wrds != 5" does not compile: unknown field wrds. Did you mean structured.words?`},
		{`args.text == nil`, `unknown field text. Did you mean args.txt?`},
		{`structured.words == 'four'`, `invalid operation: == (mismatched types int and string)`},
	}
	for _, tc := range tests {
		t.Run(tc.condition, func(t *testing.T) {
			files, got, _ := parseTest(t, `test "t" {
  assert { condition = expr("`+tc.condition+`") }
  tool = "count"
  args = { txt = "a b c d" }
  mock "http_api" "httpbin" {
    response { body = { json = { t = "a b c d" } } }
  }
}
`)
			if !strings.Contains(got, tc.want) {
				t.Errorf("want %q in:\n%s", tc.want, got)
			}
			if len(files) != 0 {
				t.Errorf("the file has errors, but is returned to run")
			}
		})
	}
}

// TestMockOfAnUndeclaredBlock: a mock named after no block of the
// configuration is an error of the test file, at the name, with the name
// meant, and the file does not run.
func TestMockOfAnUndeclaredBlock(t *testing.T) {
	files, got, _ := parseTest(t, `mock "http_api" "httpbn" {
  response { body = { json = { t = "a" } } }
}

test "t" {
  tool = "count"
  args = { txt = "a" }
  mock "database" "db" {}
}
`)
	for _, want := range []string{
		`1:17-1:25: Mock of an undeclared http_api: The configuration (`,
		`declares no http_api named "httpbn". Did you mean "httpbin"?`,
		`8:19-8:23: Mock of an undeclared database: `,
		`declares no database named "db", nor any other database: remove the mock.`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("want %q in:\n%s", want, got)
		}
	}
	if len(files) != 0 {
		t.Errorf("the file has errors, but is returned to run")
	}
}

// TestFailedAssertionShowsWhatItRead: a failed assertion says what its
// condition read, each path with its value, the values of sensitive
// arguments hidden wherever they appear; and the values are those of the
// declared types (words is an integer, so % works on it).
func TestFailedAssertionShowsWhatItRead(t *testing.T) {
	files, got, name := parseTest(t, `test "t" {
  tool = "count"
  args = { txt = "secret words here too" }
  mock "http_api" "httpbin" {
    response { body = { json = { t = "secret words here too" } } }
  }
  assert {
    condition = expr("structured.words % 2 == 0")
  }
  assert {
    condition = expr("structured.words == 1 && args.txt != '' && requests[0].body.t == 'x' && requests[1].path == '/'")
  }
}
`)
	if got != "" {
		t.Fatal(got)
	}
	r := &testrun.Runner{Registry: engine.NewRegistry(httpaction.New())}
	var res *testrun.Result
	if err := r.Run(context.Background(), r.Selected(files), func(r *testrun.Result) { res = r }); err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) != 1 || res.Diags.HasErrors() {
		t.Fatalf("want the second assertion alone to fail, got %+v %s", res.Failures, enginetest.Describe(res.Diags))
	}
	msg := res.Failures[0].Message
	want := `The condition expr("structured.words == 1 && args.txt != '' && requests[0].body.t == 'x' && requests[1].path == '/'") is false.
  structured.words = 4
  args.txt = (sensitive)
  requests[0].body.t = "(sensitive)"
  requests[1].path is absent`
	if msg != want {
		t.Errorf("got:\n%s\nwant:\n%s", msg, want)
	}
	if res.Failures[0].Range.Filename != name || res.Failures[0].Range.Start.Line != 11 {
		t.Errorf("the failure is at %v, want line 11 of the test file", res.Failures[0].Range)
	}
}

// TestUnclosedBlockInATestFile: a test file's missing } is reported at the
// block that lacks it, as a configuration's is, and alone.
func TestUnclosedBlockInATestFile(t *testing.T) {
	_, got, _ := parseTest(t, `test "t" {
  tool = "count"
  args = { txt = "a" }
  assert {
    condition = expr("structured.words == 1")

  mock "http_api" "httpbin" {
    response { body = { json = { t = "a" } } }
  }
}
`)
	if !strings.HasPrefix(got, `4:10-4:11: Unclosed configuration block: The block assert has no closing brace`) || strings.Count(got, "\n") != 1 {
		t.Errorf("want one error at the assert block, got:\n%s", got)
	}
}
