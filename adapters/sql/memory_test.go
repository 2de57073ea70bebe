package sqlaction_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
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
// cut short: a call reading 200 rows of 1 MiB under a cap of 1 MiB
// allocates a few MiB, not the 200 MiB of the rows.
func TestPostgresRowsWithinResultCap(t *testing.T) {
	b, s := postgresBackend(t)
	s.exec(t, "CREATE TABLE big (id int PRIMARY KEY, payload text)",
		"INSERT INTO big SELECT g, repeat('x', 1048576) FROM generate_series(1, 200) g")
	cfg := mustLoad(t, "", b.database("db", "")+`
tool "big" {
  description = "Big rows."
  max_result_bytes = 1048576
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
  max_result_bytes = 1048576
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
	t.Logf("one call reading 200 rows of 1 MiB under max_result_bytes = 1 MiB allocates %.1f MiB", float64(n)/(1<<20))
	if n > 16<<20 {
		t.Errorf("one call allocates %.1f MiB; want at most 16 MiB, a small multiple of max_result_bytes", float64(n)/(1<<20))
	}
	if !strings.Contains(text, "[truncated: ") {
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
