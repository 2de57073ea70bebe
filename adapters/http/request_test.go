package httpaction

import (
	"context"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
)

func TestPathEscaping(t *testing.T) {
	tests := []struct {
		value any
		want  string // the escaped segment the server receives
	}{
		{"paris", "paris"},
		{"../../admin", "..%2F..%2Fadmin"},
		{"a/b", "a%2Fb"},
		{"?x=1#frag", "%3Fx=1%23frag"},
		{"%2F", "%252F"},
		{".", "%2E"},
		{"..", "%2E%2E"},
		{"...", "..."},
		{"a b", "a%20b"},
		{"münchen", "m%C3%BCnchen"},
		{"a;b,c", "a%3Bb%2Cc"},
		{"@evil.com", "@evil.com"},
		{"//evil.com", "%2F%2Fevil.com"},
		{42, "42"},
		{2.5, "2.5"},
		{true, "true"},
	}
	rec := newRecorder(t, nil)
	f := newFixture(t)
	act := f.action(api(rec.URL+"/base/") + `
http {
  api         = http_api.x
  path        = "/items/{id}/detail"
  path_params = { id = expr("args.id") }
}`)
	for _, tt := range tests {
		resp, err := act.Run(context.Background(), map[string]any{"id": tt.value})
		if err != nil {
			t.Errorf("%q: %v", tt.value, err)
			continue
		}
		if resp.Vars["status"] != 200 {
			t.Errorf("%q: status %v", tt.value, resp.Vars["status"])
		}
		r := rec.last(t)
		if want := "/base/items/" + tt.want + "/detail"; r.RequestURI != want {
			t.Errorf("%q: the server saw %s, want %s", tt.value, r.RequestURI, want)
		}
		if r.Host != strings.TrimPrefix(rec.URL, "http://") {
			t.Errorf("%q: the request reached host %s", tt.value, r.Host)
		}
		// The value is one segment: base, items, value, detail.
		if segs := strings.Split(strings.Trim(r.URL.EscapedPath(), "/"), "/"); len(segs) != 4 {
			t.Errorf("%q: the path has %d segments: %v", tt.value, len(segs), segs)
		}
	}

	for _, bad := range []any{"", nil, []any{"a"}, map[string]any{}} {
		before := rec.count()
		_, err := act.Run(context.Background(), map[string]any{"id": bad})
		if err == nil || !strings.Contains(err.Error(), `path parameter "id"`) {
			t.Errorf("%#v: err = %v, want a path parameter error", bad, err)
		}
		if rec.count() != before {
			t.Errorf("%#v: the request was sent", bad)
		}
	}
}

func TestURLWithoutAPI(t *testing.T) {
	rec := newRecorder(t, nil)
	f := newFixture(t)
	act := f.action(`
http {
  method      = "delete"
  url         = "` + rec.URL + `/v1/users/{id}?force=true"
  path_params = { id = expr("args.id") }
  query       = { reason = "a b" }
}`)
	if _, err := act.Run(context.Background(), map[string]any{"id": "../x"}); err != nil {
		t.Fatal(err)
	}
	r := rec.last(t)
	if r.Method != "DELETE" || r.RequestURI != "/v1/users/..%2Fx?force=true&reason=a+b" {
		t.Errorf("got %s %s", r.Method, r.RequestURI)
	}
}

func TestQueryEncoding(t *testing.T) {
	rec := newRecorder(t, nil)
	f := newFixture(t)
	act := f.action(api(rec.URL+"/?v=2") + `
http {
  api   = http_api.x
  path  = "/search?fixed=1"
  query = {
    tags    = expr("args.tags")
    missing = expr("args.missing")
    n       = expr("args.n")
    f       = expr("args.f")
    yes     = expr("args.yes")
    text    = expr("args.text")
    const   = 3
    nulls   = null
    list    = ["a", 1, null, true]
  }
}`)
	_, err := act.Run(context.Background(), map[string]any{
		"tags": []any{"x", "y z", nil}, "missing": nil, "n": 1234567, "f": 0.000001,
		"yes": false, "text": "a&b=c?d#e+",
	})
	if err != nil {
		t.Fatal(err)
	}
	r := rec.last(t)
	want := "v=2&fixed=1&const=3&list=a&list=1&list=true&f=0.000001&n=1234567&tags=x&tags=y+z&text=a%26b%3Dc%3Fd%23e%2B&yes=false"
	if r.URL.RawQuery != want {
		t.Errorf("query = %s\nwant    %s", r.URL.RawQuery, want)
	}
	q := r.URL.Query()
	if _, ok := q["missing"]; ok {
		t.Error("a null parameter was sent")
	}
	if got := q["tags"]; !reflect.DeepEqual(got, []string{"x", "y z"}) {
		t.Errorf("tags = %q", got)
	}
	if q.Get("text") != "a&b=c?d#e+" {
		t.Errorf("text = %q", q.Get("text"))
	}

	if _, err := act.Run(context.Background(), map[string]any{"tags": map[string]any{"a": 1}}); err == nil ||
		!strings.Contains(err.Error(), `query parameter "tags" must be`) {
		t.Errorf("a map parameter: err = %v", err)
	}
}

