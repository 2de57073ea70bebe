package sqlaction

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/hashicorp/hcl/v2"
	"github.com/jackc/pgx/v5/pgconn"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/calltrace"
	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// Row limits.
const (
	// DefaultMaxRows is how many rows a statement returns when its sql
	// block does not say.
	DefaultMaxRows = 1000
	// MaxRowsLimit is the most max_rows may be.
	MaxRowsLimit = 100000
)

// action is a decoded sql block: a statement and how to bind its values.
type action struct {
	db        *Database
	query     string
	params    mapping.Value // yields the list of values; nil: none
	fixed     []any         // the bound values, when params holds no program
	maxRows   int
	timeout   time.Duration // 0: none beyond the call's
	timeoutBy string        // which attribute set timeout, for messages
	rows      bool          // the statement returns rows: QueryContext
	returning bool          // a statement that changes rows and returns them
	readOnly  bool          // the statement only reads, or the database is read-only
	span      string        // the name of a run's span (see spanName)

	shape atomic.Pointer[shape] // of the last result, reused while it holds
	// stmt is the statement prepared on the pool (SQLite only), once the
	// first preparation has succeeded.
	stmt atomic.Pointer[sql.Stmt]
}

var (
	_ engine.Action             = (*action)(nil)
	_ engine.Hinter             = (*action)(nil)
	_ engine.ConcurrencyLimiter = (*action)(nil)
)

// DefaultMaxConcurrency bounds the calls of a tool under way at once, when
// the tool does not set max_concurrency (see [engine.IOConcurrency]).
func (a *action) DefaultMaxConcurrency() int { return engine.IOConcurrency() }

// ActionSpec is the sql block of a tool.
var ActionSpec = &spec.Block{
	Name:    "sql",
	In:      "tool",
	Summary: "Runs one SQL statement per call, on a database block's pool.",
	Doc: "Values from a call reach the database only as bound parameters: an argument such as x' OR '1'='1 is a value, never SQL. " +
		"Lists and maps are bound to PostgreSQL as arrays or JSON (WHERE id = ANY($1)), and to the others as JSON text. " +
		"Cancelling a call, or a timeout, stops the statement on the server. " +
		"SQLite statements are prepared once and reused (a table that does not exist yet is looked up again on each call until it does); " +
		"PostgreSQL and MySQL statements are handed to their drivers as text on each call, which keeps them working through poolers such as PgBouncer. " +
		"Tools that do not set annotations get them from the statement: a SELECT (or any statement on a read_only database) is read-only; other statements are destructive. " +
		"After the statement, programs see rows (a list of objects keyed by column name), columns (a list of {name, type}), rows_affected and truncated.",
	Example: `sql {
  database = database.shop
  query    = "SELECT id, total FROM orders WHERE customer = ?"
  params   = [expr("args.id")]
  max_rows = 100
}`,
	Attrs: []*spec.Attr{
		spec.String("database", "is the database block to run on, as database.name").Mandatory().Unevaluated(),
		spec.String("query", "is the SQL, fixed at load (an expr(…) here is an error). Parameters are $1, $2 … for PostgreSQL and ? for SQLite and MySQL").Mandatory().Unevaluated(),
		spec.List("params", spec.KindExpr, "is one value per parameter of the query, in order: literals and expr(…) over args; their number is checked against the query at load").Unevaluated(),
		spec.Int("max_rows", "is the most rows a call returns").Range(1, MaxRowsLimit).WithDefault(DefaultMaxRows),
		spec.Duration("timeout", "bounds this statement, replacing the database's query_timeout").DefaultIs("the database's query_timeout"),
	},
}

