package sqlaction_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

func postgresBackend(t *testing.T) (*backend, *pgServer) {
	s := postgres(t)
	return &backend{
		driver: "postgres",
		dsn:    s.dsn,
		exec:   s.exec,
		ph:     dollar,
		serial: "SERIAL PRIMARY KEY",
		sleep: func(marker string) string {
			return fmt.Sprintf("SELECT pg_sleep(%d) /* %s */", int(slept.Seconds()), marker)
		},
		running: s.running,
	}, s
}

func TestPostgres(t *testing.T) {
	b, _ := postgresBackend(t)
	runSuite(t, b)
}

func TestPostgresTypes(t *testing.T) {
	b, s := postgresBackend(t)
	s.exec(t,
		`CREATE TABLE t (
			id int PRIMARY KEY, sm smallint, i integer, big bigint,
			num numeric(30,10), num_free numeric, r real, d double precision,
			b boolean, s text, v varchar(20), c char(3), by bytea,
			j json, jb jsonb, ts timestamp, tstz timestamptz, dt date, tm time,
			u uuid, arr int[], iv interval
		)`,
		`INSERT INTO t VALUES (1, -7, 42, 9223372036854775807,
			12345678901234567890.0123456789, 0.1, 1.1, 2.25,
			true, 'héllo', 'x''y', 'ab', '\x00ff10',
			'{"a": [1, 2.5, "x"], "big": 12345678901234567890}', '{"k": {"n": 1}}',
			'2024-02-29 13:45:00.5', '2024-02-29 13:45:00+02', '2024-02-29', '13:45:00',
			'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{1,2,3}', '1 day 2 hours')`,
		`INSERT INTO t (id) VALUES (2)`,
	)
	cfg := mustLoad(t, "", b.database("db", "")+`
tool "all" {
  description = "Every type."
  arg "min" {
    type    = integer
    default = 0
  }
  sql {
    database = database.db
    query    = "SELECT * FROM t WHERE id > $1 ORDER BY id"
    params   = [expr("args.min")]
  }
  output "rows" { value = expr("rows") }
  output "columns" { value = expr("columns") }
}
`)
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
			"id": `1`, "sm": `-7`, "i": `42`, "big": `9223372036854775807`,
			"num": `"12345678901234567890.0123456789"`, "num_free": `"0.1"`, "r": `1.1`, "d": `2.25`,
			"b": `true`, "s": `"héllo"`, "v": `"x'y"`, "c": `"ab "`, "by": `"AP8Q"`,
			"j": `{"a":[1,2.5,"x"],"big":12345678901234567000}`, "jb": `{"k":{"n":1}}`,
			"ts": `"2024-02-29T13:45:00.5Z"`, "tstz": `"2024-02-29T11:45:00Z"`, "dt": `"2024-02-29"`, "tm": `"13:45:00"`,
			"u": `"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"`, "arr": `"{1,2,3}"`, "iv": `"1 day 02:00:00"`,
		},
		{"id": `2`, "sm": `null`, "num": `null`, "b": `null`, "by": `null`, "j": `null`, "jb": `null`, "tstz": `null`, "u": `null`},
	}
	checkRows(t, out.Rows, want)
	types := map[string]string{}
	for _, c := range out.Columns {
		types[c["name"]] = c["type"]
	}
	for name, typ := range map[string]string{"big": "INT8", "num": "NUMERIC", "jb": "JSONB", "tstz": "TIMESTAMPTZ", "u": "UUID", "by": "BYTEA"} {
		if types[name] != typ {
			t.Errorf("column %s has type %q, want %q", name, types[name], typ)
		}
	}
}

// TestPostgresListParams: lists and maps bind as arrays and JSON.
func TestPostgresListParams(t *testing.T) {
	b, _ := postgresBackend(t)
	cfg := mustLoad(t, "", b.database("db", "")+`
tool "pick" {
  description = "Numbers in a list."
  arg "ids" { type = list(integer) }
  arg "doc" { type = map(string) }
  sql {
    database = database.db
    query    = "SELECT g AS n, $2::jsonb ->> 'k' AS k FROM generate_series(1, 10) g WHERE g = ANY($1) ORDER BY g"
    params   = [expr("args.ids"), expr("args.doc")]
  }
}
`)
	if got := mustCall(t, cfg, "pick", `{"ids": [2, 5, 42], "doc": {"k": "v"}}`).Text(); got != `[{"n":2,"k":"v"},{"n":5,"k":"v"}]` {
		t.Errorf("pick = %q", got)
	}
}

