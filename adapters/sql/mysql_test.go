package sqlaction_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

func mysqlBackend(t *testing.T) (*backend, *myServer) {
	s := mysqlServer(t)
	return &backend{
		driver: "mysql",
		dsn:    s.dsn,
		exec:   s.exec,
		ph:     question,
		serial: "INT AUTO_INCREMENT PRIMARY KEY",
		sleep: func(marker string) string {
			return fmt.Sprintf("SELECT SLEEP(%d) AS slept /* %s */", int(slept.Seconds()), marker)
		},
		running: s.running,
	}, s
}

func TestMySQL(t *testing.T) {
	b, _ := mysqlBackend(t)
	runSuite(t, b)
}

func TestMySQLTypes(t *testing.T) {
	b, s := mysqlBackend(t)
	s.exec(t,
		`CREATE TABLE t (
			id INT PRIMARY KEY, ti TINYINT, sm SMALLINT, i INT, big BIGINT, ubig BIGINT UNSIGNED,
			dec_ DECIMAL(30,10), f FLOAT, d DOUBLE, bits BIT(10), bo BOOLEAN,
			v VARCHAR(20), tx TEXT, bl BLOB, vb VARBINARY(8), en ENUM('small','large'),
			j JSON, dt DATE, dtm DATETIME(3), ts TIMESTAMP NULL, tm TIME, yr YEAR
		)`,
		`INSERT INTO t VALUES (1, -7, 300, 42, 9223372036854775807, 18446744073709551615,
			12345678901234567890.0123456789, 1.1, 2.25, b'1000000001', TRUE,
			'x''y', 'héllo', x'00ff10', x'0102', 'large',
			'{"a": [1, 2.5, "x"]}', '2024-02-29', '2024-02-29 13:45:00.5', '2024-02-29 13:45:00', '13:45:00', 2024)`,
		`INSERT INTO t (id) VALUES (2)`,
	)
	cfg := mustLoad(t, "", b.database("db", "")+`
tool "text_protocol" {
  description = "Every type, without parameters (the text protocol)."
  sql {
    database = database.db
    query    = "SELECT * FROM t ORDER BY id"
  }
  output "rows" { value = expr("rows") }
  output "columns" { value = expr("columns") }
}
tool "binary_protocol" {
  description = "Every type, with a parameter (a prepared statement)."
  sql {
    database = database.db
    query    = "SELECT * FROM t WHERE id > ? ORDER BY id"
    params   = [0]
  }
  output "rows" { value = expr("rows") }
  output "columns" { value = expr("columns") }
}
`)
	jsonValue := `{"a":[1,2.5,"x"]}`
	if s.mariaDB {
		// MariaDB's JSON is LONGTEXT: the column says TEXT, and the
		// value is its text.
		jsonValue = `"{\"a\": [1, 2.5, \"x\"]}"`
	}
	want := []map[string]string{
		{
			"id": `1`, "ti": `-7`, "sm": `300`, "i": `42`, "big": `9223372036854775807`, "ubig": `18446744073709551615`,
			"dec_": `"12345678901234567890.0123456789"`, "f": `1.1`, "d": `2.25`, "bits": `513`, "bo": `1`,
			"v": `"x'y"`, "tx": `"héllo"`, "bl": `"AP8Q"`, "vb": `"AQI="`, "en": `"large"`,
			"j": jsonValue, "dt": `"2024-02-29"`, "dtm": `"2024-02-29T13:45:00.5Z"`, "ts": `"2024-02-29T13:45:00Z"`,
			"tm": `"13:45:00"`, "yr": `2024`,
		},
		{"id": `2`, "ti": `null`, "dec_": `null`, "f": `null`, "bits": `null`, "bl": `null`, "j": `null`, "dtm": `null`, "ts": `null`, "tm": `null`},
	}
	for _, tool := range []string{"text_protocol", "binary_protocol"} {
		t.Run(tool, func(t *testing.T) {
			res := mustCall(t, cfg, tool, `{}`)
			var out struct {
				Rows    []map[string]json.RawMessage
				Columns []map[string]string
			}
			if err := json.Unmarshal([]byte(structured(t, res)), &out); err != nil {
				t.Fatal(err)
			}
			checkRows(t, out.Rows, want)
			types := map[string]string{}
			for _, c := range out.Columns {
				types[c["name"]] = c["type"]
			}
			for name, typ := range map[string]string{"ubig": "UNSIGNED BIGINT", "dec_": "DECIMAL", "bl": "BLOB", "dtm": "DATETIME", "yr": "YEAR"} {
				if types[name] != typ {
					t.Errorf("column %s has type %q, want %q", name, types[name], typ)
				}
			}
		})
	}
}

