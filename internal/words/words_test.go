package words

import "testing"

func TestUpperFirst(t *testing.T) {
	for in, want := range map[string]string{"": "", "the url": "The url", "Already": "Already", "élan": "Élan", "3 items": "3 items"} {
		if got := UpperFirst(in); got != want {
			t.Errorf("UpperFirst(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOr(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{{nil, ""}, {[]string{"a"}, "a"}, {[]string{"a", "b"}, "a or b"}, {[]string{"a", "b", "c"}, "a, b or c"}} {
		if got := Or(c.in); got != c.want {
			t.Errorf("Or(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := Or(Quoted([]string{"x", `y"`})); got != `"x" or "y\""` {
		t.Errorf("Or(Quoted) = %s", got)
	}
}