// decodeAction decodes an sql block. It returns nil when the block has
// errors, or when the database it refers to has errors of its own.
func decodeAction(ctx *engine.DecodeContext, block *hcl.Block) (*action, hcl.Diagnostics) {
	v, diags := ActionSpec.Decode(block.Body, ctx)
	a := &action{maxRows: int(v.Int("max_rows"))}
	if v.Has("timeout") {
		a.timeout, a.timeoutBy = v.Duration("timeout"), "the timeout of the sql block"
	}
	if attr := v.Attr("database"); attr != nil {
		r, more := ctx.Upstream(attr.Expr, "database")
		diags = append(diags, more...)
		a.db, _ = r.(*Database)
	}
	var more hcl.Diagnostics
	a.query, more = decodeQuery(ctx, v.Attr("query"))
	diags = append(diags, more...)

	nparams := 0
	var paramsRange *hcl.Range
	if attr := v.Attr("params"); attr != nil {
		paramsRange = attr.Expr.Range().Ptr()
		n, more := decodeParams(ctx, attr)
		diags = append(diags, more...)
		nparams = n
		if !more.HasErrors() && n > 0 {
			pv, more := ctx.Value(attr.Expr)
			diags = append(diags, more...)
			a.params = pv
			if c, ok := mapping.IsConst(pv); ok && !more.HasErrors() {
				a.fixed, _ = c.([]any)
			}
		}
	}

	if a.db == nil || diags.HasErrors() {
		return nil, diags
	}
	if a.timeout == 0 && a.db.queryTimeout > 0 {
		a.timeout, a.timeoutBy = a.db.queryTimeout, "the query_timeout of database "+strconv.Quote(a.db.name)
	}

	an := analyze(a.query, a.db.dialect)
	a.rows = an.returnsRows()
	a.returning = a.rows && an.returning
	a.readOnly = a.db.readOnly || an.readOnly()
	a.span = spanName(a.query, a.db.name)
	if an.params >= 0 && an.params != nparams {
		subject := v.Attr("query").Expr.Range()
		if paramsRange != nil {
			subject = *paramsRange
		}
		diags = append(diags, errorf(subject, "Wrong number of parameters", "%s", paramsMismatch(a.db.dialect, an.params, nparams)))
		return nil, diags
	}
	return a, diags
}

// decodeQuery reads the query, fixed at load: a program there would write
// a call's values into the SQL.
func decodeQuery(ctx *engine.DecodeContext, attr *hcl.Attribute) (string, hcl.Diagnostics) {
	if attr == nil {
		return "", nil
	}
	rng := attr.Expr.Range()
	v, diags := attr.Expr.Value(ctx.EvalContext)
	switch {
	case diags.HasErrors():
		return "", diags
	case mapping.IsProgram(v):
		return "", hcl.Diagnostics{errorf(rng, "Query must be fixed",
			"The SQL text is fixed when the configuration loads, so it cannot be an expr(…) program: values from the call would be written into the SQL. "+
				"Put them in params and refer to them as $1, $2 … (PostgreSQL) or ? (SQLite, MySQL); the driver sends them apart from the SQL.")}
	}
	s, diags := ctx.String(attr.Expr)
	if !diags.HasErrors() && strings.TrimSpace(s) == "" {
		diags = append(diags, errorf(rng, "Empty query", "The query is the SQL statement to run, such as \"SELECT * FROM orders WHERE id = ?\"."))
	}
	return s, diags
}

// decodeParams checks that params is a list, and returns its length.
func decodeParams(ctx *engine.DecodeContext, attr *hcl.Attribute) (int, hcl.Diagnostics) {
	v, diags := attr.Expr.Value(ctx.EvalContext)
	if diags.HasErrors() {
		return 0, diags
	}
	v, _ = v.UnmarkDeep()
	if !v.IsWhollyKnown() {
		return 0, diags
	}
	ty := v.Type()
	if v.IsNull() || !(ty.IsListType() || ty.IsTupleType()) {
		what := "one value"
		switch {
		case v.IsNull():
			what = "null"
		case ty.IsMapType() || ty.IsObjectType():
			what = "a map"
		case ty.IsSetType():
			what = "a set, whose order is not fixed"
		case mapping.IsProgram(v):
			what = "one expr(…) program"
		}
		return 0, append(diags, errorf(attr.Expr.Range(), "Invalid params",
			"params must be a list, one value per parameter of the query in order, such as [expr(\"args.email\"), 10]; this is %s. "+
				"Each element may be a literal or an expr(…) program.", what))
	}
	return v.LengthInt(), diags
}

