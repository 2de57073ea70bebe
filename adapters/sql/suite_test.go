package sqlaction_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// backend is one database server (or SQLite file) that the common tests
// run against.
type backend struct {
	driver string
	dsn    string
	// exec runs setup statements.
	exec func(t testing.TB, stmts ...string)
	// ph is the i-th placeholder (1-based).
	ph func(i int) string
	// serial declares an auto-incremented integer primary key.
	serial string
	// sleep is a statement that runs for slept, or forever, holding marker
	// in its text.
	sleep func(marker string) string
	// running counts the statements still running on the server whose text
	// holds marker; nil when the database is in this process.
	running func(t testing.TB, marker string) int
	// dir is the configuration's directory ("": a new one).
	dir string
}

// slept is how long backend.sleep's statement runs where it ends at all: a
// call that lasts as long did not stop it, however busy the machine.
const slept = 30 * time.Second

func question(int) string { return "?" }
func dollar(i int) string { return fmt.Sprintf("$%d", i) }

// database returns a database block for the backend.
func (b *backend) database(name string, extra string) string {
	return fmt.Sprintf("database %q {\n  driver = %q\n  dsn = %s\n  %s\n}\n", name, b.driver, hclString(b.dsn), extra)
}

// runSuite runs the tests every driver must pass.
func runSuite(t *testing.T, b *backend) {
	t.Run("injection", func(t *testing.T) { testInjection(t, b) })
	t.Run("max_rows", func(t *testing.T) { testMaxRows(t, b) })
	t.Run("read_only", func(t *testing.T) { testReadOnly(t, b) })
	t.Run("timeout", func(t *testing.T) { testTimeout(t, b) })
	t.Run("cancel", func(t *testing.T) { testCancel(t, b) })
	t.Run("sql_error", func(t *testing.T) { testSQLError(t, b) })
	t.Run("programs", func(t *testing.T) { testPrograms(t, b) })
	t.Run("params", func(t *testing.T) { testParams(t, b) })
	t.Run("init", func(t *testing.T) { testInit(t, b) })
	t.Run("result_cap", func(t *testing.T) { testResultCap(t, b) })
	t.Run("row_too_large", func(t *testing.T) { testRowTooLarge(t, b) })
}

// testInjection sends values that would change the statement if they were
// written into it: they are data.
func testInjection(t *testing.T, b *backend) {
	b.exec(t,
		"CREATE TABLE users (id "+b.serial+", name VARCHAR(200) NOT NULL)",
		"INSERT INTO users (name) VALUES ('alice'), ('bob')",
	)
	cfg := mustLoad(t, b.dir, b.database("db", "")+fmt.Sprintf(`
tool "find" {
  description = "Find a user by name."
  arg "name" {}
  sql {
    database = database.db
    query    = "SELECT id, name FROM users WHERE name = %[1]s"
    params   = [expr("args.name")]
  }
  output "users" { value = expr("rows") }
}
tool "add" {
  description = "Add a user."
  arg "name" {}
  sql {
    database = database.db
    query    = "INSERT INTO users (name) VALUES (%[1]s)"
    params   = [expr("args.name")]
  }
  output "added" { value = expr("rows_affected") }
}
tool "count" {
  description = "Count users."
  sql {
    database = database.db
    query    = "SELECT count(*) AS n FROM users"
  }
  output "n" { value = expr("rows[0].n") }
}
`, b.ph(1)))

	for _, evil := range []string{"x' OR '1'='1", "' OR 1=1 --", "alice'; DROP TABLE users; --", `\'; DROP TABLE users; --`} {
		res := mustCall(t, cfg, "find", fmt.Sprintf(`{"name": %q}`, evil))
		if got := structured(t, res); got != `{"users":[]}` {
			t.Errorf("find %q: %s, want no user", evil, got)
		}
	}
	evil := []string{"1; DROP TABLE users", "bob'); DROP TABLE users; --", "Robert'); DROP TABLE students;--", `"; DELETE FROM users; --`}
	for _, e := range evil {
		res := mustCall(t, cfg, "add", fmt.Sprintf(`{"name": %q}`, e))
		if got := structured(t, res); got != `{"added":1}` {
			t.Errorf("add %q: %s", e, got)
		}
		res = mustCall(t, cfg, "find", fmt.Sprintf(`{"name": %q}`, e))
		var out struct{ Users []struct{ Name string } }
		if err := json.Unmarshal([]byte(structured(t, res)), &out); err != nil {
			t.Fatal(err)
		}
		if len(out.Users) != 1 || out.Users[0].Name != e {
			t.Errorf("the value %q was not stored as is: %+v", e, out.Users)
		}
	}
	res := mustCall(t, cfg, "count", `{}`)
	if got, want := structured(t, res), fmt.Sprintf(`{"n":%d}`, 2+len(evil)); got != want {
		t.Errorf("count = %s, want %s: the table lost or gained rows", got, want)
	}
}

