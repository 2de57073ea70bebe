package httpaction

import (
	"net/url"
	"testing"
)

func TestHostList(t *testing.T) {
	var l hostList
	for _, s := range []string{
		"api.example.com", "*.example.org", "127.0.0.1:8080", "[::1]:9000",
		"secure.example.net:443", "Bücher.Example", "10.0.0.1",
	} {
		e, err := parseHost(s)
		if err != nil {
			t.Fatal(err)
		}
		l = append(l, e)
	}
	for u, want := range map[string]bool{
		"https://api.example.com/x":          true,
		"http://api.example.com/x":           true,
		"http://API.Example.com./x":          true,
		"https://api.example.com:443/x":      true,
		"http://api.example.com:80/x":        true,
		"http://api.example.com:443/x":       false, // not the default port of http
		"https://api.example.com:8443/x":     false,
		"https://evil.api.example.com/":      false,
		"https://api.example.com.evil/":      false,
		"https://a.example.org/":             true,
		"https://a.b.example.org/":           true,
		"https://example.org/":               false,
		"https://badexample.org/":            false,
		"https://a.example.org.evil.com/":    false,
		"http://127.0.0.1:8080/":             true,
		"http://127.0.0.1/":                  false,
		"http://127.1:8080/":                 false, // another spelling of the address is not listed
		"http://2130706433:8080/":            false,
		"http://[::ffff:127.0.0.1]:8080/":    false,
		"http://[::1]:9000/":                 true,
		"http://[0:0::1]:9000/":              true, // the same address
		"http://localhost:9000/":             false,
		"http://10.0.0.1/":                   true,
		"https://10.0.0.1/":                  true,
		"http://10.0.0.1:8080/":              false,
		"https://secure.example.net/":        true,
		"http://secure.example.net/":         false,
		"https://xn--bcher-kva.example/":     true,
		"https://bücher.example/":            true,
		"https://BÜCHER.example/":            true,
		"https://ａｐｉ.example.com/":           true, // full-width letters, as net/http dials them
		"https://api.example.com\u3002evil/": false,
		"ftp://api.example.com/":             false,
		"https://u:p@api.example.com/":       false,
	} {
		pu, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		if got := l.allows(pu); got != want {
			t.Errorf("%s: allowed %v, want %v", u, got, want)
		}
	}
}

func TestEntryFor(t *testing.T) {
	for u, want := range map[string]string{
		"https://API.example.com/x":     "api.example.com",
		"https://api.example.com:443/x": "api.example.com",
		"http://api.example.com:443/x":  "api.example.com:443",
		"http://127.0.0.1:8080/":        "127.0.0.1:8080",
		"http://[::1]/":                 "[::1]",
		"http://[::1]:81/":              "[::1]:81",
		"https://bücher.example/":       "xn--bcher-kva.example",
	} {
		pu, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		if got := entryFor(pu); got != want {
			t.Errorf("%s: %q, want %q", u, got, want)
		}
		// The entry suggested allows the URL.
		e, err := parseHost(entryFor(pu))
		if err != nil || !(hostList{e}).allows(pu) {
			t.Errorf("%s: the entry %q does not allow it (%v)", u, entryFor(pu), err)
		}
	}
}
