package text_test

import (
	"context"
	"encoding/base64"
	"net/url"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/mcpdecl/mcpdecl/engine/text"
)

// secret holds characters that every encoding changes: a quote, a
// backslash, a space, a slash, HTML's special characters and non-ASCII.
const secret = `hunter2!@ pa"ss\w/rd<&>é`

// TestSecretFormsPlain checks that a secret no encoding changes has one
// form: the forms are computed for each sensitive argument of every call.
func TestSecretFormsPlain(t *testing.T) {
	if got := text.SecretForms("tok_0123456789abcdef"); len(got) != 2 { // and base64
		t.Errorf("SecretForms = %q, want the secret and its base64", got)
	}
}

func TestRedactorEncodedForms(t *testing.T) {
	forms := map[string]string{
		"raw":         secret,
		"query":       url.QueryEscape(secret),
		"path":        url.PathEscape(secret),
		"json":        `hunter2!@ pa\"ss\\w/rd\u003c\u0026\u003eé`,
		"json noHTML": `hunter2!@ pa\"ss\\w/rd<&>é`,
		"base64":      base64.StdEncoding.EncodeToString([]byte(secret)),
		// Python's json.dumps: every character past ASCII escaped.
		"json ASCII": `hunter2!@ pa\"ss\\w/rd<&>\u00e9`,
		// A JSON body echoed as a JSON string (httpbin's "data").
		"json in json":        `hunter2!@ pa\\\"ss\\\\w/rd<&>é`,
		"json in json (HTML)": `hunter2!@ pa\\\"ss\\\\w/rd\u003c\u0026\u003eé`,
		"json in json (Go)":   `hunter2!@ pa\\\"ss\\\\w/rd\\u003c\\u0026\\u003eé`,
		"json in Python":      `hunter2!@ pa\\\"ss\\\\w/rd<&>\u00e9`,
		// An echoed URL inside JSON, written by encoding/json.
		"path in json (HTML)": strings.ReplaceAll(url.PathEscape(secret), "&", `\u0026`),
	}
	r := &text.Redactor{}
	r.Add(secret)
	for name, form := range forms {
		t.Run(name, func(t *testing.T) {
			got := r.Redact("upstream said: " + form + " (end)")
			if want := "upstream said: " + text.Mask + " (end)"; got != want {
				t.Errorf("Redact(%q) = %q, want %q", form, got, want)
			}
		})
	}
}

// TestRedactorRemove checks that a secret removed (a replaced access
// token) is no longer hidden, in any form, while the others still are.
func TestRedactorRemove(t *testing.T) {
	r := &text.Redactor{}
	r.Add("old-token-1")
	r.Add("new-token-2")
	r.Remove("old-token-1")
	in := "old-token-1 " + base64.StdEncoding.EncodeToString([]byte("old-token-1")) + " new-token-2"
	want := "old-token-1 " + base64.StdEncoding.EncodeToString([]byte("old-token-1")) + " " + text.Mask
	if got := r.Redact(in); got != want {
		t.Errorf("Redact = %q, want %q", got, want)
	}
}

func TestRedactorCollectionLeaves(t *testing.T) {
	r := &text.Redactor{}
	r.AddValue(cty.ObjectVal(map[string]cty.Value{
		"headers": cty.MapVal(map[string]cty.Value{"X-Key": cty.StringVal("map-secret-1")}),
		"list":    cty.ListVal([]cty.Value{cty.StringVal("list-secret-2")}),
		"pin":     cty.NumberIntVal(987654321),
		"ratio":   cty.NumberFloatVal(0.125),
		"on":      cty.True, // a bool hides nothing, and "true" must stay
	}).Mark("sensitive"))
	for _, leaf := range []string{"map-secret-1", "list-secret-2", "987654321", "0.125"} {
		if got := r.Redact("x " + leaf + " y"); got != "x "+text.Mask+" y" {
			t.Errorf("leaf %q: Redact = %q", leaf, got)
		}
	}
	if got := r.Redact("true"); got != "true" {
		t.Errorf("Redact(true) = %q, want it left alone", got)
	}
}

// TestExcerptRedactsBeforeCutting checks that a secret straddling the
// excerpt's end is hidden whole, not cut to a prefix that escapes
// redaction.
func TestExcerptRedactsBeforeCutting(t *testing.T) {
	token := "tok_" + strings.Repeat("Z", 60)
	r := &text.Redactor{}
	r.Add(token)
	for _, pad := range []int{text.ExcerptBytes - len(token) + 1, text.ExcerptBytes - 5, text.ExcerptBytes - 1, text.ExcerptBytes - 20} {
		body := strings.Repeat("a", pad) + "Authorization: Bearer " + token
		ctx := text.WithRedaction(context.Background(), r)
		got := text.Excerpt(ctx, body)
		if strings.Contains(got, "tok_ZZZZ") {
			t.Errorf("pad %d: the excerpt holds part of the token: …%s", pad, got[max(0, len(got)-80):])
		}
		if len(got) > text.ExcerptBytes+len("…") {
			t.Errorf("pad %d: the excerpt is %d bytes long", pad, len(got))
		}
	}
}
