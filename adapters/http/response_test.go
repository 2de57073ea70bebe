package httpaction

import (
	"bytes"
	"context"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
)

// get is an action that GETs /{p} under the api at base.
func get(t *testing.T, base string, extra ...string) engine.Action {
	t.Helper()
	return newFixture(t).action(api(base) + `
http {
  api         = http_api.x
  path        = "/{p}"
  path_params = { p = expr("args.p") }
  ` + strings.Join(extra, "\n  ") + `
}`)
}

func TestStatusFailure(t *testing.T) {
	srv := httpbinServer(t)
	act := get(t, srv.URL+"/status")
	for _, code := range []int{404, 500} {
		resp, err := act.Run(context.Background(), map[string]any{"p": code})
		if err != nil {
			t.Fatal(err)
		}
		want := "HTTP " + strconv.Itoa(code) + " " + http.StatusText(code) + " from GET " + srv.URL + "/status/" + strconv.Itoa(code)
		if !strings.HasPrefix(resp.Failure, want) {
			t.Errorf("failure = %q, want %q", resp.Failure, want)
		}
		if resp.Vars["status"] != code {
			t.Errorf("status = %v", resp.Vars["status"])
		}
	}

	long := strings.Repeat("é", 400) // 800 bytes
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/busy":
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(503)
			_, _ = w.Write([]byte("\n  upstream\n\tis   busy\r\n"))
		case "/long":
			w.WriteHeader(500)
			_, _ = w.Write([]byte(long))
		case "/json":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(422)
			_, _ = w.Write([]byte(`{"error": "bad city"}`))
		case "/html":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(502)
			_, _ = w.Write([]byte(`<html>bad gateway</html>`))
		case "/teapot":
			w.WriteHeader(599)
		}
	})
	act = get(t, rec.URL)
	tests := []struct {
		p, want string
		body    any
	}{
		{"busy", "HTTP 503 Service Unavailable from GET " + rec.URL + "/busy: upstream is busy", "\n  upstream\n\tis   busy\r\n"},
		{"long", "HTTP 500 Internal Server Error from GET " + rec.URL + "/long: " + strings.Repeat("é", 256) + "…", long},
		{"json", "HTTP 422 Unprocessable Entity from GET " + rec.URL + `/json: {"error": "bad city"}`, map[string]any{"error": "bad city"}},
		{"html", "HTTP 502 Bad Gateway from GET " + rec.URL + "/html: <html>bad gateway</html>", "<html>bad gateway</html>"},
		{"teapot", "HTTP 599 from GET " + rec.URL + "/teapot", ""},
	}
	for _, tt := range tests {
		resp, err := act.Run(context.Background(), map[string]any{"p": tt.p})
		if err != nil {
			t.Errorf("%s: %v", tt.p, err)
			continue
		}
		if resp.Failure != tt.want {
			t.Errorf("%s: failure =\n%q\nwant\n%q", tt.p, resp.Failure, tt.want)
		}
		if !reflect.DeepEqual(resp.Vars["body"], tt.body) {
			t.Errorf("%s: body = %#v", tt.p, resp.Vars["body"])
		}
	}
}

func TestSizeCap(t *testing.T) {
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		if r.URL.Query().Get("chunked") != "" {
			// No Content-Length: the cap must hold while reading.
			for range n {
				_, _ = w.Write([]byte("x"))
				w.(http.Flusher).Flush()
			}
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(n))
		_, _ = w.Write(bytes.Repeat([]byte("x"), n))
	})
	f := newFixture(t)
	act := f.action(api(rec.URL, "  max_response_bytes = 1000") + `
http {
  api   = http_api.x
  path  = "/"
  query = { n = expr("args.n"), chunked = expr("args.chunked") }
  max_response_bytes = 100
}`)
	for _, chunked := range []any{nil, true} {
		resp, err := act.Run(context.Background(), map[string]any{"n": 100, "chunked": chunked})
		if err != nil || len(resp.Vars["body"].(string)) != 100 {
			t.Errorf("chunked %v, 100 bytes: %v", chunked, err)
		}
		_, err = act.Run(context.Background(), map[string]any{"n": 101, "chunked": chunked})
		want := "GET " + rec.URL + "/: the response body is larger than the limit of 100 bytes (max_response_bytes)"
		if err == nil || err.Error() != want {
			t.Errorf("chunked %v, 101 bytes: err = %v", chunked, err)
		}
	}

	// The api's limit applies when the action gives none.
	act = f.action(api(rec.URL, "  max_response_bytes = 10") + "http {\n  api = http_api.x\n  path = \"/?n=11\"\n}")
	if _, err := act.Run(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "limit of 10 bytes") {
		t.Errorf("api limit: err = %v", err)
	}
}

