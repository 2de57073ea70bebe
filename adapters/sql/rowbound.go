package sqlaction

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/mcpdecl/mcpdecl/engine"
)

// rowTooLargeError is a row that the result of a call could not show by
// itself: larger than the tool's max_result_bytes.
type rowTooLargeError struct {
	size   int64 // about what the row takes as JSON, or on the wire
	budget int64 // the tool's max_result_bytes
	wire   bool  // size is the row as PostgreSQL sends it, refused unread
}

func (e *rowTooLargeError) Error() string {
	what := fmt.Sprintf("the first row takes about %d bytes as JSON, more than this tool's max_result_bytes (%d bytes)", e.size, e.budget)
	if e.wire {
		what = fmt.Sprintf("the first row takes %d bytes as PostgreSQL sends it, more than this tool's max_result_bytes (%d bytes) could show", e.size, e.budget)
	}
	return what + "; select fewer or shorter columns (such as left(col, 1000) or substr(col, 1, 1000)), or raise max_result_bytes"
}

// rowTooLarge is err, or the row too large it stands for: a PostgreSQL
// message longer than the bound that budget set on the connection.
func rowTooLarge(err error, budget int64) error {
	var e *pgproto3.ExceededMaxBodyLenErr
	if errors.As(err, &e) && budget > 0 {
		return &rowTooLargeError{size: int64(e.ActualBodyLen), budget: budget, wire: true}
	}
	return err
}

// refusedUnread reports whether err is a PostgreSQL row refused before it
// was read, being longer than its call could show (see pgConn).
func refusedUnread(err error) bool {
	var e *pgproto3.ExceededMaxBodyLenErr
	return errors.As(err, &e)
}

// pgMaxBody is the longest PostgreSQL message a connection reads when no
// budget bounds it: pgproto3's own bound (a message is at most 1 GiB).
const pgMaxBody = 0x3fffffff - 1

// wireBound is the longest message a statement under budget (the tool's
// max_result_bytes; 0: none) may read on PostgreSQL. A row whose JSON fits
// in budget is never longer on the wire than about 2.4 times that (a
// binary number of 8 bytes and its length of 4, against a value and a key
// of at least 5 in JSON), and the other messages (a row's description,
// errors) are far shorter than 64 KiB; so a message longer than this is a
// row that could not be shown.
func wireBound(budget int64) int {
	if budget <= 0 || budget > (pgMaxBody-64<<10)/4 {
		return pgMaxBody
	}
	return int(4*budget + 64<<10)
}

// unboundedKey marks the context of a statement whose rows are read
// whatever their size (see withoutWireBound).
type unboundedKey struct{}

// withoutWireBound lets a statement read rows of any size on PostgreSQL:
// one that changes rows and returns them has done its work by then, and
// refusing its rows on the wire would close the connection under it.
func withoutWireBound(ctx context.Context) context.Context {
	return context.WithValue(ctx, unboundedKey{}, true)
}

// pgConnector opens PostgreSQL connections that refuse, as it arrives, a
// row longer than the statement's tool could show (see pgConn).
type pgConnector struct {
	inner driver.Connector
}

var (
	_ driver.Connector      = (*pgConnector)(nil)
	_ driver.QueryerContext = (*pgConn)(nil)
	_ driver.ExecerContext  = (*pgConn)(nil)
	_ driver.ConnBeginTx    = (*pgConn)(nil)
)

func (c *pgConnector) Driver() driver.Driver { return c.inner.Driver() }

func (c *pgConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	sc, ok := conn.(*stdlib.Conn)
	if !ok {
		return conn, nil
	}
	return &pgConn{Conn: sc, frontend: sc.Conn().PgConn().Frontend()}, nil
}

// pgConn is a pgx connection that bounds the messages each statement
// reads by the max_result_bytes of the call it runs for (see wireBound):
// pgx then fails a longer row before reading its body, and closes the
// connection, instead of holding the row in memory. The rest is the
// driver's own.
type pgConn struct {
	*stdlib.Conn
	frontend *pgproto3.Frontend
}

// bound sets the longest message the statement run under ctx may read.
func (c *pgConn) bound(ctx context.Context) {
	n := pgMaxBody
	if ctx.Value(unboundedKey{}) == nil {
		n = wireBound(engine.MaxResultBytes(ctx))
	}
	c.frontend.SetMaxBodyLen(n)
}

func (c *pgConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	c.bound(ctx)
	return c.Conn.QueryContext(ctx, query, args)
}

func (c *pgConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	c.bound(ctx)
	return c.Conn.ExecContext(ctx, query, args)
}
