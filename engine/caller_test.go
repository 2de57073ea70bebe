package engine_test

import (
	"fmt"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
)

// TestCallerPrintsWithoutToken checks that a Caller printed by any verb
// of fmt shows its ID and never its token.
func TestCallerPrintsWithoutToken(t *testing.T) {
	c := engine.Caller{ID: "jwt:ann", Authenticated: true, Token: "eyJ.secret-token.sig", Audience: []string{"a"}}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		if got := fmt.Sprintf(verb, c); got != "jwt:ann" {
			t.Errorf("%s: %q", verb, got)
		}
	}
}
