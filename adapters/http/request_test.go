package httpaction

import (
	"context"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/zclconf/go-cty/cty"

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

// The http_api's query attribute is sent with every request, after the
// base URL's query; an action's parameter of the same name, fixed or per
// call, is sent instead.
func TestAPIQuery(t *testing.T) {
	rec := newRecorder(t, nil)
	cases := []struct{ action, want string }{
		{`path = "/"`, "v=2&api-version=2022-11-01&a+b=x%26y&both=api"},
		{`path = "/?both=path"`, "v=2&api-version=2022-11-01&a+b=x%26y&both=path"},
		{`
  path  = "/"
  query = { both = expr("args.name"), "api-version" = "2024-01-01" }`, "v=2&a+b=x%26y&api-version=2024-01-01&both=Zo%C3%AB"},
		{`
  path  = "/"
  query = expr("args.filters")`, "v=2&api-version=2022-11-01&a+b=x%26y&both=api&both=mine"},
	}
	for _, c := range cases {
		f := newFixture(t)
		act := f.action(api(rec.URL+"/?v=2", `  query = { "api-version" = "2022-11-01", "a b" = "x&y", both = "api" }`) + `
http {
  api = http_api.x
  ` + c.action + `
}`)
		if _, err := act.Run(context.Background(), map[string]any{"name": "Zoë", "filters": map[string]any{"both": "mine"}}); err != nil {
			t.Fatal(err)
		}
		if got := rec.last(t).URL.RawQuery; got != c.want {
			t.Errorf("%s:\nquery = %s\nwant    %s", c.action, got, c.want)
		}
	}

	f := newFixture(t)
	f.vars["key"] = cty.StringVal("s3cret").Mark(engine.SensitiveMark)
	_, diags := f.decode(api(rec.URL, `  query = { key = var.key }`))
	if text := diagsText(diags); !strings.Contains(text, "Secret in the query string") || !strings.Contains(text, "api_key") || strings.Contains(text, "s3cret") {
		t.Errorf("a sensitive query value: %s", text)
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
		name:  "multipart",
		block: "method = \"POST\"\n  multipart = { name = expr(\"args.name\"), n = expr(\"args.n\"), tags = [\"a\", \"b\"], meta = { k = 1 }, skip = null }",
		check: func(t *testing.T, body map[string]any) {
			want := map[string]any{"name": []any{"Zoë <b>"}, "n": []any{"7"}, "tags": []any{"a", "b"}, "meta": []any{`{"k":1}`}}
			if !reflect.DeepEqual(body["form"], want) {
				t.Errorf("form = %#v", body["form"])
			}
			ct := body["headers"].(map[string]any)["Content-Type"].([]any)
			if len(ct) != 1 || !strings.HasPrefix(ct[0].(string), "multipart/form-data; boundary=") {
				t.Errorf("Content-Type = %v", ct)
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
		name:  "null body",
		block: "method = \"POST\"\n  body = expr(\"args.n > 5 ? nil : {'n': args.n}\")",
		check: func(t *testing.T, body map[string]any) {
			if body["data"] != "" {
				t.Errorf("data = %q, want no body", body["data"])
			}
			if ct, ok := body["headers"].(map[string]any)["Content-Type"]; ok {
				t.Errorf("Content-Type = %v, want none without a body", ct)
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

// TestRedirects has one upstream redirect to a second host: refused unless
// allowed, and followed without any of the api's credentials when allowed.
func TestRedirects(t *testing.T) {
	other := newRecorder(t, nil)
	otherHost := strings.TrimPrefix(other.URL, "http://")
	// back sends the request back where its query says.
	back := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	var rec *recorder
	rec = newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/here":
			http.Redirect(w, r, "/there", http.StatusFound)
		case "/away":
			// Keeps the query string, as a move to a new host often does.
			http.Redirect(w, r, other.URL+"/stolen?"+r.URL.RawQuery, http.StatusFound)
		case "/keyed":
			// Puts the key where it cannot be stripped.
			http.Redirect(w, r, other.URL+"/k/"+r.URL.Query().Get("key"), http.StatusFound)
		case "/back":
			// Away, then back to the upstream.
			http.Redirect(w, r, back.URL+"/return?to="+url.QueryEscape(rec.URL+"/there"), http.StatusFound)
		default:
			_, _ = w.Write([]byte("arrived"))
		}
	})
	const headers = `  headers = { "X-Tenant" = "acme", "Accept" = "application/json" }`
	action := func(auth string, extra ...string) engine.Action {
		f := newFixture(t)
		return f.action(api(rec.URL, append([]string{"  auth {\n    " + auth + "\n  }", headers}, extra...)...) + `
http {
  api         = http_api.x
  path        = "/{p}"
  path_params = { p = expr("args.p") }
  query       = { page = 2 }
}`)
	}
	const apiKeyHeader = "api_key {\n      header = \"X-Key\"\n      value  = \"key-123456\"\n    }"
	const apiKeyQuery = "api_key {\n      query = \"key\"\n      value = \"key-654321\"\n    }"

	t.Run("same host", func(t *testing.T) {
		resp, err := action(apiKeyHeader).Run(context.Background(), map[string]any{"p": "here"})
		if err != nil || resp.Vars["body"] != "arrived" {
			t.Fatalf("%v, %v", resp, err)
		}
		if got := rec.last(t); got.URL.Path != "/there" || got.Header.Get("X-Key") != "key-123456" {
			t.Errorf("the upstream saw %s with X-Key %q", got.URL.Path, got.Header.Get("X-Key"))
		}
	})

	t.Run("other host refused", func(t *testing.T) {
		before := other.count()
		_, err := action(apiKeyQuery).Run(context.Background(), map[string]any{"p": "away"})
		want := "GET " + rec.URL + "/away failed: the upstream redirected it to " + other.URL +
			`/stolen, on another host; to follow the redirect, add "` + otherHost + `" to allowed_hosts`
		if err == nil || err.Error() != want {
			t.Errorf("err  = %v\nwant %s", err, want)
		}
		if other.count() != before {
			t.Errorf("the other host received a request")
		}
	})

	allowed := fmt.Sprintf("  allowed_hosts = [%q]", otherHost)
	for _, tt := range []struct{ name, auth string }{
		{"bearer", `bearer = "tok-123456"`},
		{"basic", "basic {\n      username = \"ann\"\n      password = \"pw-123456\"\n    }"},
		{"api_key header", apiKeyHeader},
		{"api_key query", apiKeyQuery},
	} {
		t.Run("allowed host without "+tt.name, func(t *testing.T) {
			before := other.count()
			resp, err := action(tt.auth, allowed).Run(context.Background(), map[string]any{"p": "away"})
			if err != nil || resp.Vars["status"] != 200 || other.count() != before+1 {
				t.Fatalf("%v, %v, %d requests there", resp, err, other.count()-before)
			}
			got := other.last(t)
			if got.URL.Path != "/stolen" || got.URL.RawQuery != "page=2" {
				t.Errorf("the other host saw %s?%s, want /stolen?page=2", got.URL.Path, got.URL.RawQuery)
			}
			for _, h := range []string{"Authorization", "X-Key", "X-Tenant", "Referer", "Cookie"} {
				if v := got.Header.Get(h); v != "" {
					t.Errorf("%s followed the redirect: %q", h, v)
				}
			}
			if got.Header.Get("Accept") != "application/json" || got.Header.Get("User-Agent") != "mcpdecl" {
				t.Errorf("safe headers dropped: %v", got.Header)
			}
		})
	}

	t.Run("key in the redirect's path", func(t *testing.T) {
		before := other.count()
		_, err := action(apiKeyQuery, allowed).Run(context.Background(), map[string]any{"p": "keyed"})
		want := "GET " + rec.URL + "/keyed failed: the upstream redirected it to " + other.URL +
			", on another host, with the api's key in the URL; the redirect was not followed"
		if err == nil || err.Error() != want {
			t.Errorf("err  = %v\nwant %s", err, want)
		}
		if other.count() != before {
			t.Errorf("the other host received a request")
		}
	})

	t.Run("away and back", func(t *testing.T) {
		allowBack := fmt.Sprintf("  allowed_hosts = [%q]", strings.TrimPrefix(back.URL, "http://"))
		resp, err := action(apiKeyHeader, allowBack).Run(context.Background(), map[string]any{"p": "back"})
		if err != nil || resp.Vars["body"] != "arrived" {
			t.Fatalf("%v, %v", resp, err)
		}
		if got := back.last(t); got.Header.Get("X-Key") != "" {
			t.Errorf("the key followed the redirect to another host")
		}
		if got := rec.last(t); got.URL.Path != "/there" {
			t.Errorf("the upstream saw %s last, want /there", got.URL.Path)
		}
	})
}

// TestRedirectsWithoutAPI checks allowed_hosts on an action with a fixed
// url, and on one whose url is a program: every hop is checked.
func TestRedirectsWithoutAPI(t *testing.T) {
	other := newRecorder(t, nil)
	otherHost := strings.TrimPrefix(other.URL, "http://")
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/moved", http.StatusFound)
	})
	host := strings.TrimPrefix(rec.URL, "http://")

	for _, tt := range []struct{ name, block, err string }{
		{"fixed url, not allowed", fmt.Sprintf(`url = %q`, rec.URL+"/x"),
			"GET " + rec.URL + "/x failed: the upstream redirected it to " + other.URL + `/moved, on another host; to follow the redirect, add "` + otherHost + `" to allowed_hosts`},
		{"fixed url, allowed", fmt.Sprintf("url = %q\n  allowed_hosts = [%q]", rec.URL+"/x", otherHost), ""},
		{"program url, not allowed", fmt.Sprintf("url = expr(\"args.u\")\n  allowed_hosts = [%q]", host),
			"GET " + rec.URL + "/x failed: the upstream redirected it to " + other.URL + `/moved, on another host; to follow the redirect, add "` + otherHost + `" to allowed_hosts`},
		{"program url, allowed", fmt.Sprintf("url = expr(\"args.u\")\n  allowed_hosts = [%q, %q]", host, otherHost), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := other.count()
			act := newFixture(t).action("http {\n  headers = { \"X-Secret\" = \"s\" }\n  " + tt.block + "\n}")
			resp, err := act.Run(context.Background(), map[string]any{"u": rec.URL + "/x"})
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Errorf("err  = %v\nwant %s", err, tt.err)
				}
				if other.count() != before {
					t.Error("the other host received a request")
				}
				return
			}
			if err != nil || resp.Vars["status"] != 200 || other.count() != before+1 {
				t.Fatalf("%v, %v, %d requests there", resp, err, other.count()-before)
			}
			if got := other.last(t); got.URL.Path != "/moved" || got.Header.Get("X-Secret") != "" {
				t.Errorf("the other host saw %s with X-Secret %q", got.URL.Path, got.Header.Get("X-Secret"))
			}
		})
	}
}

