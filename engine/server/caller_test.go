package server

import (
	"reflect"
	"testing"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/mcpdecl/mcpdecl/engine"
)

// TestCallerFromToken checks what a verified token tells programs: the
// subject without its kind, the scopes, the chosen claims, and the JWT
// itself with its audience, for an upstream that acts with it.
func TestCallerFromToken(t *testing.T) {
	info := &sdkauth.TokenInfo{UserID: "jwt:ann", Scopes: []string{"read"}, Extra: map[string]any{
		engine.ClaimsKey:   map[string]any{"tenant": "acme"},
		engine.TokenKey:    "eyJ.x.y",
		engine.AudienceKey: []string{"https://mcp.example.com/mcp"},
	}}
	c := callerFromToken(info)
	want := engine.Caller{ID: "jwt:ann", Authenticated: true, Scopes: []string{"read"}, Subject: "ann", Claims: map[string]any{"tenant": "acme"},
		Token: "eyJ.x.y", Audience: []string{"https://mcp.example.com/mcp"}}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("caller = %+v\nwant %+v", c, want)
	}
	if c := callerFromToken(&sdkauth.TokenInfo{UserID: "token:ci-bot"}); c.Subject != "ci-bot" || c.Claims != nil {
		t.Errorf("static token: %+v", c)
	}
}