func TestBinaryContent(t *testing.T) {
	srv := httpbinServer(t)
	act := get(t, srv.URL+"/image")
	for _, p := range []string{"png", "jpeg", "webp"} {
		resp, err := act.Run(context.Background(), map[string]any{"p": p})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Content) != 1 {
			t.Fatalf("%s: content = %v", p, resp.Content)
		}
		c := resp.Content[0]
		if c.Type != engine.ImageContent || c.MIMEType != "image/"+p || len(c.Data) < 100 {
			t.Errorf("%s: content = %s %s, %d bytes", p, c.Type, c.MIMEType, len(c.Data))
		}
		if resp.Vars["body"] != nil || resp.Vars["content_type"] != "image/"+p {
			t.Errorf("%s: body = %T, content_type = %v", p, resp.Vars["body"], resp.Vars["content_type"])
		}
	}
	resp, _ := act.Run(context.Background(), map[string]any{"p": "png"})
	if !bytes.HasPrefix(resp.Content[0].Data, []byte("\x89PNG\r\n\x1a\n")) {
		t.Error("the PNG data is not a PNG")
	}

	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/audio":
			w.Header().Set("Content-Type", "Audio/MPEG; x=1")
			_, _ = w.Write([]byte("ID3\x03\x00"))
		case "/bin":
			w.Header().Set("Content-Type", "application/octet-stream")
			_, _ = w.Write([]byte{0xff, 0xfe, 0x00, 0x01})
		}
	})
	resp, err := get(t, rec.URL).Run(context.Background(), map[string]any{"p": "audio"})
	if err != nil {
		t.Fatal(err)
	}
	if c := resp.Content[0]; c.Type != engine.AudioContent || c.MIMEType != "audio/mpeg" || string(c.Data) != "ID3\x03\x00" {
		t.Errorf("audio content = %+v", c)
	}
	resp, err = get(t, rec.URL).Run(context.Background(), map[string]any{"p": "bin"})
	if err != nil {
		t.Fatal(err)
	}
	if c := resp.Content[0]; c.Type != engine.TextContent || c.Text != "(4 bytes of application/octet-stream, which cannot be shown as text)" || resp.Vars["body"] != nil {
		t.Errorf("binary content = %+v, body %v", c, resp.Vars["body"])
	}
}

func TestJSONDecoding(t *testing.T) {
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		if ct := r.URL.Query().Get("ct"); ct != "" {
			w.Header().Set("Content-Type", ct)
		} else {
			w.Header()["Content-Type"] = nil // no sniffing
		}
		w.Header().Add("X-Multi", "first")
		w.Header().Add("X-Multi", "second")
		_, _ = w.Write([]byte(r.URL.Query().Get("body")))
	})
	act := newFixture(t).action(api(rec.URL) + `
http {
  api   = http_api.x
  path  = "/"
  query = { ct = expr("args.ct"), body = expr("args.body") }
}`)
	tests := []struct {
		ct, body  string
		want      any
		mediaType string
		err       string
	}{
		{ct: "application/json; charset=utf-8", body: `{"n": 3, "f": 2.5, "big": 1e300, "l": [1, -2.0], "s": "x"}`,
			want: map[string]any{"n": 3, "f": 2.5, "big": 1e300, "l": []any{1, -2}, "s": "x"}, mediaType: "application/json"},
		{ct: "application/problem+json", body: `{"title": "x"}`, want: map[string]any{"title": "x"}, mediaType: "application/problem+json"},
		{ct: "", body: ` [1, "a"] `, want: []any{1, "a"}, mediaType: ""},
		{ct: "", body: `not json`, want: "not json", mediaType: ""},
		{ct: "", body: `{"broken"`, want: `{"broken"`, mediaType: ""},
		{ct: "text/plain", body: `{"a": 1}`, want: `{"a": 1}`, mediaType: "text/plain"},
		{ct: "application/json", body: ``, want: nil, mediaType: "application/json"},
		{ct: "application/json", body: `{"a": tru`, err: `it begins: {"a": tru`},
	}
	for _, tt := range tests {
		resp, err := act.Run(context.Background(), map[string]any{"ct": tt.ct, "body": tt.body})
		if tt.err != "" {
			if err == nil || !strings.HasSuffix(err.Error(), tt.err) ||
				!strings.HasPrefix(err.Error(), "GET "+rec.URL+"/: the response says it is JSON (application/json) but it is not valid JSON: ") {
				t.Errorf("%s %q: err = %v, want %s", tt.ct, tt.body, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %q: %v", tt.ct, tt.body, err)
			continue
		}
		if !reflect.DeepEqual(resp.Vars["body"], tt.want) {
			t.Errorf("%s %q: body = %#v, want %#v", tt.ct, tt.body, resp.Vars["body"], tt.want)
		}
		if resp.Vars["content_type"] != tt.mediaType {
			t.Errorf("%s: content_type = %q", tt.ct, resp.Vars["content_type"])
		}
		wantText := tt.body
		if wantText == "" {
			wantText = "HTTP 200 OK"
		}
		if len(resp.Content) != 1 || resp.Content[0].Type != engine.TextContent || resp.Content[0].Text != wantText {
			t.Errorf("%s %q: content = %+v", tt.ct, tt.body, resp.Content)
		}
		h := resp.Vars["headers"].(map[string]any)
		if h["x-multi"] != "first" || h["content-length"] != strconv.Itoa(len(tt.body)) {
			t.Errorf("headers = %v", h)
		}
	}
}

// TestEmptySuccess: an upstream that succeeds with no body (204, or 200
// with nothing) is shown as its status, so that a model reading the result
// knows the call worked; the programs still see an empty body.
func TestEmptySuccess(t *testing.T) {
	srv := httpbinServer(t)
	act := get(t, srv.URL+"/status")
	for _, tt := range []struct {
		code int
		want string
	}{
		{204, "HTTP 204 No Content"},
		{200, "HTTP 200 OK"},
	} {
		resp, err := act.Run(context.Background(), map[string]any{"p": tt.code})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Failure != "" {
			t.Errorf("%d: failure %q", tt.code, resp.Failure)
		}
		if len(resp.Content) != 1 || resp.Content[0].Text != tt.want {
			t.Errorf("%d: content = %+v, want the text %q", tt.code, resp.Content, tt.want)
		}
		if b := resp.Vars["body"]; b != nil && b != "" {
			t.Errorf("%d: body = %#v, want it empty", tt.code, b)
		}
	}
}