// TestPostgresTruncateStopsTheStatement: a statement cut short by max_rows
// is not read to its end.
func TestPostgresTruncateStopsTheStatement(t *testing.T) {
	b, _ := postgresBackend(t)
	cfg := mustLoad(t, "", b.database("db", "")+`
tool "huge" {
  description = "Many rows."
  sql {
    database = database.db
    query    = "SELECT generate_series(1, 200000000) AS n"
    max_rows = 5
  }
  output "n" { value = expr("len(rows)") }
}
`)
	start := time.Now()
	for range 3 {
		res := mustCall(t, cfg, "huge", `{}`)
		if got := structured(t, res); got != `{"n":5}` {
			t.Errorf("huge = %s", got)
		}
	}
	// Reading the 200 million rows takes minutes; a cancelled statement
	// ends in well under a second, but a busy machine (go test runs
	// packages side by side) can slow its cancel request: leave room.
	if elapsed := time.Since(start); elapsed > 20*time.Second {
		t.Errorf("three calls took %s: the rows were read to the end", elapsed)
	}
}

// TestPostgresReturning: a statement that changes rows and returns them
// counts every row it changed, even past max_rows.
func TestPostgresReturning(t *testing.T) {
	b, s := postgresBackend(t)
	s.exec(t, "CREATE TABLE nums (n int)")
	cfg := mustLoad(t, "", b.database("db", "")+`
tool "fill" {
  description = "Inserts rows and returns them."
  sql {
    database = database.db
    query    = "INSERT INTO nums SELECT g FROM generate_series(1, 20) g RETURNING n"
    max_rows = 5
  }
  output "n" { value = expr("len(rows)") }
  output "affected" { value = expr("rows_affected") }
  output "truncated" { value = expr("truncated") }
}
tool "count" {
  description = "Counts."
  sql {
    database = database.db
    query    = "SELECT count(*) AS n FROM nums"
  }
}
`)
	if got := structured(t, mustCall(t, cfg, "fill", `{}`)); got != `{"affected":20,"n":5,"truncated":true}` {
		t.Errorf("fill = %s", got)
	}
	if got := mustCall(t, cfg, "count", `{}`).Text(); got != `[{"n":20}]` {
		t.Errorf("count = %q", got)
	}
	tl, _ := cfg.Tool("fill")
	if a := tl.Annotations(); *a.ReadOnlyHint || !*a.DestructiveHint {
		t.Errorf("fill annotations: %+v", a)
	}
}

// TestPostgresRecovers: connections terminated on the server (a restart,
// a failover) are replaced; at most the call that meets a dead connection
// fails, with a clear error.
func TestPostgresRecovers(t *testing.T) {
	b, s := postgresBackend(t)
	s.exec(t, "CREATE TABLE log (msg text)")
	cfg := mustLoad(t, "", b.database("db", "max_open_conns = 4")+`
tool "read" {
  description = "Reads."
  sql {
    database = database.db
    query    = "SELECT 1 AS one"
  }
}
tool "write" {
  description = "Writes."
  sql {
    database = database.db
    query    = "INSERT INTO log VALUES ('x')"
  }
}
`)
	warm := func() {
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() { mustCall(t, cfg, "read", `{}`) })
		}
		wg.Wait()
	}
	terminate := func() {
		var n int
		if err := s.admin.QueryRow("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1", s.app).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatal("no connection to terminate")
		}
	}
	// Connections that die while a statement runs: a statement that only
	// reads runs again on a new connection, one that writes fails
	// clearly.
	midCfg := mustLoad(t, "", b.database("db", "")+`
tool "slow_read" {
  description = "Reads slowly."
  sql {
    database = database.db
    query    = "SELECT 1 AS one FROM pg_sleep(0.5)"
  }
}
tool "slow_write" {
  description = "Writes slowly."
  sql {
    database = database.db
    query    = "INSERT INTO log SELECT 'slow' FROM pg_sleep(0.5)"
  }
}
`)
	for _, tool := range []string{"slow_read", "slow_write"} {
		killed := make(chan struct{})
		time.AfterFunc(250*time.Millisecond, func() { defer close(killed); terminate() })
		res := call(t, midCfg, tool, `{}`)
		<-killed
		switch {
		case tool == "slow_read" && (res.IsError || res.Text() != `[{"one":1}]`):
			t.Errorf("slow_read was not run again: %v %q", res.IsError, res.Text())
		case tool == "slow_write" && (!res.IsError || !strings.HasPrefix(res.Text(), `database "db": `) || !strings.Contains(res.Text(), "terminating connection")):
			t.Errorf("slow_write: %v %q", res.IsError, res.Text())
		}
		if res := call(t, midCfg, tool, `{}`); res.IsError {
			t.Errorf("%s did not recover: %s", tool, res.Text())
		}
	}

	for _, tool := range []string{"read", "write"} {
		warm()
		terminate()
		failures := 0
		for range 6 {
			res := call(t, cfg, tool, `{}`)
			if res.IsError {
				failures++
				if !strings.HasPrefix(res.Text(), `database "db": `) {
					t.Errorf("%s: unclear error %q", tool, res.Text())
				}
			}
		}
		t.Logf("%s: %d of 6 calls failed after the connections were terminated", tool, failures)
		if failures > 1 {
			t.Errorf("%s: %d of 6 calls failed after the connections were terminated", tool, failures)
		}
		if tool == "read" && failures > 0 {
			t.Errorf("a read-only statement is retried on a new connection: %d failures", failures)
		}
		if res := call(t, cfg, tool, `{}`); res.IsError {
			t.Errorf("%s did not recover: %s", tool, res.Text())
		}
	}
}

