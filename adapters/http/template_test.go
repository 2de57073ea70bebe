package httpaction

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-resty/resty/v2"
	"github.com/zclconf/go-cty/cty"
)

func TestEscapeLiteral(t *testing.T) {
	tests := []struct {
		in          string
		query       bool
		path, param string
	}{
		{in: "/a/b-c_d.e~f", path: "/a/b-c_d.e~f"},
		{in: "/a b/ü", path: "/a%20b/%C3%BC"},
		{in: "/a%2Fb/%zz/%", path: "/a%2Fb/%25zz/%25"},
		{in: "/x:y@z;v=1,2!$&'()*+", path: "/x:y@z;v=1,2!$&'()*+"},
		{in: "a=1&b=c d?e", query: true, path: "a=1&b=c%20d?e"},
		{in: "[x]\"<>\\^`|", path: "%5Bx%5D%22%3C%3E%5C%5E%60%7C"},
	}
	for _, tt := range tests {
		if got := escapeLiteral(tt.in, tt.query); got != tt.path {
			t.Errorf("escapeLiteral(%q, %v) = %q, want %q", tt.in, tt.query, got, tt.path)
		}
	}
}

func TestLiteralPaths(t *testing.T) {
	rec := newRecorder(t, nil)
	f := newFixture(t)
	act := f.action(api(rec.URL+"/b%20ase/") + `
http {
  api         = http_api.x
  path        = "files/a b/{name}.json?x=1 2&y"
  path_params = { name = expr("args.name") }
}`)
	if _, err := act.Run(context.Background(), map[string]any{"name": "c/d"}); err != nil {
		t.Fatal(err)
	}
	if got, want := rec.last(t).RequestURI, "/b%20ase/files/a%20b/c%2Fd.json?x=1%202&y"; got != want {
		t.Errorf("the server saw %s, want %s", got, want)
	}
	if a := act.(*action).api; a.Name() != "x" || a.BaseURL() != rec.URL+"/b%20ase" {
		t.Errorf("api %q at %s", a.Name(), a.BaseURL())
	}
}

func TestScanPlaceholders(t *testing.T) {
	tests := []struct {
		in, names, err string
	}{
		{in: "/a/{b}/{c_d-1}{e}", names: "b,c_d-1,e"},
		{in: "/plain", names: ""},
		{in: "/{}", err: "name must be made of"},
		{in: "/{a b}", err: "name must be made of"},
		{in: "/{a{b}", err: "not closed"},
		{in: "/a}", err: "closes no placeholder"},
	}
	for _, tt := range tests {
		phs, err := scanPlaceholders(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.msg, tt.err) {
				t.Errorf("%q: err = %v, want %s", tt.in, err, tt.err)
			}
			continue
		}
		var names []string
		for _, ph := range phs {
			names = append(names, ph.name)
			if tt.in[ph.start:ph.end] != "{"+ph.name+"}" {
				t.Errorf("%q: %s at %d:%d", tt.in, ph.name, ph.start, ph.end)
			}
		}
		if err != nil || strings.Join(names, ",") != tt.names {
			t.Errorf("%q: %v, %v", tt.in, names, err)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	resp := func(v string) *resty.Response {
		return &resty.Response{RawResponse: &http.Response{Header: http.Header{"Retry-After": {v}}}}
	}
	for v, want := range map[string]time.Duration{
		"":         0,
		"3":        3 * time.Second,
		"0":        0,
		"-1":       0,
		"99999999": maxRetryAfter,
		"soon":     0,
		time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat): 0,
	} {
		if got, err := retryAfter(nil, resp(v)); got != want || err != nil {
			t.Errorf("Retry-After %q: %v, %v; want %v", v, got, err, want)
		}
	}
	d, _ := retryAfter(nil, resp(time.Now().Add(time.Minute).UTC().Format(http.TimeFormat)))
	if d < 50*time.Second || d > time.Minute {
		t.Errorf("an HTTP date a minute away: %v", d)
	}
	if d, _ := retryAfter(nil, &resty.Response{}); d != 0 {
		t.Errorf("no response: %v", d)
	}
}

// TestMapsFromVariables checks maps that are not written as { … } in the
// block: they are read whole.
func TestMapsFromVariables(t *testing.T) {
	rec := newRecorder(t, nil)
	f := newFixture(t)
	f.vars["headers"] = cty.ObjectVal(map[string]cty.Value{"X-From-Var": cty.StringVal("v"), "X-Num": cty.NumberIntVal(3)})
	f.vars["query"] = cty.ObjectVal(map[string]cty.Value{"q": cty.StringVal("a b"), "n": cty.NullVal(cty.String)})
	f.vars["params"] = cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("a/b")})
	act := f.action(api(rec.URL, "  headers = var.headers") + `
http {
  api         = http_api.x
  path        = "/items/{id}"
  path_params = var.params
  query       = var.query
  headers     = var.headers
  method      = "POST"
  form        = var.query
}`)
	if _, err := act.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	r := rec.last(t)
	if r.RequestURI != "/items/a%2Fb?q=a+b" || r.Header.Get("X-From-Var") != "v" || r.Header.Get("X-Num") != "3" {
		t.Errorf("%s %v", r.RequestURI, r.Header)
	}
	if rec.lastBody() != "q=a+b" || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		t.Errorf("form %q, %s", rec.lastBody(), r.Header.Get("Content-Type"))
	}

	f.vars["params"] = cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("a"), "other": cty.StringVal("b")})
	_, diags := f.decode(api(rec.URL) + `
http {
  api         = http_api.x
  path        = "/items/{id}"
  path_params = var.params
}`)
	if len(diags) != 1 || diags[0].Summary != "Unused path parameter" || rangeText(*diags[0].Subject) != "9:17-9:27" {
		t.Errorf("diagnostics:\n%s", diagsText(diags))
	}
}
