package sqlaction

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/spec"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// Database is a decoded database block: one pool of connections, shared by
// every sql action that refers to it. It is safe for concurrent use.
type Database struct {
	name         string
	driver       string // sqlite, postgres or mysql
	dialect      dialect
	db           *sql.DB
	readOnly     bool
	queryTimeout time.Duration // 0: none beyond the call's
	memory       bool          // an in-memory SQLite database

	// secrets hides the DSN's password in the text of errors.
	secrets *strings.Replacer

	// killer stops a MySQL statement on the server when its context ends;
	// nil for the other drivers, whose cancellation already does.
	killer *killer

	init     string                  // SQL run once per database, keyed by its SHA-256 in the marker table
	initSum  string                  // that SHA-256, in hexadecimal
	initOpen func() (*sql.DB, error) // a handle of its own for init; nil: db
	initDone atomic.Bool
	initMu   sync.Mutex

	// logger says when init runs, and when it is skipped.
	logger *slog.Logger
}

// Name is the label of the database block.
func (d *Database) Name() string { return d.name }

// Driver is the driver of the database: sqlite, postgres or mysql.
func (d *Database) Driver() string { return d.driver }

// DB is the pool of connections.
func (d *Database) DB() *sql.DB { return d.db }

// ReadOnly reports whether every statement runs read-only.
func (d *Database) ReadOnly() bool { return d.readOnly }

// Close closes the pool.
func (d *Database) Close() error { return d.db.Close() }

// Check connects to the database (and, the first time, applies init). The
// error says which database block and driver failed and why, without the
// DSN's password.
func (d *Database) Check(ctx context.Context) error {
	// init first: it creates the file of a read-only SQLite database.
	if err := d.ensureInit(ctx); err != nil {
		var e *Error
		if errors.As(err, &e) {
			return fmt.Errorf("database %q (%s): %s", d.name, d.driver, e.Message)
		}
		return err
	}
	if err := d.db.PingContext(ctx); err != nil {
		return fmt.Errorf("database %q (%s): cannot connect: %s", d.name, d.driver, d.redact(err.Error()))
	}
	return nil
}

// redact hides the DSN's secrets in s.
func (d *Database) redact(s string) string {
	if d.secrets == nil {
		return s
	}
	return d.secrets.Replace(s)
}

// Error is a failed statement: it names the database and carries the
// driver's message, with the DSN's password hidden.
type Error struct {
	Database string
	Message  string
	Err      error
}

func (e *Error) Error() string { return fmt.Sprintf("database %q: %s", e.Database, e.Message) }

// Unwrap returns the driver's error.
func (e *Error) Unwrap() error { return e.Err }

// fail wraps err, the failure of a statement, for the client.
func (d *Database) fail(err error, format string, args ...any) error {
	msg := err.Error()
	if format != "" {
		msg = fmt.Sprintf(format, args...) + ": " + msg
	}
	return &Error{Database: d.name, Message: d.redact(msg), Err: err}
}

// Pool defaults.
const (
	defaultMaxOpenConns    = 10
	defaultConnMaxLifetime = 30 * time.Minute
	defaultConnMaxIdleTime = 5 * time.Minute
	maxPoolSize            = 10000
)

// drivers lists the drivers a database block may name.
var drivers = map[string]dialect{
	"sqlite":   dialectSQLite,
	"postgres": dialectPostgres,
	"mysql":    dialectMySQL,
}

