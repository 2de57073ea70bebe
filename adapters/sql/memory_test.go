package sqlaction_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
)

// allocated returns the bytes allocated while f ran.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestPostgresRowsWithinResultCap: a query whose rows are far larger than
// max_result_bytes stops reading once they pass it, and says the rows were
// cut short: a call reading 200 rows of 1 MiB under a cap of 2 MiB
// allocates a few MiB, not the 200 MiB of the rows.
func TestPostgresRowsWithinResultCap(t *testing.T) {
	b, s := postgresBackend(t)
	s.exec(t, "CREATE TABLE big (id int PRIMARY KEY, payload text)",
		"INSERT INTO big SELECT g, repeat('x', 1048576) FROM generate_series(1, 200) g")
	cfg := mustLoad(t, "", b.database("db", "")+`
tool "big" {
  description = "Big rows."
  max_result_bytes = 2097152
  sql {
    database = database.db
    query    = "SELECT id, payload FROM big ORDER BY id"
  }
}
tool "small" {
  description = "Rows of 10 KiB."
  max_result_bytes = 102400
  sql {
    database = database.db
    query    = "SELECT id, left(payload, 10240) AS payload FROM big ORDER BY id"
  }
}
tool "flag" {
  description = "Whether the rows were cut short."
  max_result_bytes = 2097152
  sql {
    database = database.db
    query    = "SELECT id, payload FROM big ORDER BY id"
  }
  output "truncated" { value = expr("truncated") }
  output "n" { value = expr("len(rows)") }
}
`)
	mustCall(t, cfg, "big", `{}`) // connect, prepare the shape
	var text string
	n := allocated(func() { text = mustCall(t, cfg, "big", `{}`).Text() })
	t.Logf("one call reading 200 rows of 1 MiB under max_result_bytes = 2 MiB allocates %.1f MiB", float64(n)/(1<<20))
	if n > 16<<20 {
		t.Errorf("one call allocates %.1f MiB; want at most 16 MiB, a small multiple of max_result_bytes", float64(n)/(1<<20))
	}
	if !strings.Contains(text, "\n\nOnly the first 1 rows are shown: ") {
		t.Errorf("the text does not say it was cut short: …%s", text[max(0, len(text)-300):])
	}
	if got := structured(t, mustCall(t, cfg, "flag", `{}`)); got != `{"n":1,"truncated":true}` {
		t.Errorf("structured = %s", got)
	}
	// Rows smaller than the cap: as many as fit are shown whole, and the
	// text says the rest were left out.
	text = mustCall(t, cfg, "small", `{}`).Text()
	if want := "\n\nOnly the first 9 rows are shown: the query returned more, and these already take more than max_result_bytes (102400 bytes). Narrow the query, or select fewer columns, to see the rest."; !strings.HasSuffix(text, want) {
		t.Errorf("the text ends …%q; want …%q", text[max(0, len(text)-300):], want)
	}
}

// TestPostgresRowTooLargeIsNotRead: on PostgreSQL a row far larger than
// max_result_bytes is refused as it arrives, before it is read: a call
// meeting a row of 32 MiB under a cap of 64 KiB allocates far less than
// the row, and fails saying why; the pool stays usable. A statement that
// changes rows and returns them is not refused: its rows are left out of
// the result instead, and rows_affected counts them.
func TestPostgresRowTooLargeIsNotRead(t *testing.T) {
	b, s := postgresBackend(t)
	s.exec(t, "CREATE TABLE notes (id serial PRIMARY KEY, body text)")
	cfg := mustLoad(t, "", b.database("db", "")+`
tool "huge" {
  description = "One huge row."
  max_result_bytes = 65536
  sql {
    database = database.db
    query    = "SELECT repeat('x', 33554432) AS pad"
  }
}
tool "later" {
  description = "Small rows, then a huge one."
  max_result_bytes = 65536
  sql {
    database = database.db
    query    = "SELECT n, CASE WHEN n < 4 THEN 'a' ELSE repeat('x', 33554432) END AS pad FROM generate_series(1, 5) n"
  }
  output "n" { value = expr("len(rows)") }
  output "truncated" { value = expr("truncated") }
}
tool "add" {
  description = "Adds a large note and returns it."
  max_result_bytes = 65536
  sql {
    database = database.db
    query    = "INSERT INTO notes (body) VALUES (repeat('x', 1048576)) RETURNING id, body"
  }
  output "n" { value = expr("len(rows)") }
  output "affected" { value = expr("rows_affected") }
  output "truncated" { value = expr("truncated") }
}
tool "small" {
  description = "One small row."
  max_result_bytes = 65536
  sql {
    database = database.db
    query    = "SELECT count(*) AS n FROM notes"
  }
}
`)
	mustCall(t, cfg, "small", `{}`) // connect
	var res *engine.Result
	n := allocated(func() { res = call(t, cfg, "huge", `{}`) })
	t.Logf("a call meeting a row of 32 MiB under max_result_bytes = 64 KiB allocates %.1f MiB", float64(n)/(1<<20))
	if n > 8<<20 {
		t.Errorf("the call allocates %.1f MiB; want at most 8 MiB: the row must not be read", float64(n)/(1<<20))
	}
	want := `database "db": the first row takes 33554438 bytes as PostgreSQL sends it, more than this tool's max_result_bytes (65536 bytes) could show; select fewer or shorter columns (such as left(col, 1000) or substr(col, 1, 1000)), or raise max_result_bytes`
	if !res.IsError || res.Text() != want {
		t.Errorf("huge: error %v, %.300q; want %q", res.IsError, res.Text(), want)
	}
	// A later row refused unread cuts the rows short, as max_result_bytes
	// does.
	if got := structured(t, mustCall(t, cfg, "later", `{}`)); got != `{"n":3,"truncated":true}` {
		t.Errorf("later = %s", got)
	}
	if got := structured(t, mustCall(t, cfg, "add", `{}`)); got != `{"affected":1,"n":0,"truncated":true}` {
		t.Errorf("add = %s", got)
	}
	if got := mustCall(t, cfg, "small", `{}`).Text(); got != `[{"n":1}]` {
		t.Errorf("after them, small = %s, want one note", got)
	}
}

