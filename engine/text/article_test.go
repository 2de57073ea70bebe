package text

import "testing"

func TestWithArticle(t *testing.T) {
	for word, want := range map[string]string{
		"http":          "an http",
		"HTTP":          "an HTTP",
		"http_api":      "an http_api",
		"exec":          "an exec",
		"image":         "an image",
		"audio":         "an audio",
		"sql":           "a sql",
		"database":      "a database",
		"text":          "a text",
		"resource_link": "a resource_link",
		"url":           "a url",
		"update":        "an update",
		"":              "",
	} {
		if got := WithArticle(word); got != want {
			t.Errorf("WithArticle(%q) = %q, want %q", word, got, want)
		}
	}
}
