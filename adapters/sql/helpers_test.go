package sqlaction_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/hashicorp/hcl/v2"
	_ "github.com/jackc/pgx/v5/stdlib"

	sqlaction "github.com/mcpdecl/mcpdecl/adapters/sql"
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// Where the tests find the database servers.
const (
	postgresEnv        = "MCPDECL_TEST_POSTGRES_DSN"
	mysqlEnv           = "MCPDECL_TEST_MYSQL_DSN"
	defaultPostgresDSN = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	defaultMySQLDSN    = "root@tcp(127.0.0.1:3306)/test"
)

// loadConfig loads src as the one file tools.hcl in dir (a new temporary
// directory when empty), with the SQL adapter and an empty environment,
// and closes the configuration when the test ends.
func loadConfig(t testing.TB, dir, src string, vars map[string]string) (*engine.Config, hcl.Diagnostics) {
	t.Helper()
	cfg, _, diags := enginetest.Load(t, engine.NewRegistry(sqlaction.New()), src, enginetest.Options{Dir: dir, Vars: vars, LookupEnv: enginetest.MapEnv(nil)})
	return cfg, diags
}

// mustLoad is loadConfig that fails the test on errors.
func mustLoad(t testing.TB, dir, src string) *engine.Config {
	t.Helper()
	cfg, diags := loadConfig(t, dir, src, nil)
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	return cfg
}

var describe = enginetest.Describe

// call runs a tool with JSON arguments.
func call(t testing.TB, cfg *engine.Config, tool, args string) *engine.Result {
	t.Helper()
	return enginetest.Call(context.Background(), t, cfg, tool, args)
}

var callCtx = enginetest.Call

// mustCall runs a tool and fails the test on a tool error.
func mustCall(t testing.TB, cfg *engine.Config, tool, args string) *engine.Result {
	t.Helper()
	res := call(t, cfg, tool, args)
	if res.IsError {
		t.Fatalf("%s %s: tool error: %s", tool, args, res.Text())
	}
	return res
}

var structured = enginetest.Structured

// randomName is a name for a scratch schema or database.
func randomName(prefix string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// unreachable skips the test, or fails it in CI, when a server is down.
func unreachable(t testing.TB, what, dsnEnv, start string, err error) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not reachable (%v); CI must provide it (set %s to its DSN)", what, err, dsnEnv)
	}
	t.Skipf("%s is not reachable (%v): start it (%s) or set %s to its DSN", what, err, start, dsnEnv)
}

// pgServer is a scratch schema on the test PostgreSQL server.
type pgServer struct {
	admin  *sql.DB
	schema string
	dsn    string // a DSN whose search_path is the scratch schema
	app    string // the application_name of the DSN's connections
}

// postgres connects to the test server and creates a scratch schema,
// dropped when the test ends.
func postgres(t testing.TB) *pgServer {
	t.Helper()
	base := os.Getenv(postgresEnv)
	if base == "" {
		base = defaultPostgresDSN
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), enginetest.Patience)
	defer cancel()
	if err := admin.PingContext(ctx); err != nil {
		_ = admin.Close()
		unreachable(t, "PostgreSQL", postgresEnv, "bash .ci/services.sh, or pg_ctlcluster 15 main start", err)
	}
	s := &pgServer{admin: admin, schema: randomName("mcpdecl_"), app: randomName("mcpdecl_test_")}
	if _, err := admin.Exec("CREATE SCHEMA " + s.schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = admin.Exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", s.app)
		if _, err := admin.Exec("DROP SCHEMA " + s.schema + " CASCADE"); err != nil {
			t.Errorf("drop schema: %v", err)
		}
		_ = admin.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s must be a postgres:// URL: %v", postgresEnv, err)
	}
	q := u.Query()
	q.Set("search_path", s.schema)
	q.Set("application_name", s.app)
	u.RawQuery = q.Encode()
	s.dsn = u.String()
	return s
}

// exec runs statements in the scratch schema.
func (s *pgServer) exec(t testing.TB, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := s.admin.Exec("SET search_path TO " + s.schema + "; " + q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// running counts the statements of the test's connections that are
// running and whose text holds marker.
func (s *pgServer) running(t testing.TB, marker string) int {
	t.Helper()
	var n int
	err := s.admin.QueryRow(`SELECT count(*) FROM pg_stat_activity
		WHERE application_name = $1 AND state = 'active' AND query LIKE '%' || $2 || '%'`, s.app, marker).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// myServer is a scratch database on the test MySQL or MariaDB server.
type myServer struct {
	admin   *sql.DB
	db      *sql.DB // connected to the scratch database
	name    string
	dsn     string
	mariaDB bool
}

// mysqlServer connects to the test server and creates a scratch database,
// dropped when the test ends.
func mysqlServer(t testing.TB) *myServer {
	t.Helper()
	base := os.Getenv(mysqlEnv)
	if base == "" {
		base = defaultMySQLDSN
	}
	cfg, err := mysql.ParseDSN(base)
	if err != nil {
		t.Fatalf("%s: %v", mysqlEnv, err)
	}
	admin, err := sql.Open("mysql", base)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), enginetest.Patience)
	defer cancel()
	if err := admin.PingContext(ctx); err != nil {
		_ = admin.Close()
		unreachable(t, "MySQL/MariaDB", mysqlEnv, "bash .ci/services.sh, or start mariadbd", err)
	}
	s := &myServer{admin: admin, name: randomName("mcpdecl_")}
	var version string
	if err := admin.QueryRow("SELECT VERSION()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	s.mariaDB = strings.Contains(strings.ToLower(version), "mariadb")
	if _, err := admin.Exec("CREATE DATABASE " + s.name); err != nil {
		t.Fatal(err)
	}
	cfg.DBName = s.name
	s.dsn = cfg.FormatDSN()
	s.db, err = sql.Open("mysql", s.dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = s.db.Close()
		if _, err := admin.Exec("DROP DATABASE " + s.name); err != nil {
			t.Errorf("drop database: %v", err)
		}
		_ = admin.Close()
	})
	return s
}

func (s *myServer) exec(t testing.TB, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := s.db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// running counts the statements running on the server whose text holds
// marker.
func (s *myServer) running(t testing.TB, marker string) int {
	t.Helper()
	var n int
	err := s.admin.QueryRow(`SELECT count(*) FROM information_schema.PROCESSLIST
		WHERE INFO LIKE CONCAT('%', ?, '%') AND INFO NOT LIKE '%PROCESSLIST%'`, marker).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// sqliteFile creates a SQLite database file in a new temporary directory
// with the given statements, and returns its path.
func sqliteFile(t testing.TB, stmts ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.db")
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
	return path
}

// hclString quotes s for HCL.
func hclString(s string) string {
	b, _ := json.Marshal(s)
	return strings.NewReplacer("${", "$${", "%{", "%%{").Replace(string(b))
}

// eventually waits for cond to hold, as long as enginetest.Patience.
func eventually(cond func() bool) bool {
	deadline := time.Now().Add(enginetest.Patience)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cond()
}