// TestMySQLSecrets: the password never shows.
func TestMySQLSecrets(t *testing.T) {
	s := mysqlServer(t)
	cfg, _ := mysql.ParseDSN(s.dsn)
	cfg.User, cfg.Passwd = "nobody_"+randomName(""), "Sup3rS3cret"
	conf := mustLoad(t, "", fmt.Sprintf(`
database "orders" {
  driver = "mysql"
  dsn    = %s
}
tool "read" {
  description = "Reads."
  sql {
    database = database.orders
    query    = "SELECT 1"
  }
}
`, hclString(cfg.FormatDSN())))
	err := conf.Check(t.Context())
	if err == nil || !strings.HasPrefix(err.Error(), `database "orders" (mysql): cannot connect: `) || strings.Contains(err.Error(), "Sup3rS3cret") {
		t.Errorf("check = %v", err)
	}
	res := call(t, conf, "read", `{}`)
	if !res.IsError || strings.Contains(res.Text(), "Sup3rS3cret") || !strings.Contains(res.Text(), "Access denied") {
		t.Errorf("read = %v %q", res.IsError, res.Text())
	}
}

// TestMySQLInit: init runs once; it may hold many statements.
func TestMySQLInit(t *testing.T) {
	b, _ := mysqlBackend(t)
	for range 2 {
		cfg := mustLoad(t, "", b.database("db", "init = "+hclString("CREATE TABLE fruit (name VARCHAR(20));\nINSERT INTO fruit VALUES ('apple'), ('pear');\n"))+`
tool "count" {
  description = "Count."
  sql {
    database = database.db
    query    = "SELECT count(*) AS n FROM fruit"
  }
}
`)
		if got := mustCall(t, cfg, "count", `{}`).Text(); got != `[{"n":2}]` {
			t.Errorf("count = %q", got)
		}
	}
}

// TestMySQLTruncateStopsTheStatement: a statement cut short is killed,
// not read to its end.
func TestMySQLTruncateStopsTheStatement(t *testing.T) {
	b, s := mysqlBackend(t)
	s.exec(t, "CREATE TABLE ten (n INT)", "INSERT INTO ten VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)")
	marker := randomName("huge")
	cfg := mustLoad(t, "", b.database("db", "")+fmt.Sprintf(`
tool "huge" {
  description = "A hundred million rows."
  sql {
    database = database.db
    query    = "SELECT a.n + 10 * b.n AS n /* %s */ FROM ten a, ten b, ten c, ten d, ten e, ten f, ten g, ten h"
    max_rows = 5
  }
  output "n" { value = expr("len(rows)") }
}
`, marker))
	start := time.Now()
	for range 3 {
		if got := structured(t, mustCall(t, cfg, "huge", `{}`)); got != `{"n":5}` {
			t.Errorf("huge = %s", got)
		}
	}
	// Reading the hundred million rows takes minutes; a stopped statement
	// ends in well under a second, but a busy machine can slow the stop:
	// leave room, as the PostgreSQL test does.
	if elapsed := time.Since(start); elapsed > 20*time.Second {
		t.Errorf("three calls took %s: the rows were read to the end", elapsed)
	}
	if !eventually(func() bool { return s.running(t, marker) == 0 }) {
		t.Errorf("the statement still runs on the server")
	}
}

// TestMySQLDriverLogsToTheServerLog: what the driver reports (here, an idle
// connection the server closed) reaches the server's log with the
// database's name, not a bare "[mysql]" line on stderr.
func TestMySQLDriverLogsToTheServerLog(t *testing.T) {
	b, s := mysqlBackend(t)
	var log logBuffer
	cfg := loadLogged(t, "", b.database("db", "")+`
tool "conn" {
  description = "The connection's id."
  sql {
    database = database.db
    query    = "SELECT CONNECTION_ID() AS id"
  }
  output "id" { value = expr("rows[0].id") }
}
`, &log)
	var out struct{ ID int64 }
	if err := json.Unmarshal([]byte(structured(t, mustCall(t, cfg, "conn", `{}`))), &out); err != nil {
		t.Fatal(err)
	}
	s.exec(t, fmt.Sprintf("KILL %d", out.ID))
	mustCall(t, cfg, "conn", `{}`)
	got := log.take()
	if !strings.Contains(got, "closing bad idle connection") || !strings.Contains(got, "mysql driver") || !strings.Contains(got, "database=db") {
		t.Errorf("the server log has no line from the driver:\n%s", got)
	}
}