// paramsMismatch words a query whose placeholders do not match params.
func paramsMismatch(d dialect, want, have int) string {
	values := func(n int) string {
		if n == 1 {
			return "1 value"
		}
		return strconv.Itoa(n) + " values"
	}
	var uses string
	switch {
	case want == 0:
		uses = "no parameter"
	case d == dialectPostgres && want == 1:
		uses = "1 parameter ($1)"
	case d == dialectPostgres:
		uses = fmt.Sprintf("%d parameters ($1 to $%d)", want, want)
	case want == 1:
		uses = "1 parameter (?)"
	default:
		uses = fmt.Sprintf("%d parameters (?)", want)
	}
	return fmt.Sprintf("The query takes %s, but params has %s. Give params exactly one value per parameter, in order.", uses, values(have))
}

// Hints says that a statement that only reads, or any statement on a
// read-only database, is read-only (and so idempotent); other statements
// may destroy data. A database is a closed world.
func (a *action) Hints() engine.Annotations {
	yes, no := true, false
	if a.readOnly {
		return engine.Annotations{ReadOnlyHint: &yes, DestructiveHint: &no, IdempotentHint: &yes, OpenWorldHint: &no}
	}
	return engine.Annotations{ReadOnlyHint: &no, DestructiveHint: &yes, OpenWorldHint: &no}
}

// queryer is what runs statements: the pool, a connection or a
// transaction.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// preparedQueryer runs the statement prepared on the pool, whatever the
// text it is given: the action's own query.
type preparedQueryer struct{ stmt *sql.Stmt }

func (p preparedQueryer) QueryContext(ctx context.Context, _ string, args ...any) (*sql.Rows, error) {
	return p.stmt.QueryContext(ctx, args...)
}

func (p preparedQueryer) ExecContext(ctx context.Context, _ string, args ...any) (sql.Result, error) {
	return p.stmt.ExecContext(ctx, args...)
}

// prepared returns the statement prepared on the pool, preparing it on
// first use. SQLite parses and plans a statement each time it is given as
// text, a third of the time of a short query; a prepared one is planned
// once per connection. It is done on SQLite only: a server's prepared
// statements live on its connections, where poolers such as PgBouncer in
// transaction mode lose them. A statement that cannot be prepared yet (its
// table is created later, say) is given as text, and prepared on a later
// call.
func (a *action) prepared(ctx context.Context) (queryer, bool) {
	if st := a.stmt.Load(); st != nil {
		return preparedQueryer{st}, true
	}
	st, err := a.db.db.PrepareContext(ctx, a.query)
	if err != nil {
		return nil, false
	}
	if !a.stmt.CompareAndSwap(nil, st) {
		// Another call prepared it meanwhile.
		_ = st.Close()
		st = a.stmt.Load()
	}
	return preparedQueryer{st}, true
}

// result is what one run of a statement gave.
type result struct {
	// shape is the columns of the rows: their order and JSON keys, what
	// the rows' text is written with, if the result shows it.
	shape     *shape
	rows      []any
	columns   []any
	affected  int
	truncated bool
	// cutAt is the max_result_bytes that the rows read passed, when that
	// is what cut them short; 0 when max_rows did, or nothing.
	cutAt int64
}

