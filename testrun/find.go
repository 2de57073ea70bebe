package testrun

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/mcpdecl/mcpdecl/engine/load"
)

// Find lists the test files that paths name: a test file as it is, a
// directory as its *.test.hcl files in name order. A path that cannot be
// read, a file that is not a test file and a directory without test files
// are errors.
func Find(paths []string) ([]string, error) {
	var names []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			if !load.IsTestFile(p) {
				return nil, fmt.Errorf("%s is not a test file: test files end in %s; name one, or the directory that holds them", p, load.TestFileSuffix)
			}
			names = append(names, p)
			continue
		}
		matches, _ := filepath.Glob(filepath.Join(p, "*"+load.TestFileSuffix))
		if len(matches) == 0 {
			return nil, fmt.Errorf("the directory %s holds no test files (*%s)", p, load.TestFileSuffix)
		}
		slices.Sort(matches)
		names = append(names, matches...)
	}
	return slices.Compact(names), nil
}