// seriesQuery returns the numbers 1 to n, one per row.
func seriesQuery(n int) string {
	return fmt.Sprintf("WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < %d) SELECT n FROM s ORDER BY n", n)
}

func testMaxRows(t *testing.T, b *backend) {
	cfg := mustLoad(t, b.dir, b.database("db", "")+fmt.Sprintf(`
tool "three" {
  description = "Numbers."
  sql {
    database = database.db
    query    = %s
    max_rows = 3
  }
}
tool "exact" {
  description = "Numbers."
  sql {
    database = database.db
    query    = %s
    max_rows = 10
  }
  output "rows" { value = expr("rows") }
  output "truncated" { value = expr("truncated") }
  output "columns" { value = expr("columns") }
}
tool "flagged" {
  description = "Numbers."
  sql {
    database = database.db
    query    = %[1]s
    max_rows = 3
  }
  output "n" { value = expr("len(rows)") }
  output "truncated" { value = expr("truncated") }
}
`, hclString(seriesQuery(10)), hclString(seriesQuery(10))))

	for range 3 { // the pool stays usable after statements cut short
		res := mustCall(t, cfg, "three", `{}`)
		text := res.Text()
		if !strings.HasPrefix(text, `[{"n":1},{"n":2},{"n":3}]`) || !strings.Contains(text, "Only the first 3 rows are shown") {
			t.Errorf("text = %q", text)
		}
		res = mustCall(t, cfg, "flagged", `{}`)
		if got := structured(t, res); got != `{"n":3,"truncated":true}` {
			t.Errorf("flagged = %s", got)
		}
	}
	res := mustCall(t, cfg, "exact", `{}`)
	var out struct {
		Rows      []map[string]any
		Truncated bool
		Columns   []map[string]string
	}
	if err := json.Unmarshal([]byte(structured(t, res)), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Rows) != 10 || out.Truncated || len(out.Columns) != 1 || out.Columns[0]["name"] != "n" {
		t.Errorf("exact = %s", structured(t, res))
	}
	if strings.Contains(res.Text(), "Only the first") {
		t.Errorf("text says truncated: %q", res.Text())
	}
}

func testReadOnly(t *testing.T, b *backend) {
	b.exec(t, "CREATE TABLE notes (id "+b.serial+", body VARCHAR(100))", "INSERT INTO notes (body) VALUES ('kept')")
	cfg := mustLoad(t, b.dir, b.database("ro", "read_only = true")+b.database("rw", "")+`
tool "write" {
  description = "Tries to write."
  sql {
    database = database.ro
    query    = "INSERT INTO notes (body) VALUES ('sneaky')"
  }
}
tool "delete" {
  description = "Tries to delete."
  sql {
    database = database.ro
    query    = "DELETE FROM notes"
  }
}
tool "read" {
  description = "Reads."
  sql {
    database = database.ro
    query    = "SELECT body FROM notes"
  }
  output "bodies" { value = expr("map(rows, .body)") }
}
tool "write_rw" {
  description = "Writes."
  sql {
    database = database.rw
    query    = "INSERT INTO notes (body) VALUES ('allowed')"
  }
}
`)
	for _, tool := range []string{"write", "delete"} {
		res := call(t, cfg, tool, `{}`)
		if !res.IsError || !strings.Contains(res.Text(), `database "ro"`) {
			t.Errorf("%s on a read-only database: error %v, %q", tool, res.IsError, res.Text())
		}
		tl, _ := cfg.Tool(tool)
		if a := tl.Annotations(); a == nil || a.ReadOnlyHint == nil || !*a.ReadOnlyHint {
			t.Errorf("%s: a statement on a read-only database is read-only: %+v", tool, a)
		}
	}
	if got := structured(t, mustCall(t, cfg, "read", `{}`)); got != `{"bodies":["kept"]}` {
		t.Errorf("read = %s", got)
	}
	mustCall(t, cfg, "write_rw", `{}`)
	tl, _ := cfg.Tool("write_rw")
	if a := tl.Annotations(); a == nil || *a.ReadOnlyHint || !*a.DestructiveHint {
		t.Errorf("an INSERT is not read-only and may destroy: %+v", a)
	}
	if got := structured(t, mustCall(t, cfg, "read", `{}`)); got != `{"bodies":["kept","allowed"]}` {
		t.Errorf("read = %s", got)
	}
}

