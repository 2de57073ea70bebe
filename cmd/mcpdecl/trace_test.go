package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// traceUpstream answers GET /items/{id} with JSON that echoes the request's
// credentials, as some APIs do in their errors, and POST /notes with a long
// text body.
func traceUpstream(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/items/"):
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Request-Id", "req-77")
			_ = json.NewEncoder(w).Encode(map[string]any{
				"id":   strings.TrimPrefix(r.URL.Path, "/items/"),
				"seen": r.Header.Get("Authorization"),
			})
		case r.Method == http.MethodPost && r.URL.Path == "/notes":
			body, _ := io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusCreated)
			_, _ = io.WriteString(w, "created "+string(body)+" key="+r.Header.Get("X-Api-Key")+" "+strings.Repeat("x", 5000))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

const traceHTTPConfig = `
variable "base_url" {
  type = string
}
variable "token" {
  type      = string
  sensitive = true
}
variable "key" {
  type      = string
  sensitive = true
}

http_api "items" {
  base_url = var.base_url
  auth { bearer = var.token }
}

http_api "notes" {
  base_url = var.base_url
  auth {
    api_key {
      header = "X-Api-Key"
      value  = var.key
    }
  }
}

tool "get_item" {
  description = "One item."
  arg "id" {
    type = string
  }
  arg "units" {
    type    = string
    default = "metric"
  }
  http {
    api    = http_api.items
    method = "GET"
    path   = "/items/{id}"
    path_params = { id = expr("args.id") }
    query  = { units = expr("args.units") }
  }
  output "id" {
    type  = string
    value = expr("body.id")
  }
}

tool "add_note" {
  description = "Adds a note."
  arg "text" {
    type = string
  }
  http {
    api    = http_api.notes
    method = "POST"
    path   = "/notes"
    body   = { text = expr("args.text") }
  }
}
`

// TestTraceHTTP checks what call --trace shows of an HTTP call: the request
// as sent, credentials masked, and the response, its body cut to a
// readable size.
func TestTraceHTTP(t *testing.T) {
	up := traceUpstream(t)
	cfg := filepath.Join(t.TempDir(), "tools.hcl")
	write(t, cfg, traceHTTPConfig)
	vars := []string{"--var", "base_url=" + up.URL, "--var", "token=tok-bearer-123", "--var", "key=key-api-456"}
	secrets := []string{"tok-bearer-123", "key-api-456"}

	tests := []struct {
		name string
		args []string
		want []string // regular expressions, each matching a line of the trace
	}{{
		name: "bearer",
		args: []string{"get_item", `{"id": "a/b"}`},
		want: []string{
			`^== arguments \(.+\)$`,
			`^   args: \{"id":"a/b","units":"metric"\}$`,
			`^== http request \(.+\)$`,
			`^   method: GET$`,
			`^   url: ` + regexp.QuoteMeta(up.URL) + `/items/a%2Fb\?units=metric$`,
			`^     Authorization: Bearer \(sensitive\)$`,
			`^     User-Agent: mcpdecl`,
			`^== http response \(.+\)$`,
			`^   status: 200 OK$`,
			`^     X-Request-Id: req-77$`,
			`^     \{"id":"a/b","seen":"Bearer \(sensitive\)"\}$`,
			`^== output id \(.+\)$`,
			`^   value: "a/b"$`,
			`^== output validation \(.+\)$`,
		},
	}, {
		name: "api key and a long body",
		args: []string{"add_note", `{"text": "milk"}`},
		want: []string{
			`^== http request`,
			`^   method: POST$`,
			`^   url: ` + regexp.QuoteMeta(up.URL) + `/notes$`,
			`^     X-Api-Key: \(sensitive\)$`,
			`^     Content-Type: application/json$`,
			`^   body: \{"text":"milk"\}$`,
			`^   status: 201 Created$`,
			`^     created \{"text":"milk"\} key=\(sensitive\) x+… \(cut: \d+ bytes in all\)$`,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append(append([]string{"call", cfg}, tt.args...), vars...)
			if code := Main(append(args, "--trace"), strings.NewReader(""), &stdout, &stderr); code != exitOK {
				t.Fatalf("exit code %d\nstdout: %s\nstderr: %s", code, &stdout, &stderr)
			}
			trace := stderr.String()
			for _, w := range tt.want {
				if !regexp.MustCompile("(?m)" + w).MatchString(trace) {
					t.Errorf("the trace has no line matching %s:\n%s", w, trace)
				}
			}
			for _, s := range secrets {
				if strings.Contains(trace, s) || strings.Contains(stdout.String(), s) {
					t.Errorf("the secret %q shows:\n%s\n%s", s, trace, &stdout)
				}
			}
			if strings.Contains(stdout.String(), "== ") {
				t.Errorf("the trace went to stdout:\n%s", &stdout)
			}

			// The same stages as one JSON document, the body cut alike.
			stdout.Reset()
			stderr.Reset()
			if code := Main(append(args, "--trace=json"), strings.NewReader(""), &stdout, &stderr); code != exitOK {
				t.Fatalf("exit code %d\nstderr: %s", code, &stderr)
			}
			var doc struct {
				Tool   string
				Stages []struct {
					Stage  string
					Fields map[string]any
				}
				Result map[string]any
			}
			if err := json.Unmarshal(stderr.Bytes(), &doc); err != nil {
				t.Fatalf("--trace=json is not one JSON document: %v\n%s", err, &stderr)
			}
			var stages []string
			for _, s := range doc.Stages {
				stages = append(stages, s.Stage)
				if s.Stage == "http response" {
					if body, _ := s.Fields["body"].(string); len(body) > 2100 {
						t.Errorf("the response body takes %d bytes in the trace, more than its limit", len(body))
					}
				}
			}
			if got := strings.Join(stages, ","); !strings.HasPrefix(got, "arguments,http request,http response,action") {
				t.Errorf("stages %s, want arguments, http request, http response, action first", got)
			}
			if doc.Result == nil {
				t.Errorf("the JSON trace has no result:\n%s", &stderr)
			}
			for _, s := range secrets {
				if strings.Contains(stderr.String(), s) {
					t.Errorf("the secret %q shows in the JSON trace", s)
				}
			}
		})
	}
}