// testResultCap: rows are counted against max_result_bytes as they are
// read; reading stops before the first row that would not fit, the rows
// are flagged truncated, and the text says why.
func testResultCap(t *testing.T, b *backend) {
	pad := "repeat('0', 1000)"
	if b.driver == "sqlite" {
		pad = "hex(zeroblob(500))"
	}
	query := fmt.Sprintf("WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 50) SELECT n, %s AS pad FROM s ORDER BY n", pad)
	cfg := mustLoad(t, b.dir, b.database("db", "")+fmt.Sprintf(`
tool "padded" {
  description = "Padded numbers."
  max_result_bytes = 10000
  sql {
    database = database.db
    query    = %[1]s
  }
}
tool "flagged" {
  description = "Padded numbers."
  max_result_bytes = 10000
  sql {
    database = database.db
    query    = %[1]s
  }
  output "n" { value = expr("len(rows)") }
  output "truncated" { value = expr("truncated") }
}
`, hclString(query)))
	for range 2 { // the pool stays usable after statements cut short
		text := mustCall(t, cfg, "padded", `{}`).Text()
		if want := "\n\nOnly the first 9 rows are shown: the query returned more, and these already take more than max_result_bytes (10000 bytes)."; !strings.Contains(text, want) || !strings.HasPrefix(text, `[{"n":1,"pad":"0000`) {
			t.Errorf("text = %.80q…%q; want the rows, then %q", text, text[max(0, len(text)-200):], want)
		}
		if got := structured(t, mustCall(t, cfg, "flagged", `{}`)); got != `{"n":9,"truncated":true}` {
			t.Errorf("flagged = %s", got)
		}
	}
}

// testRowTooLarge: a first row that could not fit in max_result_bytes by
// itself fails the call with a tool error that says how to select less,
// whether the tool shows the rows or outputs; it is not carried in the
// result, and the pool stays usable.
func testRowTooLarge(t *testing.T, b *backend) {
	pad := "repeat('x', 1048576)"
	if b.driver == "sqlite" {
		pad = "hex(zeroblob(524288))"
	}
	cfg := mustLoad(t, b.dir, b.database("db", "")+fmt.Sprintf(`
tool "rows" {
  description = "One large row."
  max_result_bytes = 10000
  sql {
    database = database.db
    query    = "SELECT 1 AS n, %[1]s AS pad"
  }
}
tool "outputs" {
  description = "One large row."
  max_result_bytes = 10000
  sql {
    database = database.db
    query    = "SELECT 1 AS n, %[1]s AS pad"
  }
  output "n" { value = expr("len(rows)") }
}
tool "small" {
  description = "One small row."
  max_result_bytes = 10000
  sql {
    database = database.db
    query    = "SELECT 1 AS n"
  }
}
`, pad))
	want, limit := `database "db": the first row takes `, "more than this tool's max_result_bytes (10000 bytes)"
	advice := "; select fewer or shorter columns (such as left(col, 1000) or substr(col, 1, 1000)), or raise max_result_bytes"
	for range 2 { // the pool stays usable after a row too large
		for _, tool := range []string{"rows", "outputs"} {
			res := call(t, cfg, tool, `{}`)
			if text := res.Text(); !res.IsError || !strings.HasPrefix(text, want) || !strings.Contains(text, limit) || !strings.HasSuffix(text, advice) {
				t.Errorf("%s: error %v, %.300q; want a tool error %q…%q…%q", tool, res.IsError, text, want, limit, advice)
			}
		}
		if got := mustCall(t, cfg, "small", `{}`).Text(); got != `[{"n":1}]` {
			t.Errorf("small = %s", got)
		}
	}
}
