package sqlaction_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// TestRowsOfTheCallersTenant checks row-level filtering by the caller: a
// bound parameter carries the tenant claim of the authenticated caller, so
// each caller reads its own tenant's rows, and a caller without the claim
// reads none.
func TestRowsOfTheCallersTenant(t *testing.T) {
	path := sqliteFile(t,
		`CREATE TABLE orders (id INTEGER PRIMARY KEY, tenant TEXT, total REAL)`,
		`INSERT INTO orders VALUES (1, 'acme', 10), (2, 'acme', 20), (3, 'globex', 30)`,
	)
	cfg := mustLoad(t, "", fmt.Sprintf(`
auth {
  oauth {
    jwks_url = "https://idp.example.com/jwks"
    issuer   = "https://idp.example.com"
    audience = "https://mcp.example.com/mcp"
    claims   = ["tenant"]
  }
}
database "db" {
  driver = "sqlite"
  dsn    = %s
}
tool "my_orders" {
  description = "The orders of the caller's tenant."
  sql {
    database = database.db
    query    = "SELECT id FROM orders WHERE tenant = ? ORDER BY id"
    params   = [expr("caller.claims.tenant")]
  }
  output "ids" { value = expr("map(rows, .id)") }
}
`, hclString(path)))
	for _, tc := range []struct {
		caller engine.Caller
		want   string
	}{
		{engine.Caller{ID: "jwt:ann", Authenticated: true, Subject: "ann", Claims: map[string]any{"tenant": "acme"}}, `{"ids":[1,2]}`},
		{engine.Caller{ID: "jwt:bob", Authenticated: true, Subject: "bob", Claims: map[string]any{"tenant": "globex"}}, `{"ids":[3]}`},
		{engine.Caller{ID: "jwt:eve", Authenticated: true, Subject: "eve"}, `{"ids":[]}`},
	} {
		res := callCtx(engine.WithCaller(context.Background(), tc.caller), t, cfg, "my_orders", `{}`)
		if res.IsError {
			t.Fatalf("%s: %s", tc.caller.ID, res.Text())
		}
		if got := structured(t, res); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.caller.ID, got, tc.want)
		}
	}
}

// TestUpstreamCallsObserved checks what metrics see of statements: the
// database's name, ok, or error for a statement that fails.
func TestUpstreamCallsObserved(t *testing.T) {
	path := sqliteFile(t, `CREATE TABLE t (id INTEGER PRIMARY KEY)`)
	cfg := mustLoad(t, "", fmt.Sprintf(`
database "db" {
  driver = "sqlite"
  dsn    = %s
}
tool "good" {
  description = "d"
  sql {
    database = database.db
    query    = "SELECT id FROM t"
  }
}
tool "bad" {
  description = "d"
  sql {
    database = database.db
    query    = "INSERT INTO t (id) VALUES (1), (1)"
  }
}
`, hclString(path)))
	obs := &enginetest.Observer{}
	ctx := engine.WithUpstreamObserver(context.Background(), obs)
	for _, name := range []string{"good", "bad"} {
		tool, _ := cfg.Tool(name)
		tool.Call(ctx, nil)
	}
	want := []enginetest.Exchange{{Kind: "sql", Upstream: "db", Class: "ok"}, {Kind: "sql", Upstream: "db", Class: "error"}}
	if got := obs.Seen(); !slices.Equal(got, want) {
		t.Errorf("observed %v, want %v", got, want)
	}
}