func testTimeout(t *testing.T, b *backend) {
	marker := randomName("sleep")
	cfg := mustLoad(t, b.dir, b.database("db", `query_timeout = "200ms"`)+fmt.Sprintf(`
tool "slow" {
  description = "Sleeps."
  sql {
    database = database.db
    query    = %s
  }
}
tool "slow_block" {
  description = "Sleeps, with the timeout of the block."
  sql {
    database = database.db
    query    = %[1]s
    timeout  = "300ms"
  }
}
tool "quick" {
  description = "Answers."
  sql {
    database = database.db
    query    = "SELECT 1 AS one"
  }
}
`, hclString(b.sleep(marker))))
	for _, tc := range []struct{ tool, want string }{
		{"slow", `the statement was cancelled after 200ms (the query_timeout of database "db")`},
		{"slow_block", `the statement was cancelled after 300ms (the timeout of the sql block)`},
	} {
		start := time.Now()
		res := call(t, cfg, tc.tool, `{}`)
		elapsed := time.Since(start)
		if !res.IsError || !strings.Contains(res.Text(), tc.want) {
			t.Errorf("%s: error %v, %q; want %q", tc.tool, res.IsError, res.Text(), tc.want)
		}
		// SQLite's statement never ends: only a timeout that did not stop
		// the statement takes as long as it sleeps.
		if elapsed >= slept {
			t.Errorf("%s took %s, as long as the statement sleeps: the timeout did not stop it", tc.tool, elapsed)
		}
		if b.running != nil && !eventually(func() bool { return b.running(t, marker) == 0 }) {
			t.Errorf("%s: the statement still runs on the server", tc.tool)
		}
	}
	if got := mustCall(t, cfg, "quick", `{}`).Text(); got != `[{"one":1}]` {
		t.Errorf("after timeouts: %q", got)
	}
}

func testCancel(t *testing.T, b *backend) {
	marker := randomName("sleep")
	cfg := mustLoad(t, b.dir, b.database("db", "")+fmt.Sprintf(`
tool "slow" {
  description = "Sleeps."
  sql {
    database = database.db
    query    = %s
  }
}
`, hclString(b.sleep(marker))))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	res := callCtx(ctx, t, cfg, "slow", `{}`)
	if !res.IsError || !strings.Contains(res.Text(), "cancelled") {
		t.Errorf("error %v, %q", res.IsError, res.Text())
	}
	if elapsed := time.Since(start); elapsed >= slept {
		t.Errorf("a cancelled call took %s, as long as the statement sleeps: the cancellation did not stop it", elapsed)
	}
	if b.running != nil && !eventually(func() bool { return b.running(t, marker) == 0 }) {
		t.Errorf("the cancelled statement still runs on the server")
	}
}

func testSQLError(t *testing.T, b *backend) {
	cfg := mustLoad(t, b.dir, b.database("shop", "")+`
tool "bad" {
  description = "Reads a table that does not exist."
  sql {
    database = database.shop
    query    = "SELECT * FROM no_such_table"
  }
}
tool "dup" {
  description = "Two columns of one name."
  sql {
    database = database.shop
    query    = "SELECT 1 AS id, 2 AS id"
  }
}
`)
	res := call(t, cfg, "bad", `{}`)
	if !res.IsError || !strings.HasPrefix(res.Text(), `database "shop": `) || !strings.Contains(res.Text(), "no_such_table") {
		t.Errorf("error %v, %q", res.IsError, res.Text())
	}
	res = call(t, cfg, "dup", `{}`)
	if !res.IsError || !strings.Contains(res.Text(), `two columns named "id"`) {
		t.Errorf("error %v, %q", res.IsError, res.Text())
	}
}

