//go:build unix

package execaction

import (
	"strconv"
	"strings"
	"testing"
)

// TestStderrSecretAtTheExcerptEdge checks that a secret a program prints
// where the excerpt of its stderr ends is hidden whole, not cut to a prefix
// that redaction cannot recognize: for a sensitive argument and a sensitive
// variable, on a failed exit and on a timeout.
func TestStderrSecretAtTheExcerptEdge(t *testing.T) {
	const (
		argSecret = "arg-secret-0123456789abcdefghijklmnopqrstuvwxyz"
		varSecret = "var-secret-0123456789abcdefghijklmnopqrstuvwxyz"
	)
	cfg, _ := mustLoad(t, `
variable "token" {
  default   = "`+varSecret+`"
  sensitive = true
}
tool "fails" {
  description = "d"
  arg "pw" { sensitive = true }
  arg "pad" { type = number }
  exec {
    command = ["sh", "-c", "printf '%0*d %s' \"$1\" 0 \"$2\" >&2; exit 3", "sh", expr("string(args.pad)"), expr("args.pw")]
  }
}
tool "fails_var" {
  description = "d"
  arg "pad" { type = number }
  exec {
    command = ["sh", "-c", "printf '%0*d %s' \"$1\" 0 \"$2\" >&2; exit 3", "sh", expr("string(args.pad)"), var.token]
  }
}
tool "hangs" {
  description = "d"
  arg "pw" { sensitive = true }
  arg "pad" { type = number }
  exec {
    command = ["sh", "-c", "printf '%0*d %s' \"$1\" 0 \"$2\" >&2; exec sleep 30", "sh", expr("string(args.pad)"), expr("args.pw")]
    timeout = "300ms"
  }
}
`)
	for _, pad := range []int{470, 490, 500} {
		for _, tool := range []string{"fails", "fails_var", "hangs"} {
			args := `{"pw": "` + argSecret + `", "pad": ` + strconv.Itoa(pad) + `}`
			if tool == "fails_var" {
				args = `{"pad": ` + strconv.Itoa(pad) + `}`
			}
			res := call(t, cfg, tool, args)
			text := res.Text()
			if !res.IsError {
				t.Fatalf("%s: the call succeeded: %s", tool, text)
			}
			if !strings.Contains(text, "00000") {
				t.Fatalf("%s: the error quotes no stderr: %s", tool, text)
			}
			if strings.Contains(text, "secret-0123") {
				t.Errorf("%s, pad %d: the error holds part of the secret: …%s", tool, pad, text[max(0, len(text)-80):])
			}
		}
	}
}

// TestOutputSecretAtTheMaxOutputCut checks that a secret a program prints
// where max_output cuts its output (truncate = true) is hidden whole, in
// the result's text and in stdout as programs see it.
func TestOutputSecretAtTheMaxOutputCut(t *testing.T) {
	const secret = "arg-secret-0123456789abcdefghijklmnopqrstuvwxyz"
	cfg, _ := mustLoad(t, `
tool "cut" {
  description = "d"
  arg "pw" { sensitive = true }
  exec {
    command    = ["sh", "-c", "printf '%0100d %s more text after the secret' 0 \"$1\"", "sh", expr("args.pw")]
    max_output = 120
    truncate   = true
  }
  output "out" {
    type  = string
    value = expr("stdout")
  }
  output "truncated" {
    type  = bool
    value = expr("truncated")
  }
}
`)
	res := call(t, cfg, "cut", `{"pw": "`+secret+`"}`)
	mustSucceed(t, res)
	out := structured(t, res)
	if strings.Contains(res.Text(), "arg-secret") || strings.Contains(out, "arg-secret") {
		t.Errorf("the result holds part of the secret: %s", out)
	}
	if !strings.Contains(out, `"truncated":true`) || !strings.Contains(out, "0000 ") {
		t.Errorf("structured = %s", out)
	}
}
