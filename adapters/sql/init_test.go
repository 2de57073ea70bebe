package sqlaction_test

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"

	sqlaction "github.com/mcpdecl/mcpdecl/adapters/sql"
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// logBuffer collects log lines, for tests that read what was logged.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// take returns what was logged since the last take.
func (l *logBuffer) take() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.buf.String()
	l.buf.Reset()
	return s
}

// loadLogged is mustLoad, logging to log.
func loadLogged(t *testing.T, dir, src string, log *logBuffer) *engine.Config {
	t.Helper()
	cfg, _, diags := enginetest.Load(t, engine.NewRegistry(sqlaction.New()), src, enginetest.Options{
		Dir: dir, LookupEnv: enginetest.MapEnv(nil),
		Logger: slog.New(slog.NewTextHandler(log, nil)),
	})
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	return cfg
}

// testInit: each init runs once per database, whichever configuration
// gives it: another configuration's init, or an edited one, runs too, and
// the log says what ran and what was skipped.
func testInit(t *testing.T, b *backend) {
	var log logBuffer
	// count loads a configuration whose database has init, and counts the
	// rows of table.
	count := func(init, table string) string {
		t.Helper()
		cfg := loadLogged(t, b.dir, b.database("db", "init = "+hclString(init))+`
tool "count" {
  description = "Count."
  sql {
    database = database.db
    query    = "SELECT count(*) AS n FROM `+table+`"
  }
}
`, &log)
		defer cfg.Close()
		res := call(t, cfg, "count", `{}`)
		if res.IsError {
			t.Errorf("init %q: %s", init, res.Text())
		}
		return res.Text()
	}
	expect := func(what, want string) {
		t.Helper()
		got := log.take()
		if !strings.Contains(got, want) || !strings.Contains(got, "database=db") || !strings.Contains(got, "init_sha256=") {
			t.Errorf("%s: the log says %q; want %q, with the database and the init's hash", what, got, want)
		}
	}

	// A database initialised before inits were keyed by hash: its init is
	// taken to be the current one, and does not run again.
	old := "CREATE TABLE init_old (n INT); INSERT INTO init_old VALUES (7);"
	b.exec(t, "CREATE TABLE mcpdecl_init (applied_at VARCHAR(64) NOT NULL)",
		"INSERT INTO mcpdecl_init (applied_at) VALUES ('2025-01-01T00:00:00Z')",
		"CREATE TABLE init_old (n INT)", "INSERT INTO init_old VALUES (7)")
	if got := count(old, "init_old"); got != `[{"n":1}]` {
		t.Errorf("the init of an old marker: count = %s", got)
	}
	expect("an old marker", `msg="database init marker upgraded: the init that ran before is taken to be the current one"`)
	if got := count(old, "init_old"); got != `[{"n":1}]` {
		t.Errorf("the init of an old marker, again: count = %s", got)
	}
	expect("an old marker, again", `msg="database init skipped: already run"`)

	first := "CREATE TABLE init_a (n INT); INSERT INTO init_a VALUES (1);"
	if got := count(first, "init_a"); got != `[{"n":1}]` {
		t.Errorf("first init: count = %s", got)
	}
	expect("first init", `msg="database init ran"`)

	other := "CREATE TABLE init_b (n INT); INSERT INTO init_b VALUES (1), (2);"
	if got := count(other, "init_b"); got != `[{"n":2}]` {
		t.Errorf("another configuration's init: count = %s", got)
	}
	expect("another configuration's init", `msg="database init ran"`)

	if got := count(first, "init_a"); got != `[{"n":1}]` {
		t.Errorf("the first init again: count = %s; it must run once", got)
	}
	expect("the first init again", `msg="database init skipped: already run"`)

	// An edited init runs whole: what it made before must not stop it.
	edited := "CREATE TABLE IF NOT EXISTS init_a (n INT); CREATE TABLE init_c (n INT); INSERT INTO init_c VALUES (3);"
	if got := count(edited, "init_c"); got != `[{"n":1}]` {
		t.Errorf("an edited init: count = %s", got)
	}
	expect("an edited init", `msg="database init ran"`)
}