// DatabaseSpec is the database block.
var DatabaseSpec = &spec.Block{
	Name:    "database",
	Labels:  []string{"name"},
	Summary: "A pool of connections to a SQL database, referred to as database.name.",
	Doc: "The pool is opened when the files load; connections are made when a call needs one. " +
		"The password of a dsn is a secret: it is redacted everywhere, driver errors included. " +
		"MySQL connections use parseTime=true and time_zone '+00:00' (unless the dsn sets one). " +
		"A dsn that makes the driver write values into the SQL text (interpolateParams=true, default_query_exec_mode=simple_protocol) is refused.",
	Example: `database "shop" {
  driver = "sqlite"
  dsn    = "shop.db"
  init   = "CREATE TABLE IF NOT EXISTS orders (id INTEGER PRIMARY KEY, customer TEXT, total REAL)"
}`,
	Attrs: []*spec.Attr{
		spec.String("driver", `is the database's engine: "sqlite" (built in, pure Go), "postgres", or "mysql" (MySQL and MariaDB)`).Mandatory(),
		spec.String("dsn", "says which database to open. SQLite: a file path relative to the file, a file: URI, or \":memory:\". "+
			"PostgreSQL: postgres://user:pass@host:5432/db?sslmode=disable. MySQL: user:pass@tcp(host:3306)/db").Mandatory().MaySecret(),
		spec.Bool("read_only", "makes every statement run read-only, so a write fails whatever the SQL says (read-only transactions; SQLite opens the file with mode=ro)").WithDefault(false),
		spec.Int("max_open_conns", "is how many connections the pool may open at once (an in-memory SQLite database: 1)").Range(1, maxPoolSize).WithDefault(defaultMaxOpenConns),
		spec.Int("max_idle_conns", "is how many unused connections the pool keeps open, at most max_open_conns").AtLeast(0).DefaultIs("max_open_conns"),
		spec.Duration("conn_max_lifetime", "is how long a connection is used before it is replaced; idle connections close after 5m").WithDefault(defaultConnMaxLifetime),
		spec.Duration("query_timeout", "bounds one statement, and stops it on the server too").DefaultIs("none beyond the tool's timeout"),
		spec.String("init", "is SQL run once per database and text, in a transaction, such as file(\"seed.sql\"), on first use or by validate --connect. "+
			"The table mcpdecl_init records the SHA-256 of each init that ran: another configuration's init on the same database runs too, "+
			"and an edited init runs again, whole (so write CREATE TABLE IF NOT EXISTS)"),
	},
}

// decodeDatabase decodes a database block and opens its pool. It returns
// nil when the block has errors.
func decodeDatabase(ctx *engine.DecodeContext, block *hcl.Block) (*Database, hcl.Diagnostics) {
	v, diags := DatabaseSpec.Decode(block.Body, ctx)
	diags = append(diags, checkDatabase(v)...)
	d := &Database{name: block.Labels[0], logger: ctx.Logger, readOnly: v.Bool("read_only"), queryTimeout: v.Duration("query_timeout")}
	if d.logger == nil {
		d.logger = slog.New(slog.DiscardHandler)
	}
	d.driver = v.String("driver")
	d.dialect = drivers[d.driver]
	if v.Has("init") {
		d.init, d.initSum = v.String("init"), initSum(v.String("init"))
	}
	dsn, dsnRange := v.String("dsn"), hcl.Range{}
	if a := v.Attr("dsn"); a != nil {
		dsnRange = a.Expr.Range()
	}
	maxOpen, maxIdle, lifetime := v.Int("max_open_conns"), v.Int("max_idle_conns"), v.Duration("conn_max_lifetime")
	if !v.Has("max_idle_conns") {
		maxIdle = -1
	}
	if diags.HasErrors() {
		return nil, diags
	}

	var err error
	var more hcl.Diagnostics
	switch d.dialect {
	case dialectSQLite:
		more = d.openSQLite(ctx, dsn, dsnRange)
	case dialectPostgres:
		more, err = d.openPostgres(ctx, dsn, dsnRange)
	case dialectMySQL:
		more, err = d.openMySQL(ctx, dsn, dsnRange)
	}
	diags = append(diags, more...)
	if err != nil {
		diags = append(diags, errorf(dsnRange, "Invalid dsn", "The dsn of database %q cannot be read by the %s driver: %s.", d.name, d.driver, d.redact(err.Error())))
	}
	if diags.HasErrors() {
		if d.db != nil {
			_ = d.db.Close()
		}
		return nil, diags
	}

	if d.memory {
		// Every connection to ":memory:" is a database of its own: keep
		// exactly one, forever.
		if a := v.Attr("max_open_conns"); a != nil && maxOpen != 1 {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagWarning,
				Summary:  "max_open_conns ignored",
				Detail:   "An in-memory SQLite database lives in one connection, so the pool keeps exactly one.",
				Subject:  a.Expr.Range().Ptr(),
			})
		}
		d.db.SetMaxOpenConns(1)
		d.db.SetMaxIdleConns(1)
		d.db.SetConnMaxLifetime(0)
		d.db.SetConnMaxIdleTime(0)
		return d, diags
	}
	if maxIdle < 0 {
		maxIdle = maxOpen
	}
	d.db.SetMaxOpenConns(int(maxOpen))
	d.db.SetMaxIdleConns(int(maxIdle))
	d.db.SetConnMaxLifetime(lifetime)
	d.db.SetConnMaxIdleTime(defaultConnMaxIdleTime)
	return d, diags
}

