package sqlaction

import (
	"time"

	"github.com/mcpdecl/mcpdecl/engine/calltrace"
)

// traceRows is how many rows a trace shows.
const traceRows = 10

// trace records a statement's run: the statement, the values bound to it,
// and its rows (the first traceRows) or the error.
func (a *action) trace(tr calltrace.Tracer, took time.Duration, params []any, res *result, err error) {
	bound := make([]any, len(params))
	copy(bound, params)
	fields := []calltrace.Field{
		{Name: "database", Value: a.db.name},
		{Name: "statement", Value: a.query},
		{Name: "params", Value: bound},
	}
	switch {
	case err != nil:
		fields = append(fields, calltrace.Field{Name: "error", Value: err.Error()})
	case !a.rows:
		fields = append(fields, calltrace.Field{Name: "rows_affected", Value: res.affected})
	default:
		shown := res.rows[:min(len(res.rows), traceRows)]
		fields = append(fields,
			calltrace.Field{Name: "columns", Value: res.columns},
			calltrace.Field{Name: "row_count", Value: len(res.rows)},
			calltrace.Field{Name: "rows", Value: shown})
		if len(res.rows) > traceRows {
			fields = append(fields, calltrace.Field{Name: "rows_shown", Value: traceRows})
		}
		if res.truncated {
			fields = append(fields, calltrace.Field{Name: "truncated", Value: true})
		}
	}
	tr.Stage("sql", took, fields...)
}
