package sqlaction

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/hashicorp/hcl/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/mcpdecl/mcpdecl/engine"
)

// sqliteBusyTimeout is how long a SQLite statement waits for a lock held by
// another connection, unless the dsn says otherwise.
const sqliteBusyTimeout = "5000"

// openSQLite opens a SQLite pool. A relative path in the dsn is relative
// to the directory of the configuration file. A read-only database is
// opened with mode=ro, so that no statement can write, whatever it says.
func (d *Database) openSQLite(ctx *engine.DecodeContext, dsn string, rng hcl.Range) hcl.Diagnostics {
	rw, ro, memory, err := sqliteDSN(dsn, ctx.Dir)
	if err != nil {
		return hcl.Diagnostics{errorf(rng, "Invalid dsn", "%s.", err)}
	}
	d.memory = memory
	pool := rw
	if d.readOnly {
		if memory {
			return hcl.Diagnostics{errorf(rng, "Read-only in-memory database",
				"An in-memory SQLite database starts empty, so read_only would keep it empty forever. Use a file, or drop read_only.")}
		}
		pool = ro
		if d.init != "" {
			d.initOpen = func() (*sql.DB, error) {
				db, err := sql.Open("sqlite", rw)
				if err == nil {
					db.SetMaxOpenConns(1)
				}
				return db, err
			}
		}
	}
	db, err := sql.Open("sqlite", pool)
	if err != nil {
		return hcl.Diagnostics{errorf(rng, "Invalid dsn", "%s.", err)}
	}
	d.db = db
	return nil
}

// sqliteDSN resolves a SQLite dsn against dir and returns it for reading
// and writing, and for reading only.
func sqliteDSN(dsn, dir string) (rw, ro string, memory bool, err error) {
	uri := strings.HasPrefix(dsn, "file:")
	body := dsn
	if uri {
		body = dsn[len("file:"):]
	}
	path, query, _ := strings.Cut(body, "?")
	mode := queryValue(query, "mode")
	memory = path == ":memory:" || mode == "memory"
	if path == "" && !memory {
		return "", "", false, errors.New("the dsn names no file; write a path such as \"shop.db\", or \":memory:\"")
	}
	if !strings.Contains(query, "_busy_timeout=") {
		query = addParam(query, "_busy_timeout="+sqliteBusyTimeout)
	}
	if memory {
		return dsn + sep(dsn) + "_busy_timeout=" + sqliteBusyTimeout, "", true, nil
	}
	if mode != "" && mode != "ro" && mode != "rw" && mode != "rwc" {
		return "", "", false, errors.New("mode=" + mode + " in the dsn is not a SQLite open mode (ro, rw, rwc or memory)")
	}
	var roPath string
	if uri {
		if !strings.HasPrefix(path, "/") {
			// Relative to the configuration file.
			path = uriPath(filepath.ToSlash(dir)) + "/" + path
		}
		rw = "file:" + path + "?" + query
		roPath = path
	} else {
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		rw = path + "?" + query
		roPath = uriPath(filepath.ToSlash(path))
	}
	roQuery := query
	if mode != "" {
		roQuery = removeParam(roQuery, "mode")
	}
	ro = "file:" + roPath + "?" + addParam(roQuery, "mode=ro")
	return rw, ro, false, nil
}

// uriPath escapes the characters that end or escape the path of a SQLite
// URI filename.
func uriPath(p string) string {
	return strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23").Replace(p)
}

func sep(dsn string) string {
	if strings.Contains(dsn, "?") {
		return "&"
	}
	return "?"
}

func addParam(query, kv string) string {
	if query == "" {
		return kv
	}
	return query + "&" + kv
}

// queryValue is the value of key in a query string, as written.
func queryValue(query, key string) string {
	for p := range strings.SplitSeq(query, "&") {
		if k, v, _ := strings.Cut(p, "="); k == key {
			return v
		}
	}
	return ""
}

func removeParam(query, key string) string {
	var out []string
	for p := range strings.SplitSeq(query, "&") {
		if k, _, _ := strings.Cut(p, "="); k != key && p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "&")
}

// openPostgres opens a PostgreSQL pool with pgx. Cancelling a statement's
// context closes its connection and sends the server a cancel request, so
// the statement stops there too. A row longer than its call could show is
// refused unread (see pgConn).
func (d *Database) openPostgres(ctx *engine.DecodeContext, dsn string, rng hcl.Range) (hcl.Diagnostics, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	d.addSecret(ctx, dsn, cfg.Password)
	if cfg.DefaultQueryExecMode == pgx.QueryExecModeSimpleProtocol {
		return hcl.Diagnostics{errorf(rng, "Parameters must be bound",
			"default_query_exec_mode=simple_protocol makes the driver write values into the SQL text; mcpdecl sends them only as bound parameters. Remove it from the dsn, or use exec or describe_exec.")}, nil
	}
	d.db = sql.OpenDB(&pgConnector{inner: stdlib.GetConnector(*cfg)})
	return nil, nil
}

