package testrun

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSpecExamplesParse: the example of every block of a test file is
// read without error where it belongs: at the top of a file, in a test, or
// in a mock.
func TestSpecExamplesParse(t *testing.T) {
	const test = "test \"t\" {\n  tool = \"x\"\n}\n"
	for _, b := range Language() {
		src := b.Example + "\n"
		switch b.In {
		case "test":
			src = "test \"t\" {\n  tool = \"x\"\n" + b.Example + "\n}\n"
		case "mock":
			src = "mock \"http_api\" \"api\" {\n" + b.Example + "\n}\n" + test
		default:
			if b.Name != "test" {
				src += test
			}
		}
		name := filepath.Join(t.TempDir(), "x.test.hcl")
		if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, diags := Parse([]string{name}, func(string) (string, bool) { return "", false }); diags.HasErrors() {
			t.Errorf("the example of %s does not parse:\n%s\n%s", b.Path(), src, diags)
		}
	}
}
