package words

import "testing"

func TestUpperFirst(t *testing.T) {
	for in, want := range map[string]string{"": "", "the url": "The url", "Already": "Already", "élan": "Élan", "3 items": "3 items"} {
		if got := UpperFirst(in); got != want {
			t.Errorf("UpperFirst(%q) = %q, want %q", in, got, want)
		}
	}
}