// openMySQL opens a MySQL or MariaDB pool. Timestamps are parsed
// (parseTime=true), sessions run in UTC unless the dsn sets time_zone, and
// a statement whose context ends is killed on the server (KILL QUERY).
func (d *Database) openMySQL(ctx *engine.DecodeContext, dsn string, rng hcl.Range) (hcl.Diagnostics, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	d.addSecret(ctx, dsn, cfg.Passwd)
	if cfg.InterpolateParams {
		return hcl.Diagnostics{errorf(rng, "Parameters must be bound",
			"interpolateParams=true makes the driver write values into the SQL text; mcpdecl sends them only as bound parameters. Remove it from the dsn.")}, nil
	}
	cfg.ParseTime = true
	cfg.Logger = driverLogger{d.logger.With("database", d.name)}
	if _, ok := cfg.Params["time_zone"]; !ok {
		if cfg.Params == nil {
			cfg.Params = map[string]string{}
		}
		cfg.Params["time_zone"] = "'+00:00'"
	}
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	d.killer = &killer{connector: connector}
	d.db = sql.OpenDB(&killConnector{inner: connector})
	if d.init != "" {
		initCfg := cfg.Clone()
		initCfg.MultiStatements = true
		d.initOpen = func() (*sql.DB, error) {
			c, err := mysql.NewConnector(initCfg)
			if err != nil {
				return nil, err
			}
			db := sql.OpenDB(c)
			db.SetMaxOpenConns(1)
			return db, nil
		}
	}
	return nil, nil
}

// driverLogger sends what the MySQL driver logs (a dropped connection, a
// bad packet) to the server's log instead of a bare line on stderr.
type driverLogger struct{ logger *slog.Logger }

// Print logs the driver's message as a warning.
func (l driverLogger) Print(v ...any) {
	l.logger.Warn("mysql driver: " + strings.TrimSpace(fmt.Sprint(v...)))
}

var _ mysql.Logger = driverLogger{}

// killer ends MySQL statements on the server. Closing the connection, what
// the driver does when a context ends, leaves the statement running there.
type killer struct {
	connector driver.Connector
}

// kill runs KILL QUERY for the connection id, on a connection of its own.
func (k *killer) kill(id uint64) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := k.connector.Connect(ctx)
	if err != nil {
		return
	}
	defer c.Close()
	if e, ok := c.(driver.ExecerContext); ok {
		_, _ = e.ExecContext(ctx, "KILL QUERY "+strconv.FormatUint(id, 10), nil)
	}
}

// killConnector opens MySQL connections that know their id on the server.
type killConnector struct {
	inner driver.Connector
}

func (c *killConnector) Driver() driver.Driver { return c.inner.Driver() }

func (c *killConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	id, err := connectionID(ctx, conn)
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	return &killConn{Conn: conn, id: id}, nil
}

func connectionID(ctx context.Context, conn driver.Conn) (uint64, error) {
	q, ok := conn.(driver.QueryerContext)
	if !ok {
		return 0, errors.New("the MySQL driver cannot run queries")
	}
	rows, err := q.QueryContext(ctx, "SELECT CONNECTION_ID()", nil)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	dest := make([]driver.Value, 1)
	if err := rows.Next(dest); err != nil {
		return 0, err
	}
	switch v := dest[0].(type) {
	case int64:
		return uint64(v), nil
	case uint64:
		return v, nil
	case []byte:
		return strconv.ParseUint(string(v), 10, 64)
	}
	return 0, errors.New("CONNECTION_ID() returned an unexpected value")
}

// killConn is a MySQL connection and its id; it passes everything to the
// driver's connection.
type killConn struct {
	driver.Conn
	id uint64
}

var (
	_ driver.ConnBeginTx        = (*killConn)(nil)
	_ driver.ConnPrepareContext = (*killConn)(nil)
	_ driver.QueryerContext     = (*killConn)(nil)
	_ driver.ExecerContext      = (*killConn)(nil)
	_ driver.Pinger             = (*killConn)(nil)
	_ driver.SessionResetter    = (*killConn)(nil)
	_ driver.Validator          = (*killConn)(nil)
	_ driver.NamedValueChecker  = (*killConn)(nil)
	_ driver.Connector          = (*killConnector)(nil)
)

func (c *killConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c *killConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (c *killConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
}

func (c *killConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
}

func (c *killConn) Ping(ctx context.Context) error {
	return c.Conn.(driver.Pinger).Ping(ctx)
}

func (c *killConn) ResetSession(ctx context.Context) error {
	return c.Conn.(driver.SessionResetter).ResetSession(ctx)
}

func (c *killConn) IsValid() bool {
	return c.Conn.(driver.Validator).IsValid()
}

func (c *killConn) CheckNamedValue(nv *driver.NamedValue) error {
	return c.Conn.(driver.NamedValueChecker).CheckNamedValue(nv)
}