// checkDatabase checks what the spec cannot say: the driver is one
// mcpdecl knows, dsn and init are not blank, and max_idle_conns is at most
// max_open_conns.
func checkDatabase(v *spec.Values) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if _, known := drivers[v.String("driver")]; v.Has("driver") && !known {
		s := v.String("driver")
		hint := ""
		switch strings.ToLower(s) {
		case "mariadb":
			hint = ` For MariaDB, use "mysql".`
		case "postgresql", "pgx", "pg":
			hint = ` Did you mean "postgres"?`
		case "sqlite3":
			hint = ` Did you mean "sqlite"?`
		}
		diags = append(diags, errorf(v.Attr("driver").Expr.Range(), "Unknown database driver",
			"%q is not a driver mcpdecl knows; use \"sqlite\", \"postgres\" or \"mysql\".%s", s, hint))
	}
	if v.Has("dsn") && strings.TrimSpace(v.String("dsn")) == "" {
		diags = append(diags, errorf(v.Attr("dsn").Expr.Range(), "Empty dsn", "The dsn says which database to open, such as \"shop.db\" for SQLite or \"postgres://user@host/db\"."))
	}
	if v.Has("init") && strings.TrimSpace(v.String("init")) == "" {
		diags = append(diags, errorf(v.Attr("init").Expr.Range(), "Empty init", "init is SQL run once to create the database's tables, usually file(\"seed.sql\"); remove it or give it statements."))
	}
	if maxOpen := v.Int("max_open_conns"); v.Has("max_idle_conns") && v.Int("max_idle_conns") > maxOpen {
		diags = append(diags, errorf(v.Attr("max_idle_conns").Expr.Range(), "Invalid max_idle_conns", "max_idle_conns is how many unused connections the pool keeps open: a whole number from 0 to max_open_conns (%d), not %d.", maxOpen, v.Int("max_idle_conns")))
	}
	return diags
}

// addSecret records a password of the DSN, so that it is hidden wherever
// text leaves the server, and in this database's own errors.
func (d *Database) addSecret(ctx *engine.DecodeContext, dsn, password string) {
	if password == "" {
		return
	}
	ctx.Redactor.Add(password)
	ctx.Redactor.Add(dsn)
	pairs := []string{dsn, text.Mask, ":" + password + "@", ":" + text.Mask + "@", "password=" + password, "password=" + text.Mask}
	if len(password) >= 4 {
		pairs = append(pairs, password, text.Mask)
	}
	d.secrets = strings.NewReplacer(pairs...)
}

// ensureInit applies the init SQL once per database and text of init: the
// marker table mcpdecl_init records the SHA-256 of every init that ran, so
// that the init of another configuration on the same database, or an
// edited one, runs too, and the same init never runs twice. An init runs in
// one transaction, which also records it. A failure is returned to the call
// that triggered it, and the next call tries again.
func (d *Database) ensureInit(ctx context.Context) error {
	if d.init == "" || d.initDone.Load() {
		return nil
	}
	d.initMu.Lock()
	defer d.initMu.Unlock()
	if d.initDone.Load() {
		return nil
	}
	db := d.db
	if d.initOpen != nil {
		var err error
		if db, err = d.initOpen(); err != nil {
			return d.fail(err, "init cannot open the database")
		}
		defer db.Close()
	}
	sum := d.initSum
	state, err := d.markerState(ctx, db)
	if err != nil {
		return d.fail(err, "init cannot tell whether it already ran")
	}
	if state == markerUnkeyed {
		if err := d.keyMarker(ctx, db, sum); err != nil {
			return d.fail(err, "init cannot upgrade its marker table %s", markerTable)
		}
		d.logger.Info("database init marker upgraded: the init that ran before is taken to be the current one",
			"database", d.name, "init_sha256", sum[:12])
		state = markerKeyed
	}
	if state == markerKeyed {
		ran, err := d.initRan(ctx, db, sum)
		if err != nil {
			return d.fail(err, "init cannot tell whether it already ran")
		}
		if ran {
			d.logger.Info("database init skipped: already run", "database", d.name, "init_sha256", sum[:12])
			d.initDone.Store(true)
			return nil
		}
	}
	if err := d.applyInit(ctx, db, sum, state == markerAbsent); err != nil {
		return err
	}
	d.logger.Info("database init ran", "database", d.name, "init_sha256", sum[:12])
	d.initDone.Store(true)
	return nil
}

// initSum is the key of an init in the marker table: the SHA-256 of its
// text, in hexadecimal.
func initSum(init string) string {
	h := sha256.Sum256([]byte(init))
	return hex.EncodeToString(h[:])
}