func TestDynamicQueryAndHeaders(t *testing.T) {
	rec := newRecorder(t, nil)
	f := newFixture(t)
	act := f.action(api(rec.URL) + `
http {
  api     = http_api.x
  path    = "/"
  query   = expr("args.filters")
  headers = expr("args.headers")
}`)
	_, err := act.Run(context.Background(), map[string]any{
		"filters": map[string]any{"b": 2, "a": []any{"x", "y"}, "c": nil},
		"headers": map[string]any{"x-one": "1", "X-Two": []any{"a", "b"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := rec.last(t)
	if r.URL.RawQuery != "a=x&a=y&b=2" {
		t.Errorf("query = %s", r.URL.RawQuery)
	}
	if r.Header.Get("X-One") != "1" || !reflect.DeepEqual(r.Header.Values("X-Two"), []string{"a", "b"}) {
		t.Errorf("headers = %v", r.Header)
	}
	for _, h := range []map[string]any{{"Host": "evil.com"}, {"bad name": "x"}, {"X-A": "a\nb"}} {
		_, err := act.Run(context.Background(), map[string]any{"headers": h})
		if err == nil {
			t.Errorf("%v: no error", h)
		}
	}
}

func TestHeaders(t *testing.T) {
	rec := newRecorder(t, nil)
	f := newFixture(t)
	act := f.action(api(rec.URL, `  headers = { "User-Agent" = "ua/1", "X-Api" = "api", "X-Both" = "api" }`) + `
http {
  api     = http_api.x
  path    = "/"
  headers = {
    "x-both"  = "action"
    "X-Name"  = expr("args.name")
    "X-Count" = expr("args.n")
    "X-Gone"  = expr("args.none")
  }
}`)
	if _, err := act.Run(context.Background(), map[string]any{"name": "Zoë", "n": 3}); err != nil {
		t.Fatal(err)
	}
	h := rec.last(t).Header
	for k, want := range map[string]string{"User-Agent": "ua/1", "X-Api": "api", "X-Both": "action", "X-Name": "Zoë", "X-Count": "3"} {
		if got := h.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if _, ok := h["X-Gone"]; ok {
		t.Error("a null header was sent")
	}

	for _, v := range []string{"a\r\nX-Evil: 1", "a\nb", "a\rb", "a\x00b"} {
		before := rec.count()
		_, err := act.Run(context.Background(), map[string]any{"name": v, "n": 1})
		if err == nil || !strings.Contains(err.Error(), "line break") {
			t.Errorf("%q: err = %v, want a refusal", v, err)
		}
		if rec.count() != before {
			t.Errorf("%q: the request was sent", v)
		}
	}
}

func TestBodies(t *testing.T) {
	srv := httpbinServer(t)
	f := newFixture(t)
	tests := []struct {
		name  string
		block string
		check func(t *testing.T, body map[string]any)
	}{{
		name: "json",
		block: `method = "POST"
  body = {
    name   = expr("args.name")
    nested = { list = [1, expr("args.n"), { deep = expr("args.name + '!'") }], fixed = "x" }
    all    = expr("args")
  }`,
		check: func(t *testing.T, body map[string]any) {
			want := map[string]any{
				"name":   "Zoë <b>",
				"nested": map[string]any{"list": []any{1, 7, map[string]any{"deep": "Zoë <b>!"}}, "fixed": "x"},
				"all":    map[string]any{"name": "Zoë <b>", "n": 7},
			}
			if !reflect.DeepEqual(body["json"], want) {
				t.Errorf("json = %#v", body["json"])
			}
			if ct := body["headers"].(map[string]any)["Content-Type"]; !reflect.DeepEqual(ct, []any{"application/json"}) {
				t.Errorf("Content-Type = %v", ct)
			}
		},
	}, {
		name:  "fixed json",
		block: "method = \"PUT\"\n  body = { a = [1, 2], b = null }",
		check: func(t *testing.T, body map[string]any) {
			if body["data"] != `{"a":[1,2],"b":null}` {
				t.Errorf("data = %v", body["data"])
			}
		},
	}, {
		name:  "form",
		block: "method = \"POST\"\n  form = { name = expr(\"args.name\"), n = expr(\"args.n\"), tags = [\"a\", \"b\"], skip = null }",
		check: func(t *testing.T, body map[string]any) {
			want := map[string]any{"name": []any{"Zoë <b>"}, "n": []any{"7"}, "tags": []any{"a", "b"}}
			if !reflect.DeepEqual(body["form"], want) {
				t.Errorf("form = %#v", body["form"])
			}
		},
	}, {
		name:  "raw",
		block: "method = \"PATCH\"\n  raw_body = expr(\"'<x>' + args.name + '</x>'\")\n  content_type = \"text/plain; charset=latin1\"",
		check: func(t *testing.T, body map[string]any) {
			if body["data"] != "<x>Zoë <b></x>" {
				t.Errorf("data = %v", body["data"])
			}
			if ct := body["headers"].(map[string]any)["Content-Type"]; !reflect.DeepEqual(ct, []any{"text/plain; charset=latin1"}) {
				t.Errorf("Content-Type = %v", ct)
			}
		},
	}, {
		name:  "get with body",
		block: "body = expr(\"args.n\")",
		check: func(t *testing.T, body map[string]any) {
			if body["data"] != "7" || body["method"] != "GET" {
				t.Errorf("data = %v, method = %v", body["data"], body["method"])
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := f.run(api(srv.URL)+"http {\n  api = http_api.x\n  path = \"/anything\"\n  "+tt.block+"\n}", map[string]any{"name": "Zoë <b>", "n": 7})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Failure != "" {
				t.Fatal(resp.Failure)
			}
			tt.check(t, resp.Vars["body"].(map[string]any))
		})
	}
}

func TestAuth(t *testing.T) {
	srv := httpbinServer(t)
	tests := []struct {
		name, auth, path string
		secrets          []string
	}{{
		name: "bearer", auth: `bearer = "tok-123456"`, path: "/bearer",
		secrets: []string{"tok-123456"},
	}, {
		name: "basic", auth: `basic {
      username = "ann"
      password = "pa:ss word"
    }`, path: "/basic-auth/ann/pa:ss%20word",
		secrets: []string{"pa:ss word", base64.StdEncoding.EncodeToString([]byte("ann:pa:ss word"))},
	}, {
		name: "api_key header", auth: `api_key {
      header = "X-Key"
      value  = "k-987654"
    }`, path: "/headers",
		secrets: []string{"k-987654"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			resp, err := f.run(api(srv.URL, "  auth {\n    "+tt.auth+"\n  }")+`
http {
  api  = http_api.x
  path = "`+tt.path+`"
}`, nil)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Failure != "" {
				t.Fatal(resp.Failure)
			}
			if tt.name == "api_key header" {
				h := resp.Vars["body"].(map[string]any)["headers"].(map[string]any)
				if !reflect.DeepEqual(h["X-Key"], []any{"k-987654"}) {
					t.Errorf("headers = %v", h)
				}
			}
			for _, s := range tt.secrets {
				if got := f.redactor.Redact("<" + s + ">"); got != "<(sensitive)>" {
					t.Errorf("the redactor does not know the credential %q: %s", s, got)
				}
			}
		})
	}

	t.Run("api_key query", func(t *testing.T) {
		rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
		})
		f := newFixture(t)
		resp, err := f.run(api(rec.URL, `  auth {
    api_key {
      query = "api key"
      value = "s3cr3t&x"
    }
  }`)+`
http {
  api   = http_api.x
  path  = "/q"
  query = { q = "1" }
}`, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := rec.last(t).URL.Query().Get("api key"); got != "s3cr3t&x" {
			t.Errorf("key = %q", got)
		}
		if strings.Contains(resp.Failure, "s3cr3t") || !strings.HasSuffix(resp.Failure, rec.URL+"/q") {
			t.Errorf("failure = %q", resp.Failure)
		}
	})
}

func TestTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("secure"))
	}))
	t.Cleanup(srv.Close)
	block := `
http {
  api  = http_api.x
  path = "/"
}`

	t.Run("ca_file", func(t *testing.T) {
		f := newFixture(t)
		pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
		if err := os.WriteFile(filepath.Join(f.dir, "ca.pem"), pemBytes, 0o600); err != nil {
			t.Fatal(err)
		}
		resp, err := f.run(api(srv.URL, `  tls { ca_file = "ca.pem" }`)+block, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Vars["body"] != "secure" {
			t.Errorf("body = %v", resp.Vars["body"])
		}
	})
	t.Run("untrusted", func(t *testing.T) {
		f := newFixture(t)
		_, err := f.run(api(srv.URL)+block, nil)
		if err == nil || !strings.Contains(err.Error(), "certificate is not trusted") || !strings.Contains(err.Error(), "GET "+srv.URL+"/") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("insecure", func(t *testing.T) {
		f := newFixture(t)
		if _, err := f.run(api(srv.URL, `  tls { insecure_skip_verify = true }`)+block, nil); err != nil {
			t.Error(err)
		}
	})
	t.Run("tls to plain http", func(t *testing.T) {
		plain := newRecorder(t, nil)
		f := newFixture(t)
		_, err := f.run(api(strings.Replace(plain.URL, "http:", "https:", 1))+block, nil)
		if err == nil || !strings.Contains(err.Error(), "TLS handshake failed") {
			t.Errorf("err = %v", err)
		}
	})
}

func TestOriginGuard(t *testing.T) {
	rec := newRecorder(t, nil)
	other := newRecorder(t, nil)
	f := newFixture(t)
	act := f.action(api(rec.URL) + "http {\n  api = http_api.x\n  path = \"/\"\n}").(*action)
	// Nothing an argument can do reaches this: force a foreign URL.
	_, err := act.api.client.R().Execute("GET", other.URL+"/x")
	if err == nil || !strings.Contains(err.Error(), "refusing to send a request to "+other.URL) {
		t.Errorf("err = %v", err)
	}
	if other.count() != 0 {
		t.Error("the request reached another host")
	}
}

func TestRedirects(t *testing.T) {
	other := newRecorder(t, nil)
	otherHost := strings.TrimPrefix(other.URL, "http://")
	var rec *recorder
	rec = newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/here":
			http.Redirect(w, r, "/there", http.StatusFound)
		case "/away":
			http.Redirect(w, r, other.URL+"/stolen?q=1", http.StatusFound)
		default:
			_, _ = w.Write([]byte("arrived"))
		}
	})
	action := func(extra string) engine.Action {
		f := newFixture(t)
		return f.action(api(rec.URL, `  auth {
    api_key {
      header = "X-Key"
      value  = "key-123456"
    }
  }
  headers = { "X-Tenant" = "acme", "Accept" = "application/json" }`, extra) + `
http {
  api         = http_api.x
  path        = "/{p}"
  path_params = { p = expr("args.p") }
}`)
	}

	act := action("")
	resp, err := act.Run(context.Background(), map[string]any{"p": "here"})
	if err != nil || resp.Vars["body"] != "arrived" {
		t.Errorf("same host: %v, %v", resp, err)
	}
	// Another host: refused, with what to do, and nothing sent there.
	_, err = act.Run(context.Background(), map[string]any{"p": "away"})
	want := "the upstream redirected the request to " + other.URL + "/stolen, which this action may not reach; to follow it, add its host to allowed_hosts"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "q=1") {
		t.Errorf("err = %v, want %q", err, want)
	}
	if other.count() != 0 {
		t.Errorf("%d requests reached the other host", other.count())
	}

	// Allowed: followed, without the credentials of the api.
	act = action(fmt.Sprintf("  allowed_hosts = [%q]", otherHost))
	resp, err = act.Run(context.Background(), map[string]any{"p": "away"})
	if err != nil || resp.Vars["status"] != 200 || other.count() != 1 {
		t.Fatalf("allowed host: %v, %v, %d requests there", resp, err, other.count())
	}
	got := other.last(t).Header
	if got.Get("X-Key") != "" || got.Get("X-Tenant") != "" || got.Get("Authorization") != "" {
		t.Errorf("credentials followed the redirect: %v", got)
	}
	if got.Get("Accept") != "application/json" || got.Get("User-Agent") != "mcpdecl" {
		t.Errorf("safe headers dropped: %v", got)
	}
}

func TestConcurrentRuns(t *testing.T) {
	srv := httpbinServer(t)
	f := newFixture(t)
	act := f.action(api(srv.URL, `  headers = { "X-Api" = "1" }`) + `
http {
  api         = http_api.x
  method      = "POST"
  path        = "/anything/{id}"
  path_params = { id = expr("args.id") }
  query       = { n = expr("args.n") }
  headers     = { "X-N" = expr("args.n") }
  body        = { n = expr("args.n") }
}`)
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			resp, err := act.Run(context.Background(), map[string]any{"id": "a/b", "n": i})
			if err != nil {
				t.Error(err)
				return
			}
			body := resp.Vars["body"].(map[string]any)
			if got := body["json"].(map[string]any)["n"]; got != i {
				t.Errorf("call %d got the body of %v", i, got)
			}
		})
	}
	wg.Wait()
}