// Run binds the values, runs the statement and reads at most max_rows
// rows.
func (a *action) Run(ctx context.Context, args map[string]any) (*engine.Response, error) {
	d := a.db
	if err := d.ensureInit(ctx); err != nil {
		return nil, err
	}
	params, err := a.bind(ctx, args)
	if err != nil {
		return nil, err
	}
	tr := calltrace.From(ctx)
	var began time.Time
	if tr != nil {
		began = time.Now()
	}
	xctx, x := engine.BeginUpstreamCall(ctx, "sql", d.name, a.span, trace.SpanKindClient)
	if x.Traced() {
		a.describeSpan(ctx, &x)
	}
	res, qctx, err := a.attempt(xctx, params)
	if err != nil && a.readOnly && brokenConnection(err) && ctx.Err() == nil && !errors.Is(qctx.Err(), context.DeadlineExceeded) {
		// The connection was lost before the statement could run, say
		// because the server restarted: a statement that only reads can
		// safely run again on a new one.
		res, qctx, err = a.attempt(xctx, params)
	}
	if tr != nil {
		a.trace(tr, time.Since(began), params, res, err)
	}
	if err != nil {
		timedOut := ctx.Err() == nil && errors.Is(qctx.Err(), context.DeadlineExceeded)
		var failure error
		if timedOut {
			failure = &Error{Database: d.name, Err: err,
				Message: fmt.Sprintf("the statement was cancelled after %s (%s)", a.timeout, a.timeoutBy)}
			x.End("error", "timeout", failure.Error())
		} else {
			failure = d.fail(err, "")
			x.End("error", "db_error", failure.Error())
		}
		return nil, failure
	}
	if x.Traced() {
		if a.rows {
			x.SetAttributes(attribute.Int("db.response.returned_rows", len(res.rows)))
		} else {
			x.SetAttributes(attribute.Int("db.response.affected_rows", res.affected))
		}
	}
	x.End("ok", "", "")
	return a.response(res), nil
}

// attempt runs the statement once, within the statement's timeout. It
// returns the context the statement ran under, to tell a timeout.
func (a *action) attempt(ctx context.Context, params []any) (*result, context.Context, error) {
	qctx, cancel := ctx, context.CancelFunc(nil)
	switch {
	case a.timeout > 0:
		qctx, cancel = context.WithTimeout(ctx, a.timeout)
	case a.rows && a.db.dialect != dialectSQLite:
		// Cancelling stops a statement whose rows are left unread.
		qctx, cancel = context.WithCancel(ctx)
	}
	if cancel != nil {
		defer cancel()
	}
	res, err := a.run(qctx, cancel, params)
	return res, qctx, err
}

// run runs the statement on a connection of the pool: in a read-only
// transaction on a read-only PostgreSQL or MySQL database, and on a
// connection that can be killed on MySQL.
func (a *action) run(ctx context.Context, cancel context.CancelFunc, params []any) (*result, error) {
	d := a.db
	var q queryer = d.db
	begin := d.db.BeginTx
	if d.killer != nil {
		conn, err := d.db.Conn(ctx)
		if err != nil {
			return nil, err
		}
		var id uint64
		_ = conn.Raw(func(dc any) error {
			if kc, ok := dc.(*killConn); ok {
				id = kc.id
			}
			return nil
		})
		killed := make(chan struct{})
		stop := context.AfterFunc(ctx, func() {
			defer close(killed)
			if id != 0 {
				d.killer.kill(id)
			}
		})
		defer func() {
			if !stop() {
				// The statement was killed: never reuse the connection,
				// which the kill may still reach.
				<-killed
				_ = conn.Raw(func(any) error { return driver.ErrBadConn })
			}
			_ = conn.Close()
		}()
		q, begin = conn, conn.BeginTx
	}
	if d.dialect == dialectSQLite {
		if p, ok := a.prepared(ctx); ok {
			q = p
		}
	}
	if d.readOnly && d.dialect != dialectSQLite {
		tx, err := begin(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return nil, err
		}
		// Nothing to commit: the transaction only reads.
		defer func() { _ = tx.Rollback() }()
		q = tx
	}
	if !a.rows {
		r, err := q.ExecContext(ctx, a.query, params...)
		if err != nil {
			return nil, err
		}
		n, err := r.RowsAffected()
		if err != nil {
			return nil, err
		}
		return &result{rows: []any{}, columns: []any{}, affected: int(n)}, nil
	}
	budget := engine.MaxResultBytes(ctx)
	if a.returning && d.dialect == dialectPostgres {
		ctx = withoutWireBound(ctx)
	}
	rows, err := q.QueryContext(ctx, a.query, params...)
	if err != nil {
		return nil, rowTooLarge(err, budget)
	}
	defer rows.Close()
	res, err := a.read(rows, cancel, budget)
	if err != nil {
		return nil, rowTooLarge(err, budget)
	}
	return res, nil
}

