package engine

import (
	"maps"
	"testing"

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
