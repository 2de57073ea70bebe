package engine

import (
	"maps"
	"net/url"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/yosida95/uritemplate/v3"
)

// TestSimpleMatcher: for templates whose expressions are all {name}, the
// regular expression finds what the general matcher finds, decoded the
// same; other templates are left to the general matcher.
func TestSimpleMatcher(t *testing.T) {
	tests := []struct {
		template string
		simple   bool
		uris     []string
	}{
		{"x://items/{id}", true, []string{"x://items/42", "x://items/", "x://items/a%20b", "x://items/a/b", "x://items/%E2%82%AC", "x://item/1", "y://items/1", "x://items/a%2Fb"}},
		{"shop://{shop}/products/{sku}.json", true, []string{"shop://a/products/B-1.json", "shop://a/products/.json", "shop://a/b/products/c.json", "shop://a/products/b"}},
		{"db://{schema.table}/{id}", true, []string{"db://public.users/7", "db://x/"}},
		{"x://{+path}", false, nil},
		{"x://{a,b}", false, nil},
		{"x://search{?q}", false, nil},
	}
	for _, tt := range tests {
		tmpl, err := uritemplate.New(tt.template)
		if err != nil {
			t.Fatal(err)
		}
		re, names := simpleMatcher(tmpl)
		if (re != nil) != tt.simple {
			t.Errorf("%s: simple = %v, want %v", tt.template, re != nil, tt.simple)
			continue
		}
		fast := &ResourceTemplate{template: tmpl, simple: re, simpleNames: names}
		general := &ResourceTemplate{template: tmpl}
		for _, uri := range tt.uris {
			got, ok := fast.match(uri)
			want, wantOK := general.match(uri)
			if ok != wantOK || !maps.Equal(got, want) || fast.Matches(uri) != general.Matches(uri) {
				t.Errorf("%s matching %s: %v %v, general matcher %v %v", tt.template, uri, got, ok, want, wantOK)
			}
		}
	}
}

// FuzzSimpleMatcher: on any URI, the regular expression of a {name}
// template matches when the URI is an expansion of the template, and its
// values expand back to it. uritemplate's general matcher is the
// reference where it is right: it also matches some URIs no expansion
// gives (" " for {a}{b}), which the expression rightly refuses.
func FuzzSimpleMatcher(f *testing.F) {
	templates := []string{"x://items/{id}", "shop://{shop}/products/{sku}.json", "db://{schema.table}/{id}", "{a}{b}", "x://{a}-{b}"}
	var tmpls []*uritemplate.Template
	var fast, general []*ResourceTemplate
	for _, raw := range templates {
		tmpl, err := uritemplate.New(raw)
		if err != nil {
			f.Fatal(err)
		}
		re, names := simpleMatcher(tmpl)
		if re == nil {
			f.Fatalf("%s: no simple matcher", raw)
		}
		tmpls = append(tmpls, tmpl)
		fast = append(fast, &ResourceTemplate{template: tmpl, simple: re, simpleNames: names})
		general = append(general, &ResourceTemplate{template: tmpl})
	}
	for _, seed := range []string{"x://items/42", "x://items/a%20b", "shop://a/products/B-1.json", "db://public.users/7", "x://a-b-c", "%41%42", "x://items/%zz", "x://items/\u00e9", " "} {
		f.Add(seed)
	}
	// expandsTo reports whether values expand tmpl to uri (compared
	// decoded: %41 and A are one character).
	expandsTo := func(tmpl *uritemplate.Template, values map[string]string, uri string) bool {
		vals := uritemplate.Values{}
		for k, v := range values {
			vals.Set(k, uritemplate.String(v))
		}
		s, err := tmpl.Expand(vals)
		if err != nil {
			return false
		}
		du, err1 := url.PathUnescape(uri)
		ds, err2 := url.PathUnescape(s)
		return err1 == nil && err2 == nil && du == ds
	}
	f.Fuzz(func(t *testing.T, uri string) {
		// uritemplate's Expand drops control characters and mangles
		// invalid UTF-8, so values holding them cannot be checked by
		// expanding them back (an argument's schema judges them).
		if d, err := url.PathUnescape(uri); err == nil && (!utf8.ValidString(d) || strings.ContainsFunc(d, unicode.IsControl)) {
			return
		}
		for i := range fast {
			got, ok := fast[i].match(uri)
			want, wantOK := general[i].match(uri)
			if ok == wantOK && (!ok || maps.Equal(got, want)) {
				continue
			}
			// They differ. A match of the expression must expand back to
			// uri (with {a}{b}, "xy" has two right answers); a miss is
			// wrong only when the general matcher's values expand back.
			if ok && !expandsTo(tmpls[i], got, uri) || !ok && wantOK && expandsTo(tmpls[i], want, uri) {
				t.Errorf("%s matching %q: %v %v, general matcher %v %v", templates[i], uri, got, ok, want, wantOK)
			}
		}
	})
}
