package sqlaction_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	_ "modernc.org/sqlite"
)

func sqliteBackend(t testing.TB) *backend {
	path := sqliteFile(t)
	return &backend{
		driver: "sqlite",
		dsn:    path,
		exec: func(t testing.TB, stmts ...string) {
			t.Helper()
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, q := range stmts {
				if _, err := db.Exec(q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
		},
		ph:     question,
		serial: "INTEGER PRIMARY KEY",
		sleep: func(marker string) string {
			return "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s) SELECT count(*) /* " + marker + " */ FROM s"
		},
	}
}

func TestSQLite(t *testing.T) {
	runSuite(t, sqliteBackend(t))
}

func TestSQLiteTypes(t *testing.T) {
	path := sqliteFile(t,
		`CREATE TABLE t (
			id INTEGER PRIMARY KEY,
			i INTEGER, big BIGINT, r REAL, d DECIMAL(10,2), n NUMERIC,
			b BOOLEAN, s TEXT, v VARCHAR(20), bl BLOB,
			dt DATE, ts TIMESTAMP, dtm DATETIME, j JSON, untyped
		)`,
		`INSERT INTO t VALUES (1, 42, 9007199254740993, 1.5, 19.99, 12, 1, 'héllo', 'x', x'00ff10',
			'2024-02-29', '2024-02-29 13:45:00', '2024-02-29T13:45:00.123+02:00', '{"a":[1,2.5,"x"],"b":null}', 7)`,
		`INSERT INTO t (id) VALUES (2)`,
		// Dynamic typing: a value that does not fit its declared type.
		`INSERT INTO t (id, i, b, j) VALUES (3, 'not a number', 0, 'not json')`,
	)
	cfg := mustLoad(t, "", fmt.Sprintf(`
database "db" {
  driver = "sqlite"
  dsn    = %s
}
tool "all" {
  description = "Every type."
  sql {
    database = database.db
    query    = "SELECT *, 1 + 1 AS expr FROM t ORDER BY id"
  }
  output "rows" { value = expr("rows") }
  output "columns" { value = expr("columns") }
}
`, hclString(path)))
	res := mustCall(t, cfg, "all", `{}`)
	var out struct {
		Rows    []map[string]json.RawMessage
		Columns []map[string]string
	}
	if err := json.Unmarshal([]byte(structured(t, res)), &out); err != nil {
		t.Fatal(err)
	}
	want := []map[string]string{
		{
			"id": `1`, "i": `42`, "big": `9007199254740993`, "r": `1.5`, "d": `"19.99"`, "n": `"12"`,
			"b": `true`, "s": `"héllo"`, "v": `"x"`, "bl": `"AP8Q"`,
			"dt": `"2024-02-29"`, "ts": `"2024-02-29T13:45:00Z"`, "dtm": `"2024-02-29T11:45:00.123Z"`,
			"j": `{"a":[1,2.5,"x"],"b":null}`, "untyped": `7`, "expr": `2`,
		},
		{
			"id": `2`, "i": `null`, "big": `null`, "r": `null`, "d": `null`, "n": `null`,
			"b": `null`, "s": `null`, "v": `null`, "bl": `null`,
			"dt": `null`, "ts": `null`, "dtm": `null`, "j": `null`, "untyped": `null`, "expr": `2`,
		},
		{"id": `3`, "i": `"not a number"`, "b": `false`, "j": `"not json"`},
	}
	checkRows(t, out.Rows, want)
	types := map[string]string{}
	for _, c := range out.Columns {
		types[c["name"]] = c["type"]
	}
	for name, typ := range map[string]string{"i": "INTEGER", "d": "DECIMAL(10,2)", "b": "BOOLEAN", "j": "JSON", "untyped": "", "expr": ""} {
		if types[name] != typ {
			t.Errorf("column %s has type %q, want %q", name, types[name], typ)
		}
	}
}

// checkRows compares rows, value by value as JSON, for the columns want
// lists.
func checkRows(t *testing.T, got []map[string]json.RawMessage, want []map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i, w := range want {
		for col, v := range w {
			if g := string(got[i][col]); g != v {
				t.Errorf("row %d, column %s = %s, want %s", i+1, col, g, v)
			}
		}
	}
}

// TestSQLiteRelativePath opens a dsn relative to the configuration file,
// not to the working directory.
func TestSQLiteRelativePath(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dsn := range []string{"data/rel.db", "file:data/rel.db?_pragma=foreign_keys(1)"} {
		cfg := mustLoad(t, dir, fmt.Sprintf(`
database "db" {
  driver = "sqlite"
  dsn    = %q
}
database "ro" {
  driver    = "sqlite"
  dsn       = %[1]q
  read_only = true
}
tool "make" {
  description = "Creates a table."
  sql {
    database = database.db
    query    = "CREATE TABLE IF NOT EXISTS x (a INTEGER)"
  }
}
tool "read" {
  description = "Reads it, read-only."
  sql {
    database = database.ro
    query    = "SELECT count(*) AS n FROM x"
  }
}
`, dsn))
		mustCall(t, cfg, "make", `{}`)
		if _, err := os.Stat(filepath.Join(dir, "data", "rel.db")); err != nil {
			t.Errorf("%s: %v", dsn, err)
		}
		if got := mustCall(t, cfg, "read", `{}`).Text(); got != `[{"n":0}]` {
			t.Errorf("%s: read = %q", dsn, got)
		}
		if err := cfg.Check(t.Context()); err != nil {
			t.Errorf("check: %v", err)
		}
	}
}

// TestSQLiteReadOnlyMissingFile: a read-only database does not create its
// file, and says which database cannot be opened.
func TestSQLiteReadOnlyMissingFile(t *testing.T) {
	cfg := mustLoad(t, "", `
database "gone" {
  driver    = "sqlite"
  dsn       = "missing.db"
  read_only = true
}
tool "read" {
  description = "Reads."
  sql {
    database = database.gone
    query    = "SELECT 1"
  }
}
`)
	err := cfg.Check(t.Context())
	if err == nil || !strings.Contains(err.Error(), `database "gone" (sqlite): cannot connect`) {
		t.Errorf("check = %v", err)
	}
	res := call(t, cfg, "read", `{}`)
	if !res.IsError || !strings.HasPrefix(res.Text(), `database "gone": `) {
		t.Errorf("read = %v %q", res.IsError, res.Text())
	}
}

// TestSQLiteMemory: an in-memory database lives in one connection, seeded
// by init.
func TestSQLiteMemory(t *testing.T) {
	cfg := mustLoad(t, "", `
database "mem" {
  driver = "sqlite"
  dsn    = ":memory:"
  init   = "CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT); INSERT INTO kv VALUES ('a', '1');"
}
tool "put" {
  description = "Put."
  arg "k" {}
  arg "v" {}
  sql {
    database = database.mem
    query    = "INSERT INTO kv (k, v) VALUES (?, ?)"
    params   = [expr("args.k"), expr("args.v")]
  }
}
tool "all" {
  description = "All."
  sql {
    database = database.mem
    query    = "SELECT k, v FROM kv ORDER BY k"
  }
}
`)
	mustCall(t, cfg, "put", `{"k": "b", "v": "2"}`)
	if got := mustCall(t, cfg, "all", `{}`).Text(); got != `[{"k":"a","v":"1"},{"k":"b","v":"2"}]` {
		t.Errorf("all = %q", got)
	}
}

// TestSQLiteInit: init runs once per database file, in a transaction.
func TestSQLiteInit(t *testing.T) {
	dir := t.TempDir()
	src := func(init string) string {
		return fmt.Sprintf(`
database "db" {
  driver = "sqlite"
  dsn    = "seeded.db"
  init   = %s
}
database "ro" {
  driver    = "sqlite"
  dsn       = "seeded.db"
  read_only = true
  init      = %[1]s
}
tool "count" {
  description = "Count."
  sql {
    database = database.ro
    query    = "SELECT count(*) AS n FROM fruit"
  }
}
`, hclString(init))
	}
	bad := "CREATE TABLE fruit (name TEXT); INSERT INTO fruit VALUES ('apple'); INSERT INTO nowhere VALUES (1);"
	cfg := mustLoad(t, dir, src(bad))
	res := call(t, cfg, "count", `{}`)
	if !res.IsError || !strings.Contains(res.Text(), `database "ro": init failed, nothing was applied; it runs again on the next call: `) || !strings.Contains(res.Text(), "nowhere") {
		t.Fatalf("bad init: %v %q", res.IsError, res.Text())
	}
	if err := cfg.Check(t.Context()); err == nil || !strings.Contains(err.Error(), `database "ro" (sqlite): init failed, nothing was applied`) {
		t.Errorf("check = %v", err)
	}
	_ = cfg.Close()

	good := "CREATE TABLE fruit (name TEXT);\nINSERT INTO fruit VALUES ('apple'), ('pear');\n"
	for i := range 2 {
		cfg := mustLoad(t, dir, src(good))
		if i == 0 {
			// Check applies init, which creates the read-only file.
			if err := cfg.Check(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		if got := mustCall(t, cfg, "count", `{}`).Text(); got != `[{"n":2}]` {
			t.Errorf("count = %q; init must run once", got)
		}
		_ = cfg.Close()
	}
}

// TestSQLitePreparedStatements: a SQLite statement is prepared once and
// reused, but a table that does not exist yet, or changes, is still
// followed: the statement is given as text until it can be prepared, and
// SQLite prepares it again when the schema changes.
func TestSQLitePreparedStatements(t *testing.T) {
	cfg := mustLoad(t, "", fmt.Sprintf(`
database "db" {
  driver = "sqlite"
  dsn    = %s
}
tool "create" {
  description = "Creates the table."
  sql {
    database = database.db
    query    = "CREATE TABLE later (a TEXT); INSERT INTO later VALUES ('one')"
  }
}
tool "recreate" {
  description = "Recreates the table with other columns."
  sql {
    database = database.db
    query    = "DROP TABLE later; CREATE TABLE later (b INTEGER, a TEXT); INSERT INTO later VALUES (2, 'two')"
  }
}
tool "read" {
  description = "Reads the table."
  sql {
    database = database.db
    query    = "SELECT * FROM later"
  }
}
`, hclString(sqliteFile(t))))
	defer cfg.Close()

	if res := call(t, cfg, "read", `{}`); !res.IsError || !strings.Contains(res.Text(), "no such table: later") {
		t.Fatalf("read before create = %v %q", res.IsError, res.Text())
	}
	mustCall(t, cfg, "create", `{}`)
	// Concurrent first calls race to prepare the statement.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if got := call(t, cfg, "read", `{}`); got.IsError || got.Text() != `[{"a":"one"}]` {
				t.Errorf("read after create = %v %q", got.IsError, got.Text())
			}
		})
	}
	wg.Wait()
	mustCall(t, cfg, "recreate", `{}`)
	if got := mustCall(t, cfg, "read", `{}`).Text(); got != `[{"b":2,"a":"two"}]` {
		t.Errorf("read after recreate = %q", got)
	}
}
