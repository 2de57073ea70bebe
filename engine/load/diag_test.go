package load_test

import (
	"strings"
	"testing"
)

// TestDiagnosticsOnlyTheRealError checks that one mistake gives one
// diagnostic: the programs that depend on a block with a typo do not get a
// second, wrong error.
func TestDiagnosticsOnlyTheRealError(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // each must appear
		not  []string // none may appear
	}{
		{
			name: "typo in an arg block",
			src: `tool "t" {
  description = "d"
  arg "city" {
    type = string
    descripton = "typo"
  }
  text = expr("args.city")
}`,
			want: []string{`5:5-5:15: Unsupported argument`},
			not:  []string{"declares no arguments", "unknown field", "city"},
		},
		{
			name: "enum value of the wrong type",
			src: `tool "t" {
  description = "d"
  arg "units" {
    type = string
    enum = ["metric", 3]
  }
  text = expr("args.units")
}`,
			want: []string{`5:23-5:24: Enum value does not fit the type: The enum value 3 (element 1) does not fit the argument's type, string`},
		},
		{
			name: "enum of integers",
			src: `tool "t" {
  description = "d"
  arg "n" {
    type = integer
    enum = [1, 2.5]
  }
  text = expr("string(args.n)")
}`,
			want: []string{`5:16-5:19: Enum value does not fit the type: The enum value 2.5 (element 1) does not fit the argument's type, integer`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := loadString(t, tc.src, nil, nil)
			got := describe(diags)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in:\n%s", w, got)
				}
			}
			for _, n := range tc.not {
				for _, line := range strings.Split(got, "\n") {
					if strings.Contains(line, n) && !strings.Contains(line, "Unsupported argument") {
						t.Errorf("spurious %q in:\n%s", n, got)
					}
				}
			}
		})
	}
}
