package main

import (
	"os"
	"path/filepath"
	"testing"
)

// The benchmarks run the in-process comparison of the harness one way at
// a time, so that each can be profiled:
//
//	go test ./bench -run '^$' -bench SQLite -benchmem -cpuprofile /tmp/sql.pprof

func sqlBench(b *testing.B, i int) {
	dir := b.TempDir()
	st := &setup{dir: dir, db: filepath.Join(dir, "shop.db"), upstream: "http://127.0.0.1:1"}
	if err := seed(st.db); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(st.config(10), []byte(config(st, 10)), 0o600); err != nil {
		b.Fatal(err)
	}
	ways, done, err := sqlWays(st)
	if err != nil {
		b.Fatal(err)
	}
	defer done()
	f := ways[i].f
	if err := f(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := f(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSQLiteRawMaps(b *testing.B)     { sqlBench(b, 0) }
func BenchmarkSQLiteRawStruct(b *testing.B)   { sqlBench(b, 1) }
func BenchmarkSQLiteEngine(b *testing.B)      { sqlBench(b, 2) }
func BenchmarkSQLiteRawPrepared(b *testing.B) { sqlBench(b, 3) }
