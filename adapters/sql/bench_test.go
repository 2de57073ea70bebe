package sqlaction_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// The benchmarks compare one call of a tool through the engine (argument
// validation, binding, the statement, typed rows, the result's text) with
// the same statement run with plain database/sql: QueryContext and a scan
// of every row into a map; and, for SQLite, whose statements the engine
// prepares once, with a statement prepared once.

const benchRows = 10

// benchSetup creates the table the benchmarks read: 200 products.
func benchSetup(exec func(testing.TB, ...string), tb testing.TB, serial string) {
	stmts := []string{"CREATE TABLE products (id " + serial + ", sku VARCHAR(20), name VARCHAR(100), category VARCHAR(20), price_cents INTEGER, stock INTEGER)"}
	var values []string
	for i := range 200 {
		cat := []string{"coffee", "tea", "kitchen", "books"}[i%4]
		values = append(values, fmt.Sprintf("('SKU-%03d', 'Product number %d', '%s', %d, %d)", i, i, cat, 100+i*7, i%13))
	}
	stmts = append(stmts, "INSERT INTO products (sku, name, category, price_cents, stock) VALUES "+strings.Join(values, ", "))
	exec(tb, stmts...)
}

func benchQuery(ph func(int) string) string {
	return fmt.Sprintf("SELECT id, sku, name, price_cents, stock FROM products WHERE category = %s ORDER BY id LIMIT %d", ph(1), benchRows)
}

func benchTool(b *backend) string {
	return b.database("db", "") + fmt.Sprintf(`
tool "products" {
  description = "Products of a category."
  arg "category" {
    type = string
    enum = ["coffee", "tea", "kitchen", "books"]
  }
  sql {
    database = database.db
    query    = %s
    params   = [expr("args.category")]
  }
}
`, hclString(benchQuery(b.ph)))
}

func benchCallTool(tb *testing.B, b *backend) {
	cfg := mustLoad(tb, "", benchTool(b))
	tool, _ := cfg.Tool("products")
	args := json.RawMessage(`{"category": "tea"}`)
	ctx := context.Background()
	res := tool.Call(ctx, args)
	if res.IsError || strings.Count(res.Text(), `"sku"`) != benchRows {
		tb.Fatalf("%v %s", res.IsError, res.Text())
	}
	tb.ReportAllocs()
	tb.ResetTimer()
	for tb.Loop() {
		if res := tool.Call(ctx, args); res.IsError {
			tb.Fatal(res.Text())
		}
	}
}

func benchCallRaw(tb *testing.B, driver, dsn, query string, prepare bool) {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	db.SetMaxIdleConns(10)
	ctx := context.Background()
	queryContext := func(ctx context.Context) (*sql.Rows, error) { return db.QueryContext(ctx, query, "tea") }
	if prepare {
		stmt, err := db.PrepareContext(ctx, query)
		if err != nil {
			tb.Fatal(err)
		}
		defer stmt.Close()
		queryContext = func(ctx context.Context) (*sql.Rows, error) { return stmt.QueryContext(ctx, "tea") }
	}
	run := func() []map[string]any {
		// A deadline, as every tool call has one.
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		rows, err := queryContext(ctx)
		if err != nil {
			tb.Fatal(err)
		}
		defer rows.Close()
		cols, err := rows.Columns()
		if err != nil {
			tb.Fatal(err)
		}
		values := make([]any, len(cols))
		dest := make([]any, len(cols))
		for i := range values {
			dest[i] = &values[i]
		}
		var out []map[string]any
		for rows.Next() {
			if err := rows.Scan(dest...); err != nil {
				tb.Fatal(err)
			}
			row := make(map[string]any, len(cols))
			for i, c := range cols {
				row[c] = values[i]
			}
			out = append(out, row)
		}
		if err := rows.Err(); err != nil {
			tb.Fatal(err)
		}
		return out
	}
	if got := run(); len(got) != benchRows {
		tb.Fatalf("%d rows", len(got))
	}
	tb.ReportAllocs()
	tb.ResetTimer()
	for tb.Loop() {
		run()
	}
}

func benchSQLite(tb *testing.B) *backend {
	b := sqliteBackend(tb)
	benchSetup(b.exec, tb, b.serial)
	return b
}

func BenchmarkSQLiteTool(tb *testing.B) {
	benchCallTool(tb, benchSQLite(tb))
}

func BenchmarkSQLiteRaw(tb *testing.B) {
	b := benchSQLite(tb)
	benchCallRaw(tb, "sqlite", b.dsn+"?_busy_timeout=5000", benchQuery(question), false)
}

func BenchmarkSQLiteRawPrepared(tb *testing.B) {
	b := benchSQLite(tb)
	benchCallRaw(tb, "sqlite", b.dsn+"?_busy_timeout=5000", benchQuery(question), true)
}

func benchPostgres(tb *testing.B) *backend {
	s := postgres(tb)
	b := &backend{driver: "postgres", dsn: s.dsn, exec: s.exec, ph: dollar, serial: "SERIAL PRIMARY KEY"}
	benchSetup(b.exec, tb, b.serial)
	return b
}

func BenchmarkPostgresTool(tb *testing.B) {
	benchCallTool(tb, benchPostgres(tb))
}

func BenchmarkPostgresRaw(tb *testing.B) {
	b := benchPostgres(tb)
	benchCallRaw(tb, "pgx", b.dsn, benchQuery(dollar), false)
}