// testPrograms checks that the programs after the action see typed
// results.
func testPrograms(t *testing.T, b *backend) {
	b.exec(t,
		"CREATE TABLE items (id "+b.serial+", name VARCHAR(50), qty INTEGER)",
		"INSERT INTO items (name, qty) VALUES ('apple', 3), ('pear', 5)",
	)
	cfg := mustLoad(t, b.dir, b.database("db", "")+fmt.Sprintf(`
tool "stock" {
  description = "Stock."
  arg "min" {
    type    = integer
    default = 0
  }
  sql {
    database = database.db
    query    = "SELECT name, qty FROM items WHERE qty >= %s ORDER BY name"
    params   = [expr("args.min")]
  }
  output "names" {
    type  = list(string)
    value = expr("map(rows, .name)")
  }
  output "total" {
    type  = integer
    value = expr("sum(map(rows, .qty))")
  }
  output "first_column" {
    type  = string
    value = expr("columns[0].name")
  }
  text = expr("string(len(rows)) + ' items'")
}
tool "restock" {
  description = "Restock."
  arg "name" {}
  sql {
    database = database.db
    query    = "UPDATE items SET qty = qty + 1 WHERE name = %[1]s"
    params   = [expr("args.name")]
  }
  error_if      = expr("rows_affected == 0")
  error_message = expr("'no item named ' + args.name")
}
`, b.ph(1)))
	res := mustCall(t, cfg, "stock", `{"min": 1}`)
	if got := structured(t, res); got != `{"first_column":"name","names":["apple","pear"],"total":8}` {
		t.Errorf("stock = %s", got)
	}
	if res.Text() != "2 items" {
		t.Errorf("text = %q", res.Text())
	}
	if got := mustCall(t, cfg, "restock", `{"name": "pear"}`).Text(); got != "1 row affected" {
		t.Errorf("restock text = %q", got)
	}
	if res := call(t, cfg, "restock", `{"name": "kiwi"}`); !res.IsError || res.Text() != "no item named kiwi" {
		t.Errorf("restock kiwi = %v %q", res.IsError, res.Text())
	}
	if got := structured(t, mustCall(t, cfg, "stock", `{"min": 4}`)); got != `{"first_column":"name","names":["pear"],"total":6}` {
		t.Errorf("stock = %s", got)
	}
}

// testParams binds values of every JSON type.
func testParams(t *testing.T, b *backend) {
	cfg := mustLoad(t, b.dir, b.database("db", "")+fmt.Sprintf(`
tool "echo" {
  description = "Echo."
  arg "s" {}
  arg "i" { type = integer }
  arg "f" { type = number }
  arg "n" {
    type     = string
    optional = true
  }
  sql {
    database = database.db
    query    = "SELECT %s AS s, %s AS i, %s AS f, %s AS n, %s AS lit"
    params   = [expr("args.s"), expr("args.i"), expr("args.f"), expr("args.n"), "literal"]
  }
  output "row" { value = expr("rows[0]") }
}
`, cast(b, 1, "text"), cast(b, 2, "int"), cast(b, 3, "float"), cast(b, 4, "text"), cast(b, 5, "text")))
	res := mustCall(t, cfg, "echo", `{"s": "héllo", "i": 42, "f": 2.5}`)
	var out struct{ Row map[string]any }
	if err := json.Unmarshal([]byte(structured(t, res)), &out); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"s": "héllo", "i": 42.0, "f": 2.5, "n": nil, "lit": "literal"}
	for k, v := range want {
		if out.Row[k] != v {
			t.Errorf("%s = %#v, want %#v (row %s)", k, out.Row[k], v, structured(t, res))
		}
	}
}

// cast is a placeholder with a type, as PostgreSQL wants for a bare
// parameter in a select list.
func cast(b *backend, i int, typ string) string {
	ph := b.ph(i)
	switch b.driver {
	case "postgres":
		if typ == "float" {
			typ = "float8"
		}
		return ph + "::" + typ
	case "mysql":
		switch typ {
		case "int":
			return "CAST(" + ph + " AS SIGNED)"
		case "float":
			return "CAST(" + ph + " AS DOUBLE)"
		}
		return ph
	}
	return ph
}