// markerTable records the inits that ran, so that each runs once.
const markerTable = "mcpdecl_init"

// markerColumn holds the SHA-256 of an init that ran. Marker tables made
// before it existed say only that some init ran.
const markerColumn = "init_sha256"

// markerState is what the marker table of a database is.
type markerState int

const (
	markerAbsent  markerState = iota // no init ever ran
	markerUnkeyed                    // an init ran, which one is not recorded
	markerKeyed                      // the table records which inits ran
)

// markerState finds the marker table and tells whether it records which
// inits ran.
func (d *Database) markerState(ctx context.Context, db *sql.DB) (markerState, error) {
	var table, column string
	switch d.dialect {
	case dialectSQLite:
		table = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '" + markerTable + "'"
		column = "SELECT count(*) FROM pragma_table_info('" + markerTable + "') WHERE name = '" + markerColumn + "'"
	case dialectPostgres:
		table = "SELECT count(*) FROM pg_catalog.pg_class WHERE oid = to_regclass('" + markerTable + "')"
		column = "SELECT count(*) FROM pg_catalog.pg_attribute WHERE attrelid = to_regclass('" + markerTable + "') AND attname = '" + markerColumn + "' AND NOT attisdropped"
	case dialectMySQL:
		table = "SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = '" + markerTable + "'"
		column = "SELECT count(*) FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = '" + markerTable + "' AND column_name = '" + markerColumn + "'"
	}
	var n int
	if err := db.QueryRowContext(ctx, table).Scan(&n); err != nil {
		return markerAbsent, err
	}
	if n == 0 {
		return markerAbsent, nil
	}
	if err := db.QueryRowContext(ctx, column).Scan(&n); err != nil {
		return markerAbsent, err
	}
	if n == 0 {
		return markerUnkeyed, nil
	}
	return markerKeyed, nil
}

// placeholder is the nth bound parameter (from 1) in the database's
// dialect.
func (d *Database) placeholder(n int) string {
	if d.dialect == dialectPostgres {
		return "$" + strconv.Itoa(n)
	}
	return "?"
}

// keyMarker adds the column of SHA-256s to a marker table made before it
// existed, and takes the init that ran to be the current one, sum: the
// database was initialised by this configuration, and running its init
// again would fail on the tables it made.
func (d *Database) keyMarker(ctx context.Context, db *sql.DB, sum string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, "ALTER TABLE "+markerTable+" ADD COLUMN "+markerColumn+" VARCHAR(64) NOT NULL DEFAULT ''"); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE "+markerTable+" SET "+markerColumn+" = "+d.placeholder(1), sum); err != nil {
		return err
	}
	return tx.Commit()
}

// initRan reports whether the marker table records the init whose SHA-256
// is sum.
func (d *Database) initRan(ctx context.Context, db *sql.DB, sum string) (bool, error) {
	var n int
	err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+markerTable+" WHERE "+markerColumn+" = "+d.placeholder(1), sum).Scan(&n)
	return n > 0, err
}

// applyInit runs init and records its SHA-256, sum, in one transaction,
// which first creates the marker table when create is true.
func (d *Database) applyInit(ctx context.Context, db *sql.DB, sum string, create bool) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return d.fail(err, "init cannot begin a transaction")
	}
	defer func() { _ = tx.Rollback() }()
	failed := "init failed, nothing was applied; it runs again on the next call"
	if d.dialect == dialectMySQL {
		failed = "init failed; it runs again on the next call, but MySQL commits schema changes at once, so the statements before the failing one may have been applied"
	}
	if create {
		if _, err := tx.ExecContext(ctx, "CREATE TABLE "+markerTable+" ("+markerColumn+" VARCHAR(64) NOT NULL, applied_at VARCHAR(64) NOT NULL)"); err != nil {
			return d.fail(err, "init cannot create its marker table %s", markerTable)
		}
	}
	if _, err := tx.ExecContext(ctx, d.init); err != nil {
		return d.fail(err, "%s", failed)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO "+markerTable+" ("+markerColumn+", applied_at) VALUES ("+d.placeholder(1)+", "+d.placeholder(2)+")", sum, time.Now().UTC().Format(time.RFC3339)); err != nil {
		return d.fail(err, "init cannot record that it ran")
	}
	if err := tx.Commit(); err != nil {
		return d.fail(err, "init cannot commit")
	}
	return nil
}

// errorf is an error diagnostic.
var errorf = spec.Errorf
