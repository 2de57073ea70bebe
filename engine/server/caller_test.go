package server

import (
	"reflect"
	"testing"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/mcpdecl/mcpdecl/engine"
)

// TestCallerFromToken checks what a verified token tells programs: the
// subject without its kind, the scopes, and the chosen claims.
func TestCallerFromToken(t *testing.T) {
	info := &sdkauth.TokenInfo{UserID: "jwt:ann", Scopes: []string{"read"}, Extra: map[string]any{engine.ClaimsKey: map[string]any{"tenant": "acme"}}}
	c := callerFromToken(info)
	want := engine.Caller{ID: "jwt:ann", Authenticated: true, Scopes: []string{"read"}, Subject: "ann", Claims: map[string]any{"tenant": "acme"}}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("caller = %+v\nwant %+v", c, want)
	}
	if c := callerFromToken(&sdkauth.TokenInfo{UserID: "token:ci-bot"}); c.Subject != "ci-bot" || c.Claims != nil {
		t.Errorf("static token: %+v", c)
	}
}
