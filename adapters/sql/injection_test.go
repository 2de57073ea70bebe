package sqlaction_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestBoundValuesAreData sends, on every backend (SQLite always, PostgreSQL
// and MariaDB/MySQL when they answer), values that would change the
// statement if they were written into it. Each is bound as a parameter:
// a lookup returns exactly the rows whose name is that literal value, an
// insert stores it byte for byte, and afterwards the table is still there
// with exactly the rows it should hold. The only value a backend may refuse
// is one it cannot store (a NUL byte in PostgreSQL text), and then the call
// is a clear tool error, never a crash or a different statement.
func TestBoundValuesAreData(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { injectionTable(t, sqliteBackend(t)) })
	t.Run("postgres", func(t *testing.T) {
		b, _ := postgresBackend(t)
		injectionTable(t, b)
	})
	t.Run("mysql", func(t *testing.T) {
		b, _ := mysqlBackend(t)
		injectionTable(t, b)
	})
}

// injectionProbes are the hostile values, besides the names in the table.
func injectionProbes() []string {
	return []string{
		`' OR '1'='1`, // also a row of the table: exactly that row comes back
		`x' OR '1'='1`,
		`' OR 1=1 --`,
		`'; DROP TABLE t; --`,
		`alice'; DROP TABLE t; --`,
		`alice' --`,
		`alice' /*`,
		`1 OR 1=1`,
		`\'; DROP TABLE t; --`,
		`\`,
		`"; DELETE FROM t; --`,
		`$1`,
		`$2`,
		`?`,
		`?, ?`,
		`:name`,
		`@name`,
		`%`,
		`_`,
		`alice%`,
		"alice\n' OR '1'='1",
		"été 🎉 日本語 Ω",
		"\u202ealice",                        // right-to-left override
		"alice\u200b",                        // zero-width space
		strings.Repeat("' OR '1'='1 ", 1000), // 12 KB
		strings.Repeat("x", 200<<10),         // 200 KB, lookups only
		"\x00",
		"alice\x00",
		"alice\x00' OR '1'='1",
	}
}

// storable is whether a value can be inserted in the TEXT column as well as
// looked up; the 200 KB value only makes a lookup.
func storable(v string) bool { return len(v) <= 64<<10/4 }

func injectionTable(t *testing.T, b *backend) {
	text := "TEXT"
	if b.driver == "mysql" {
		// A binary collation, so that equality is exact as in the others
		// (no case folding): the expected rows are computed in Go.
		text = "TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
	}
	b.exec(t,
		"CREATE TABLE t (id "+b.serial+", name "+text+" NOT NULL)",
		"INSERT INTO t (name) VALUES ('alice'), ('bob'), (''' OR ''1''=''1')",
	)
	names := []string{"alice", "bob", `' OR '1'='1`} // what the table holds
	cfg := mustLoad(t, b.dir, b.database("db", "")+fmt.Sprintf(`
tool "find" {
  description = "Find rows by name."
  sanitize    = false # rows are compared byte for byte, NUL included
  arg "name" { type = string }
  sql {
    database = database.db
    query    = "SELECT id, name FROM t WHERE name = %[1]s ORDER BY id"
    params   = [expr("args.name")]
  }
  output "rows" { value = expr("rows") }
}
tool "add" {
  description = "Add a row."
  arg "name" { type = string }
  sql {
    database = database.db
    query    = "INSERT INTO t (name) VALUES (%[1]s)"
    params   = [expr("args.name")]
  }
  output "added" { value = expr("rows_affected") }
}
tool "all" {
  description = "Every row."
  sanitize    = false # rows are compared byte for byte, NUL included
  sql {
    database = database.db
    query    = "SELECT id, name FROM t ORDER BY id"
  }
  output "rows" { value = expr("rows") }
}
`, b.ph(1)))

	type row struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	}
	rowsOf := func(t *testing.T, tool, args string) ([]row, string, bool) {
		t.Helper()
		res := call(t, cfg, tool, args)
		if res.IsError {
			return nil, res.Text(), false
		}
		var out struct{ Rows []row }
		if err := json.Unmarshal([]byte(structured(t, res)), &out); err != nil {
			t.Fatal(err)
		}
		return out.Rows, "", true
	}
	arg := func(v string) string {
		b, _ := json.Marshal(map[string]string{"name": v})
		return string(b)
	}
	// refused is whether the backend cannot take v at all, and then the
	// words its tool error must hold.
	refused := func(v string) (bool, string) {
		if b.driver == "postgres" && strings.ContainsRune(v, 0) {
			return true, `invalid byte sequence for encoding "UTF8": 0x00`
		}
		return false, ""
	}
	// matching is what a lookup of v must return: every stored row named v.
	matching := func(all []row, v string) []string {
		var out []string
		for _, r := range all {
			if r.Name == v {
				out = append(out, r.Name)
			}
		}
		return out
	}
	namesOf := func(rs []row) []string {
		out := make([]string, len(rs))
		for i, r := range rs {
			out[i] = r.Name
		}
		return out
	}
	short := func(v string) string {
		if len(v) > 40 {
			return fmt.Sprintf("%q… (%d bytes)", v[:40], len(v))
		}
		return fmt.Sprintf("%q", v)
	}
	lookups := func(t *testing.T, stored []string) {
		t.Helper()
		all := make([]row, len(stored))
		for i, n := range stored {
			all[i] = row{Name: n}
		}
		for _, v := range append(injectionProbes(), names...) {
			got, msg, ok := rowsOf(t, "find", arg(v))
			if no, words := refused(v); no {
				if ok || !strings.Contains(msg, `database "db"`) || !strings.Contains(msg, words) {
					t.Errorf("find %s: want a tool error naming the database and %q, got ok=%v %q", short(v), words, ok, msg)
				}
				continue
			}
			if !ok {
				t.Errorf("find %s: tool error %q", short(v), msg)
				continue
			}
			if want := matching(all, v); !slices.Equal(namesOf(got), want) {
				t.Errorf("find %s returned %d rows %q, want exactly %q", short(v), len(got), namesOf(got), want)
			}
		}
	}

	// The table as loaded: only ' OR '1'='1 and the plain names find a row.
	lookups(t, names)

	// Each value stored through a bound parameter, then found as itself.
	stored := slices.Clone(names)
	for _, v := range injectionProbes() {
		if !storable(v) {
			continue
		}
		res := call(t, cfg, "add", arg(v))
		if no, words := refused(v); no {
			if !res.IsError || !strings.Contains(res.Text(), words) {
				t.Errorf("add %s: want a tool error holding %q, got %v %q", short(v), words, res.IsError, res.Text())
			}
			continue
		}
		if res.IsError || structured(t, res) != `{"added":1}` {
			t.Errorf("add %s: %v %s", short(v), res.IsError, res.Text())
			continue
		}
		stored = append(stored, v)
	}
	lookups(t, stored)

	// The table is still there, holding every value as it was sent.
	all, msg, ok := rowsOf(t, "all", `{}`)
	if !ok {
		t.Fatalf("the table is gone: %s", msg)
	}
	if got := namesOf(all); !slices.Equal(got, stored) {
		t.Errorf("the table holds %d rows, want %d:\n got %q\nwant %q", len(got), len(stored), got, stored)
	}
	for _, r := range all {
		if !utf8.ValidString(r.Name) {
			t.Errorf("row %d came back as invalid UTF-8: %q", r.ID, r.Name)
		}
	}
}
