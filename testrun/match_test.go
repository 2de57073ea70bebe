package testrun

import (
	"net/http"
	"net/url"
	"testing"
)

func TestMatch(t *testing.T) {
	sent := sentRequest{
		method: "POST",
		path:   "/users/42",
		query:  url.Values{"units": {"metric"}, "tag": {"a", "b"}},
		header: http.Header{"Authorization": {"Bearer t"}, "Content-Type": {"application/json"}},
		body:   []byte(`{"name":"Ada","age":36,"tags":["x"]}`),
	}
	tests := []struct {
		name  string
		match Match
		want  bool
	}{
		{"anything", Match{}, true},
		{"method, any case", Match{Method: "post"}, true},
		{"other method", Match{Method: "GET"}, false},
		{"path", Match{Path: "/users/42"}, true},
		{"other path", Match{Path: "/users/43"}, false},
		{"path prefix is not enough", Match{Path: "/users"}, false},
		{"query subset", Match{Query: map[string]string{"units": "metric"}}, true},
		{"one of a repeated parameter", Match{Query: map[string]string{"tag": "b"}}, true},
		{"query value differs", Match{Query: map[string]string{"units": "imperial"}}, false},
		{"query parameter missing", Match{Query: map[string]string{"lang": "en"}}, false},
		{"header, canonical name", Match{Headers: map[string]string{"Authorization": "Bearer t"}}, true},
		{"header differs", Match{Headers: map[string]string{"Authorization": "Bearer u"}}, false},
		{"JSON body equal, numbers as JSON has them", Match{Body: normalJSON(map[string]any{"name": "Ada", "age": 36, "tags": []any{"x"}})}, true},
		{"JSON body differs", Match{Body: normalJSON(map[string]any{"name": "Ada"})}, false},
		{"text body exact", Match{Body: `{"name":"Ada","age":36,"tags":["x"]}`}, true},
		{"text body differs", Match{Body: `{"name": "Ada"}`}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := sent.matches(&tc.match); got != tc.want {
				t.Errorf("matches(%+v) = %v, want %v", tc.match, got, tc.want)
			}
		})
	}
}

func TestSQLiteParams(t *testing.T) {
	tests := []struct{ dsn, want string }{
		{"shop.db?_pragma=foreign_keys(1)", "_pragma=foreign_keys(1)"},
		{"file:shop.db?mode=ro&_pragma=busy_timeout(5000)&cache=shared", "_pragma=busy_timeout(5000)"},
		{"shop.db", ""},
		{":memory:", ""},
		{"postgres://user@db/app?sslmode=disable", ""},
		{"user:pw@tcp(127.0.0.1:3306)/test?parseTime=true", ""},
		{"host=db user=app sslmode=disable", ""},
	}
	for _, tc := range tests {
		if got := sqliteParams(tc.dsn); got != tc.want {
			t.Errorf("sqliteParams(%q) = %q, want %q", tc.dsn, got, tc.want)
		}
	}
}
