package testrun

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// parseOne writes a test file into dir and parses it.
func parseOne(t *testing.T, dir, src string) ([]*File, hcl.Diagnostics) {
	t.Helper()
	name := filepath.Join(dir, "api.test.hcl")
	if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	files, _, diags := Parse([]string{name}, func(string) (string, bool) { return "", false })
	return files, diags
}

// wantDiag checks that diags hold one error whose detail contains want,
// at line:col of the test file.
func wantDiag(t *testing.T, diags hcl.Diagnostics, line, col int, want string) {
	t.Helper()
	if len(diags) != 1 || diags[0].Severity != hcl.DiagError {
		t.Fatalf("diagnostics = %v; want one error", diags)
	}
	d := diags[0]
	if d.Subject == nil || d.Subject.Start.Line != line || d.Subject.Start.Column != col {
		t.Errorf("the error is at %v; want line %d, column %d", d.Subject, line, col)
	}
	if !strings.Contains(d.Detail, want) {
		t.Errorf("error = %s: %s\nwant it to say %q", d.Summary, d.Detail, want)
	}
}

// TestBodyFileRegular: body_file reads only a regular file of bounded
// size, as everything read at load: a device or a larger file is a load
// error at the attribute, never a hang or a runner that fills memory.
func TestBodyFileRegular(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.bin")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(11 << 20); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	_ = f.Close()
	if err := os.WriteFile(filepath.Join(dir, "ok.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, want string }{
		{"big.bin", "more than the 10485760 bytes (10 MiB)"},
		{"/dev/zero", "it is not a regular file (a character device)"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if _, err := os.Stat(tt.path); filepath.IsAbs(tt.path) && err != nil {
				t.Skip(err)
			}
			_, diags := parseOne(t, dir, fmt.Sprintf(`mock "http_api" "api" {
  response {
    body_file = %q
  }
}
test "t" { tool = "x" }
`, tt.path))
			wantDiag(t, diags, 3, 17, tt.want)
		})
	}
	files, diags := parseOne(t, dir, `mock "http_api" "api" {
  response { body_file = "ok.txt" }
}
test "t" { tool = "x" }
`)
	if diags.HasErrors() || string(files[0].Mocks[0].Response.Body) != "hello" {
		t.Errorf("a regular file: %v", diags)
	}
}

// TestSnapshotInsideDirectory: a snapshot is read and written under the
// test file's directory; a path that leaves it, by ../, an absolute path
// or a symbolic link, is a load error at the attribute.
func TestSnapshotInsideDirectory(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "tests")
	elsewhere := filepath.Join(root, "elsewhere")
	for _, d := range []string{dir, elsewhere} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(elsewhere, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(elsewhere, "x.json"), filepath.Join(dir, "dangling.json")); err != nil {
		t.Fatal(err)
	}
	src := func(snapshot string) string {
		return fmt.Sprintf("test \"t\" {\n  tool     = \"x\"\n  snapshot = %q\n}\n", snapshot)
	}
	for _, p := range []string{"../elsewhere/x.json", "../../../../../elsewhere/x.json", filepath.Join(elsewhere, "x.json"), "out/x.json", "dangling.json"} {
		t.Run(p, func(t *testing.T) {
			_, diags := parseOne(t, dir, src(p))
			wantDiag(t, diags, 3, 14, "directory of the test file")
		})
	}
	for _, p := range []string{"testdata/x.json", "./a/../x.json", filepath.Join(dir, "testdata", "y.json")} {
		t.Run(p, func(t *testing.T) {
			if _, diags := parseOne(t, dir, src(p)); diags.HasErrors() {
				t.Errorf("%s: %v", p, diags)
			}
		})
	}

	// A link made after the file was read is not followed out either.
	files, diags := parseOne(t, dir, src("late/x.json"))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if err := os.Symlink(elsewhere, filepath.Join(dir, "late")); err != nil {
		t.Fatal(err)
	}
	res := &Result{}
	(&Runner{Update: true}).snapshot(res, files[0].Tests[0], &outcome{structured: map[string]any{"a": 1}})
	if _, err := os.Stat(filepath.Join(elsewhere, "x.json")); err == nil {
		t.Fatal("the snapshot was written through the link, outside the test's directory")
	}
	if len(res.Failures) != 1 || !strings.Contains(res.Failures[0].Message, "Cannot write the snapshot") {
		t.Errorf("failures = %v; want the write refused", res.Failures)
	}
}

// TestLabelMistakes: a mock or a test written without its labels is an
// error that shows how it is written, as in a configuration file.
func TestLabelMistakes(t *testing.T) {
	_, diags := parseOne(t, t.TempDir(), "mock \"http_api\" {\n  response {\n    body = {}\n  }\n}\n")
	wantDiag(t, diags, 1, 17, `A mock block needs 2 labels (kind, name): write mock "kind" "name" { … }.`)
	_, diags = parseOne(t, t.TempDir(), "test {\n  tool = \"t\"\n}\n")
	wantDiag(t, diags, 1, 6, `A test block needs its name: write test "name" { … }.`)
}
