package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWithin: a path lies within a root once cleaned of nothing (a ..
// is refused, even percent-encoded in a file:// URI) and with the links
// of its existing part resolved: a link that leads out, or one that leads
// nowhere (whose target could be made outside), is refused.
func TestWithin(t *testing.T) {
	root, other := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(other, "later"), filepath.Join(root, "dangling")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "sub"), filepath.Join(other, "in")); err != nil {
		t.Fatal(err)
	}
	dirs := []string{resolveOrClean(root)}
	for _, c := range []struct{ path, want string }{
		{root, ""},
		{filepath.Join(root, "sub", "new.txt"), ""},
		{filepath.Join(root, "sub", "a", "b", "c"), ""},
		{"file://" + filepath.ToSlash(filepath.Join(root, "sub", "x")), ""},
		{filepath.Join(other, "in", "x"), ""}, // a link from outside that leads in
		{filepath.Join(root, "out", "x"), "leads to"},
		{filepath.Join(root, "dangling"), "cannot be resolved"},
		{root + "/sub/../../" + filepath.Base(other), "has a .. in it"},
		{"file://" + filepath.ToSlash(root) + "/%2e%2e/x", "has a .. in it"},
		{"file://example.com" + filepath.ToSlash(root), "not a local file:// URI"},
		{other, "is not within"},
		{root + "x", "is not within"},
		{"sub/x", "is not an absolute path"},
		{"", "is not a path"},
	} {
		got := within(c.path, dirs)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("within(%q) = %q, want %q", c.path, got, c.want)
		}
	}
}