// TestPostgresSecrets: the password never shows, in Check errors or tool
// errors.
func TestPostgresSecrets(t *testing.T) {
	dsn := "postgres://app:Sup3rS3cret@127.0.0.1:1/test?sslmode=disable&connect_timeout=2"
	cfg := mustLoad(t, "", fmt.Sprintf(`
database "orders" {
  driver = "postgres"
  dsn    = %q
}
tool "read" {
  description = "Reads."
  sql {
    database = database.orders
    query    = "SELECT 1"
  }
}
`, dsn))
	err := cfg.Check(t.Context())
	if err == nil || !strings.HasPrefix(err.Error(), `database "orders" (postgres): cannot connect: `) {
		t.Fatalf("check = %v", err)
	}
	res := call(t, cfg, "read", `{}`)
	if !res.IsError || !strings.HasPrefix(res.Text(), `database "orders": `) {
		t.Errorf("read = %v %q", res.IsError, res.Text())
	}
	for _, text := range []string{err.Error(), res.Text()} {
		if strings.Contains(text, "Sup3rS3cret") || strings.Contains(text, url.QueryEscape(dsn)) {
			t.Errorf("the password shows: %q", text)
		}
	}
	// Wrong credentials on the real server: the message says why.
	s := postgres(t)
	u, _ := url.Parse(s.dsn)
	u.User = url.UserPassword("nobody_"+randomName(""), "Sup3rS3cret")
	cfg = mustLoad(t, "", fmt.Sprintf(`
database "orders" {
  driver = "postgres"
  dsn    = %q
}
`, u.String()))
	if err := cfg.Check(t.Context()); err == nil || strings.Contains(err.Error(), "Sup3rS3cret") {
		t.Errorf("check = %v", err)
	}
}

// TestPostgresInit: init runs once, in a transaction.
func TestPostgresInit(t *testing.T) {
	b, s := postgresBackend(t)
	src := func(init string) string {
		return b.database("db", "init = "+hclString(init)) + `
tool "count" {
  description = "Count."
  sql {
    database = database.db
    query    = "SELECT count(*) AS n FROM fruit"
  }
}
`
	}
	cfg := mustLoad(t, "", src("CREATE TABLE fruit (name text); INSERT INTO fruit VALUES ('apple'); INSERT INTO nowhere VALUES (1);"))
	if res := call(t, cfg, "count", `{}`); !res.IsError || !strings.Contains(res.Text(), "init failed, nothing was applied") {
		t.Fatalf("bad init: %q", res.Text())
	}
	var n int
	if err := s.admin.QueryRow("SELECT count(*) FROM pg_tables WHERE schemaname = $1", s.schema).Scan(&n); err != nil || n != 0 {
		t.Errorf("a failed init left %d tables (%v)", n, err)
	}
	for range 2 {
		cfg := mustLoad(t, "", src("CREATE TABLE fruit (name text); INSERT INTO fruit VALUES ('apple'), ('pear');"))
		if got := mustCall(t, cfg, "count", `{}`).Text(); got != `[{"n":2}]` {
			t.Errorf("count = %q", got)
		}
	}
}