// TestRedirectPolicy covers what two local test servers cannot show:
// default ports, the upgrade from http to https, and stripping the key.
func TestRedirectPolicy(t *testing.T) {
	allowed := hostList{}
	for _, s := range []string{"cdn.example.com", "*.example.org"} {
		e, err := parseHost(s)
		if err != nil {
			t.Fatal(err)
		}
		allowed = append(allowed, e)
	}
	r := &reach{scheme: "http", host: "api.example.com", allowed: allowed, keyParam: "key", key: "k-secret"}
	tests := []struct {
		from, to string
		want     string // "" when followed, else the error
		after    string // the URL followed, once the key is stripped
	}{
		{"http://api.example.com/a", "http://api.example.com/b", "", ""},
		{"http://api.example.com/a", "https://api.example.com/b", "", ""},
		{"http://api.example.com/a", "https://api.example.com:8443/b", "the upstream redirected it to https://api.example.com:8443/b, on another host; to follow the redirect, add \"api.example.com:8443\" to allowed_hosts", ""},
		{"http://api.example.com/a", "http://api.example.com:8080/b", "the upstream redirected it to http://api.example.com:8080/b, on another host; to follow the redirect, add \"api.example.com:8080\" to allowed_hosts", ""},
		{"https://cdn.example.com/a", "http://api.example.com/b", "the upstream redirected it from https to plain http (http://api.example.com/b), which is never followed", ""},
		{"http://api.example.com/a", "https://CDN.example.com/b?key=k-secret&x=1", "", "https://CDN.example.com/b?x=1"},
		{"http://api.example.com/a", "https://a.example.org/b?other=k-secret&x=1", "", "https://a.example.org/b?x=1"},
		{"http://api.example.com/a", "https://a.example.org/b?key=1&key=2", "", "https://a.example.org/b"},
		{"http://api.example.com/a", "https://a.example.org/k-secret", "the upstream redirected it to https://a.example.org, on another host, with the api's key in the URL; the redirect was not followed", ""},
		{"http://api.example.com/a", "https://example.org/b", "the upstream redirected it to https://example.org/b, on another host; to follow the redirect, add \"example.org\" to allowed_hosts", ""},
		{"http://api.example.com/a", "ftp://cdn.example.com/b", "the upstream redirected it to a ftp: URL, which is never followed; only http and https are", ""},
		{"http://api.example.com/a", "http://u:p@api.example.com/b", "the upstream redirected it to a URL on api.example.com with credentials (user:password@), which is never followed", ""},
	}
	for _, tt := range tests {
		from, _ := url.Parse(tt.from)
		to, _ := url.Parse(tt.to)
		err := r.redirect(from, to)
		if err == nil && to.Host != from.Host {
			err = r.stripKey(to)
		}
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s → %s:\ngot  %s\nwant %s", tt.from, tt.to, got, tt.want)
		}
		if tt.after != "" && to.String() != tt.after {
			t.Errorf("%s → %s: followed %s, want %s", tt.from, tt.to, to, tt.after)
		}
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