// read reads at most max_rows rows, and one more to tell whether there
// were more. It stops too before the first row that would take the rows'
// JSON past budget bytes (the tool's max_result_bytes, less room for the
// notice; 0: no such bound): the result could not show more, and the
// memory of a call stays within a small multiple of what it may show (and
// one row), whatever the size of the result. A first row that takes more
// than budget by itself fails the call (a rowTooLargeError), since no
// result could show it; on PostgreSQL a row far larger is refused before
// it is read (see pgConn). The rest of a result that is cut short is not
// read: the statement is cancelled instead (on PostgreSQL and MySQL;
// SQLite stops by itself). A statement that changes rows and returns them
// has done its work already: a first row too large is left out, and its
// rows are counted to the end for rows_affected.
func (a *action) read(rows *sql.Rows, cancel context.CancelFunc, budget int64) (*result, error) {
	sh, err := a.shapeOf(rows)
	if err != nil {
		return nil, err
	}
	names, kinds, n := sh.names, sh.kinds, len(sh.names)
	values := make([]any, n)
	dest := make([]any, n)
	for i := range values {
		dest[i] = &values[i]
	}
	res := &result{rows: make([]any, 0, min(a.maxRows, 16)), columns: sh.columns, shape: sh}
	room := budget - noticeRoom // for the rows' JSON
	size := int64(2)            // of the rows' JSON so far: []
	for rows.Next() {
		if len(res.rows) == a.maxRows {
			res.truncated = true
			break
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		if budget > 0 {
			rowSize := int64(2) // {} and a comma
			for i, v := range values {
				rowSize += int64(len(names[i])) + 4 + jsonSize(kinds[i], v)
			}
			if size += rowSize; size > room && len(res.rows) > 0 {
				res.truncated, res.cutAt = true, budget
				break
			}
			if 2+rowSize > budget {
				// The first row could not be shown by itself: let go of
				// it, and of the statement.
				clear(values)
				if a.returning {
					res.truncated, res.cutAt = true, budget
					break
				}
				if cancel != nil {
					cancel()
				}
				return nil, &rowTooLargeError{size: 2 + rowSize, budget: budget}
			}
		}
		row := make(map[string]any, n)
		for i, v := range values {
			row[names[i]] = convert(kinds[i], v)
		}
		res.rows = append(res.rows, row)
	}
	switch {
	case res.truncated && a.returning:
		res.affected = len(res.rows) + 1
		for rows.Next() {
			res.affected++
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
	case res.truncated:
		if cancel != nil {
			cancel()
		}
	default:
		if err := rows.Err(); err != nil {
			if len(res.rows) == 0 || !refusedUnread(err) {
				return nil, err
			}
			// A later row too large was refused unread (see pgConn):
			// the rows before it are shown, as when they pass budget.
			res.truncated, res.cutAt = true, budget
			return res, nil
		}
		if a.returning {
			res.affected = len(res.rows)
		}
	}
	return res, nil
}

// noticeRoom is what the notice of rows cut short at max_result_bytes may
// take.
const noticeRoom = 256

// jsonSize is about what a value of kind k as the driver gives it takes in
// the rows' JSON, erring on the large side where it cannot tell: bytes that
// may not be text are written in base64.
func jsonSize(k kind, v any) int64 {
	switch x := v.(type) {
	case []byte:
		if k == kindBytes || k == kindAuto {
			return int64(len(x))*4/3 + 4
		}
		return int64(len(x)) + 2
	case string:
		return int64(len(x)) + 2
	case nil:
		return 4
	}
	return 24
}

// shape is what a statement's columns are: their names, database types
// and kinds, and the value of columns. A statement gives the same shape on
// every call (unless its tables change), so the last one is kept.
type shape struct {
	names   []string
	types   []string
	kinds   []kind
	keys    [][]byte // "name": in JSON, for the text of results
	columns []any    // shared by the results of every call; never modified
}

// shapeOf returns the shape of rows, the last one when it has not changed.
func (a *action) shapeOf(rows *sql.Rows) (*shape, error) {
	cts, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	if sh := a.shape.Load(); sh != nil && len(sh.names) == len(cts) {
		same := true
		for i, ct := range cts {
			if ct.Name() != sh.names[i] || ct.DatabaseTypeName() != sh.types[i] {
				same = false
				break
			}
		}
		if same {
			return sh, nil
		}
	}
	n := len(cts)
	sh := &shape{names: make([]string, n), types: make([]string, n), kinds: make([]kind, n), columns: make([]any, n)}
	for i, ct := range cts {
		name, dbType := ct.Name(), ct.DatabaseTypeName()
		if slices.Contains(sh.names[:i], name) {
			return nil, fmt.Errorf("the query returns two columns named %q; give them distinct names with AS, since each row becomes an object keyed by column name", name)
		}
		sh.names[i], sh.types[i] = name, dbType
		sh.kinds[i] = columnKind(a.db.dialect, dbType)
		sh.columns[i] = map[string]any{"name": name, "type": dbType}
	}
	sh.keys = objectKeys(sh.names)
	a.shape.Store(sh)
	return sh, nil
}

// response is the result of a run as the engine wants it.
func (a *action) response(res *result) *engine.Response {
	vars := map[string]any{
		"rows":          res.rows,
		"columns":       res.columns,
		"rows_affected": res.affected,
		"truncated":     res.truncated,
	}
	if !a.rows {
		text := strconv.Itoa(res.affected) + " rows affected"
		if res.affected == 1 {
			text = "1 row affected"
		}
		return &engine.Response{Vars: vars, Content: []engine.Content{{Type: engine.TextContent, Text: text}}}
	}
	// The rows as JSON are written only if the result shows them: a tool
	// with outputs shows those instead.
	return &engine.Response{Vars: vars, Text: func() string { return a.rowsText(res) }}
}

// rowsText writes the rows of res as a JSON list of objects whose keys
// follow the columns, and says when they were cut short.
func (a *action) rowsText(res *result) string {
	b := make([]byte, 0, 64+len(res.rows)*len(res.shape.names)*16)
	b = append(b, '[')
	for i, row := range res.rows {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendObject(b, res.shape.keys, res.shape.names, row.(map[string]any))
	}
	b = append(b, ']')
	switch {
	case res.cutAt > 0 && len(res.rows) == 0:
		b = fmt.Appendf(b, "\n\nNo row is shown: the first one alone takes more than max_result_bytes (%d bytes). Select fewer or shorter columns to see the rows.", res.cutAt)
	case res.cutAt > 0:
		b = fmt.Appendf(b, "\n\nOnly the first %d rows are shown: the query returned more, and these already take more than max_result_bytes (%d bytes). Narrow the query, or select fewer columns, to see the rest.", len(res.rows), res.cutAt)
	case res.truncated:
		b = fmt.Appendf(b, "\n\nOnly the first %d rows are shown: the query returned more (max_rows = %d). Narrow the query to see the rest.", a.maxRows, a.maxRows)
	}
	return string(b)
}

// bind computes the values of params for one call.
func (a *action) bind(ctx context.Context, args map[string]any) ([]any, error) {
	if a.params == nil {
		return nil, nil
	}
	src := a.fixed
	if src == nil {
		env := engine.ProgramEnv(ctx, args)
		v, err := a.params.Eval(env)
		if err != nil {
			return nil, err
		}
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("params yielded %T, not a list", v)
		}
		src = list
	}
	out := make([]any, len(src))
	for i, v := range src {
		out[i] = bindValue(a.db.dialect, v)
	}
	return out, nil
}

// bindValue turns a value of a program into a value the driver binds.
// Lists and maps go to PostgreSQL as they are (pgx binds them as arrays or
// JSON, by the parameter's type) and to the other databases as JSON text.
func bindValue(d dialect, v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		if f, err := x.Float64(); err == nil {
			return f
		}
		return string(x)
	case []any, map[string]any:
		if d == dialectPostgres {
			return x
		}
		b, err := jsonenc.Append(nil, x)
		if err != nil {
			return fmt.Sprint(x)
		}
		return string(b)
	}
	return v
}

// brokenConnection reports an error that says the connection was lost,
// rather than that the statement failed.
func brokenConnection(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03" || strings.HasPrefix(pe.Code, "08")
	}
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, mysql.ErrInvalidConn) ||
		pgconn.SafeToRetry(err)
}
