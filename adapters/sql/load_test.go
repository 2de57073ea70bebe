package sqlaction_test

import (
	"strings"
	"testing"
)

func TestLoadErrors(t *testing.T) {
	const db = "database \"db\" {\n  driver = \"sqlite\"\n  dsn    = \":memory:\"\n}\n"
	tool := func(body string) string {
		return db + "tool \"t\" {\n  description = \"d\"\n  arg \"email\" {}\n  sql {\n" + body + "\n  }\n}\n"
	}
	tests := []struct {
		name string
		src  string
		want []string // each must appear in the diagnostics, in order
	}{
		{
			name: "unknown driver",
			src:  "database \"db\" {\n  driver = \"oracle\"\n  dsn    = \"x\"\n}\n",
			want: []string{`2:12-2:20: Unknown database driver: "oracle" is not a driver mcpdecl knows; use "sqlite", "postgres" or "mysql".`},
		},
		{
			name: "mariadb is mysql",
			src:  "database \"db\" {\n  driver = \"mariadb\"\n  dsn    = \"x\"\n}\n",
			want: []string{`Unknown database driver`, `For MariaDB, use "mysql".`},
		},
		{
			name: "missing dsn",
			src:  "database \"db\" {\n  driver = \"sqlite\"\n}\n",
			want: []string{`Missing required argument: The argument "dsn" is required`},
		},
		{
			name: "unknown attribute",
			src:  "database \"db\" {\n  driver = \"sqlite\"\n  dsn = \"x.db\"\n  pool = 3\n}\n",
			want: []string{`4:3-4:7: Unsupported argument: An argument named "pool" is not expected here.`},
		},
		{
			name: "bad pool size",
			src:  "database \"db\" {\n  driver = \"sqlite\"\n  dsn = \"x.db\"\n  max_open_conns = 0\n  max_idle_conns = 20\n}\n",
			want: []string{`4:20-4:21: Invalid max_open_conns`, `5:20-5:22: Invalid max_idle_conns`},
		},
		{
			name: "bad query_timeout",
			src:  "database \"db\" {\n  driver = \"sqlite\"\n  dsn = \"x.db\"\n  query_timeout = \"fast\"\n}\n",
			want: []string{`4:19-4:25: Invalid duration: "fast" is not a positive duration`},
		},
		{
			name: "read-only memory",
			src:  "database \"db\" {\n  driver = \"sqlite\"\n  dsn = \":memory:\"\n  read_only = true\n}\n",
			want: []string{`3:9-3:19: Read-only in-memory database`},
		},
		{
			name: "invalid postgres dsn",
			src:  "database \"db\" {\n  driver = \"postgres\"\n  dsn = \"postgres://u:pw12345@host:notaport/db\"\n}\n",
			want: []string{`3:9-3:48: Invalid dsn: The dsn of database "db" cannot be read by the postgres driver: `},
		},
		{
			name: "invalid mysql dsn",
			src:  "database \"db\" {\n  driver = \"mysql\"\n  dsn = \"root@tcp(127.0.0.1:3306)test\"\n}\n",
			want: []string{`3:9-3:39: Invalid dsn: The dsn of database "db" cannot be read by the mysql driver: `},
		},
		{
			name: "client-side interpolation",
			src:  "database \"db\" {\n  driver = \"mysql\"\n  dsn = \"root@tcp(127.0.0.1:3306)/test?interpolateParams=true\"\n}\n",
			want: []string{`Parameters must be bound: interpolateParams=true makes the driver write values into the SQL text`},
		},
		{
			name: "simple protocol",
			src:  "database \"db\" {\n  driver = \"postgres\"\n  dsn = \"postgres://u@h/db?default_query_exec_mode=simple_protocol\"\n}\n",
			want: []string{`Parameters must be bound: default_query_exec_mode=simple_protocol`},
		},
		{
			name: "expr in query",
			src:  tool(`    database = database.db` + "\n" + `    query    = expr("'SELECT * FROM users WHERE email = ' + args.email")`),
			want: []string{`10:16-10:73: Query must be fixed: The SQL text is fixed when the configuration loads, so it cannot be an expr(…) program`, `Put them in params`},
		},
		{
			name: "params not a list",
			src:  tool(`    database = database.db` + "\n" + `    query    = "SELECT * FROM users WHERE email = ?"` + "\n" + `    params   = expr("args.email")`),
			want: []string{`11:16-11:34: Invalid params: params must be a list, one value per parameter of the query in order, such as [expr("args.email"), 10]; this is one expr(…) program.`},
		},
		{
			name: "params a map",
			src:  tool(`    database = database.db` + "\n" + `    query    = "SELECT * FROM users WHERE email = ?"` + "\n" + `    params   = { email = expr("args.email") }`),
			want: []string{`11:16-11:46: Invalid params`, `this is a map.`},
		},
		{
			name: "unknown database",
			src:  tool(`    database = database.nope` + "\n" + `    query    = "SELECT 1"`),
			want: []string{`9:24-9:29: Reference to an undeclared database block: There is no database block named "nope". Declared: db.`},
		},
		{
			name: "not a database",
			src:  tool(`    database = "db"` + "\n" + `    query    = "SELECT 1"`),
			want: []string{`9:16-9:20: Invalid reference: This must refer to a database block by its name, like database.example.`},
		},
		{
			name: "too few params",
			src:  tool(`    database = database.db` + "\n" + `    query    = "SELECT * FROM users WHERE email = ? AND name = ?"` + "\n" + `    params   = [expr("args.email")]`),
			want: []string{`11:16-11:36: Wrong number of parameters: The query takes 2 parameters (?), but params has 1 value.`},
		},
		{
			name: "params without placeholders",
			src:  tool(`    database = database.db` + "\n" + `    query    = "SELECT * FROM users WHERE email = 'x'"` + "\n" + `    params   = [expr("args.email")]`),
			want: []string{`11:16-11:36: Wrong number of parameters: The query takes no parameter, but params has 1 value.`},
		},
		{
			name: "placeholders without params",
			src:  tool(`    database = database.db` + "\n" + `    query    = "SELECT * FROM users WHERE email = ?"`),
			want: []string{`10:16-10:53: Wrong number of parameters: The query takes 1 parameter (?), but params has 0 values.`},
		},
		{
			name: "a typo in a param program",
			src:  tool(`    database = database.db` + "\n" + `    query    = "SELECT * FROM users WHERE email = ?"` + "\n" + `    params   = [expr("args.emial")]`),
			want: []string{`Invalid expr program: The program "args.emial" does not compile: unknown field emial`, `Did you mean args.email?`},
		},
		{
			name: "bad max_rows",
			src:  tool(`    database = database.db` + "\n" + `    query    = "SELECT 1"` + "\n" + `    max_rows = 0`),
			want: []string{`11:16-11:17: Invalid max_rows: max_rows is the most rows a call returns: a whole number from 1 to 100000, not 0.`},
		},
		{
			name: "missing query",
			src:  tool(`    database = database.db`),
			want: []string{`Missing required argument: The argument "query" is required`},
		},
		{
			name: "empty query",
			src:  tool(`    database = database.db` + "\n" + `    query    = " "`),
			want: []string{`10:16-10:19: Empty query`},
		},
		{
			name: "outputs cannot read what sql does not return",
			src: db + `tool "t" {
  description = "d"
  sql {
    database = database.db
    query    = "SELECT 1 AS one"
  }
  output "o" { value = expr("body") }
}`,
			want: []string{`Invalid expr program: The program "body" does not compile: unknown name body`, `columns, rows, rows_affected, truncated`},
		},
		{
			name: "rows_affected is an integer",
			src: db + `tool "t" {
  description = "d"
  sql {
    database = database.db
    query    = "DELETE FROM x"
  }
  output "o" {
    type  = string
    value = expr("rows_affected")
  }
}`,
			want: []string{`Wrong type for output: Output "o" is declared as string, but its value is always an integer.`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, diags := loadConfig(t, "", tt.src, nil)
			if cfg != nil {
				t.Errorf("a configuration was returned despite errors")
			}
			if !diags.HasErrors() {
				t.Fatalf("no error; want %q", tt.want)
			}
			got := describe(diags)
			rest := got
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("diagnostics do not contain %q (in order)\ngot:\n%s", w, got)
				}
				rest = rest[i+len(w):]
			}
			if strings.Contains(got, "pw12345") {
				t.Errorf("the password shows:\n%s", got)
			}
		})
	}
}

