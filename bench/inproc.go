package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log"
	"runtime"
	"time"

	"github.com/mcpdecl/mcpdecl/adapters"

	"github.com/mcpdecl/mcpdecl/engine/load"
)

// inproc is one way of running the SQLite tool's statement in this
// process: its medians over the rounds.
type inproc struct {
	name      string
	nsPerCall float64
	allocs    float64
	// ratio is the median over rounds of this way's time per call divided
	// by raw database/sql's (rows scanned into maps) in the same round.
	ratio float64
}

// way is one way of running the SQLite tool's statement.
type way struct {
	name string
	f    func() error
}

// sqlWays are the ways of running the SQLite tool's statement in process,
// and a function that releases what they hold: raw database/sql with rows
// scanned into maps (what a generic tool must do) and into a struct (what
// the baseline does), the engine (engine/load, then engine.Tool.Call:
// argument validation, the statement, typed rows, mappings, output
// validation, the result and its text), and raw database/sql again with the
// statement prepared once, as the engine prepares it.
func sqlWays(st *setup) ([]way, func(), error) {
	cfg, _, diags := load.Load(load.Options{Registry: adapters.Registry()}, st.config(10))
	if diags.HasErrors() {
		return nil, nil, fmt.Errorf("loading %s: %s", st.config(10), diags.Error())
	}
	tool, ok := cfg.Tool("top")
	if !ok {
		cfg.Close()
		return nil, nil, fmt.Errorf("no tool top")
	}
	db, err := sql.Open("sqlite", st.db)
	if err != nil {
		cfg.Close()
		return nil, nil, err
	}
	db.SetMaxIdleConns(4)
	ctx := context.Background()

	engineCall := func() error {
		if res := tool.Call(ctx, json.RawMessage(`{}`)); res.IsError {
			return fmt.Errorf("engine: %s", res.Text())
		}
		return nil
	}
	stmt, err := db.PrepareContext(ctx, topQuery)
	if err != nil {
		cfg.Close()
		db.Close()
		return nil, nil, err
	}
	query := func(run func(context.Context) (*sql.Rows, error), scan func(*sql.Rows, []string) error) func() error {
		return func() error {
			// A deadline, as every tool call has one.
			ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			rows, err := run(ctx)
			if err != nil {
				return err
			}
			defer rows.Close()
			cols, err := rows.Columns()
			if err != nil {
				return err
			}
			if err := scan(rows, cols); err != nil {
				return err
			}
			return rows.Err()
		}
	}
	text := func(ctx context.Context) (*sql.Rows, error) { return db.QueryContext(ctx, topQuery) }
	prepared := func(ctx context.Context) (*sql.Rows, error) { return stmt.QueryContext(ctx) }
	intoMaps := func(rows *sql.Rows, cols []string) error {
		values := make([]any, len(cols))
		dest := make([]any, len(cols))
		for i := range values {
			dest[i] = &values[i]
		}
		var out []map[string]any
		for rows.Next() {
			if err := rows.Scan(dest...); err != nil {
				return err
			}
			row := make(map[string]any, len(cols))
			for i, c := range cols {
				row[c] = values[i]
			}
			out = append(out, row)
		}
		if len(out) != 5 {
			return fmt.Errorf("raw: %d rows", len(out))
		}
		return nil
	}
	rawTyped := query(text, func(rows *sql.Rows, _ []string) error {
		type item struct {
			Name  string
			Price float64
		}
		var out []item
		for rows.Next() {
			var it item
			if err := rows.Scan(&it.Name, &it.Price); err != nil {
				return err
			}
			out = append(out, it)
		}
		return nil
	})
	return []way{
		{"raw `database/sql`, rows into maps", query(text, intoMaps)},
		{"raw `database/sql`, rows into a struct", rawTyped},
		{"mcpdecl engine: `Tool.Call` of the SQLite tool", engineCall},
		{"raw `database/sql`, a statement prepared once, rows into maps", query(prepared, intoMaps)},
	}, func() { _ = cfg.Close(); _ = stmt.Close(); _ = db.Close() }, nil
}

// sqlInProcess times the ways of sqlWays, alternating them each round; the
// report gives medians.
func sqlInProcess(st *setup, o options) ([]inproc, error) {
	ways, done, err := sqlWays(st)
	if err != nil {
		return nil, err
	}
	defer done()
	// About a quarter of a second per way and round, and seven rounds: a
	// call is under 0.1 ms, and shorter runs move with the machine's
	// other work more than with the code.
	n := max(o.calls, 3000)
	rounds := max(o.rounds, 7)
	ns := make([][]float64, len(ways))
	allocs := make([][]float64, len(ways))
	ratios := make([][]float64, len(ways))
	for round := range rounds {
		log.Printf("SQLite in process, round %d/%d", round+1, rounds)
		per := make([]float64, len(ways))
		for k := range ways {
			w := ways[(k+round)%len(ways)]
			i := (k + round) % len(ways)
			for range 50 { // warm the statement cache and the pool
				if err := w.f(); err != nil {
					return nil, err
				}
			}
			runtime.GC()
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			t0 := time.Now()
			for range n {
				if err := w.f(); err != nil {
					return nil, err
				}
			}
			d := time.Since(t0)
			runtime.ReadMemStats(&m1)
			per[i] = float64(d.Nanoseconds()) / float64(n)
			ns[i] = append(ns[i], per[i])
			allocs[i] = append(allocs[i], float64(m1.Mallocs-m0.Mallocs)/float64(n))
		}
		for i := range ways {
			ratios[i] = append(ratios[i], per[i]/per[0])
		}
	}
	var out []inproc
	for i, w := range ways {
		out = append(out, inproc{name: w.name, nsPerCall: medianOf(ns[i]), allocs: medianOf(allocs[i]), ratio: medianOf(ratios[i])})
	}
	return out, nil
}
