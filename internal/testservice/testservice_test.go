package testservice

import "testing"

// TestFromEnv checks that a variable that is set is returned as it is.
func TestFromEnv(t *testing.T) {
	t.Setenv("MCPDECL_TEST_SOMETHING", "http://localhost:1/")
	if got := FromEnv(t, "MCPDECL_TEST_SOMETHING", "set it"); got != "http://localhost:1/" {
		t.Errorf("got %q", got)
	}
}