// TestPostgresPlaceholders checks $n at load, without a server: pools open
// lazily.
func TestPostgresPlaceholders(t *testing.T) {
	src := func(query, params string) string {
		return `database "pg" {
  driver = "postgres"
  dsn    = "postgres://u@127.0.0.1:1/db"
}
tool "t" {
  description = "d"
  arg "a" {}
  sql {
    database = database.pg
    query    = ` + hclString(query) + `
    params   = ` + params + `
  }
}
`
	}
	_, diags := loadConfig(t, "", src("SELECT * FROM t WHERE a = $1 AND b = $3", `[expr("args.a"), 2]`), nil)
	if got := describe(diags); !strings.Contains(got, "The query takes 3 parameters ($1 to $3), but params has 2 values.") {
		t.Errorf("got %s", got)
	}
	_, diags = loadConfig(t, "", src("SELECT data ? 'k', $1 FROM t WHERE x = $$ $2 $$ -- $9\n", `[expr("args.a")]`), nil)
	if diags.HasErrors() {
		t.Errorf("got %s", describe(diags))
	}
}

func TestHints(t *testing.T) {
	cfg := mustLoad(t, "", `
database "db" {
  driver = "sqlite"
  dsn    = ":memory:"
}
tool "select" {
  description = "d"
  sql {
    database = database.db
    query    = "WITH x AS (SELECT 1 AS n) SELECT n FROM x"
  }
}
tool "cte_delete" {
  description = "d"
  sql {
    database = database.db
    query    = "WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x"
  }
}
tool "insert" {
  description = "d"
  sql {
    database = database.db
    query    = "INSERT INTO t VALUES (1)"
  }
}
tool "overridden" {
  description = "d"
  annotations {
    destructive_hint = false
  }
  sql {
    database = database.db
    query    = "INSERT INTO t VALUES (1)"
  }
}
`)
	tests := []struct {
		tool                  string
		readOnly, destructive bool
	}{
		{"select", true, false},
		{"cte_delete", false, true},
		{"insert", false, true},
		{"overridden", false, false},
	}
	for _, tt := range tests {
		tl, _ := cfg.Tool(tt.tool)
		a := tl.Annotations()
		if a == nil || a.ReadOnlyHint == nil || a.DestructiveHint == nil || *a.ReadOnlyHint != tt.readOnly || *a.DestructiveHint != tt.destructive {
			t.Errorf("%s: %+v, want read-only %v, destructive %v", tt.tool, a, tt.readOnly, tt.destructive)
		}
		if a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: a database is a closed world", tt.tool)
		}
	}
}
