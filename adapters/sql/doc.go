// Package sqlaction is the SQL action of mcpdecl: the database top-level
// block, which declares a pool of connections, and the sql action block of
// a tool, which runs one statement per call. Its import path ends in /sql;
// the package is named sqlaction so that it never shadows database/sql.
//
// # The database block
//
// Its attributes are declared once, by [DatabaseSpec]; docs/language.md
// lists them with their bounds and defaults.
//
// Every value in it is fixed when the configuration loads. Each block owns
// one pool, opened at load; connections are made when a call needs one, so
// loading never waits on a server. Config.Check (validate --connect) pings
// every database, and applies init. The password of a dsn is recorded as a
// secret: it is redacted from every error, including the driver's.
//
// The drivers:
//
//   - sqlite: modernc.org/sqlite, pure Go. The dsn is a file path, relative to
//     the configuration file, or a file: URI (relative paths too), or
//     ":memory:". Query parameters of the driver such as
//     _pragma=foreign_keys(1) may follow "?". A lock held by another
//     connection is waited for up to 5s (_busy_timeout=5000) unless the dsn
//     says otherwise. An in-memory database lives in a single connection.
//   - postgres: github.com/jackc/pgx/v5 through database/sql; the dsn is a
//     URL (postgres://user:password@host:5432/db?sslmode=disable) or
//     key=value pairs. default_query_exec_mode=simple_protocol is refused:
//     it would write values into the SQL text.
//   - mysql: github.com/go-sql-driver/mysql, for MySQL and MariaDB; the dsn
//     is user:password@tcp(host:3306)/db?param=value. parseTime=true is
//     always set, and sessions use time_zone '+00:00' unless the dsn sets
//     time_zone, so that TIMESTAMP values are UTC. interpolateParams=true is
//     refused: it would write values into the SQL text.
//
// read_only makes writes fail whatever the SQL says: PostgreSQL and MySQL
// run each statement in a read-only transaction (BEGIN READ ONLY, START
// TRANSACTION READ ONLY); SQLite opens the file with mode=ro (the file must
// exist; init creates it).
//
// init is SQL (several statements) run once per database and text, the
// first time a call or Check needs it: the table mcpdecl_init records the
// SHA-256 of every init that ran, and an init it does not record runs in
// one transaction that also records it (and creates the table). So the
// init of another configuration on the same database runs too, and so does
// an edited init, whole: write it so that it can run over what an earlier
// version made (CREATE TABLE IF NOT EXISTS). The log says, at info, which
// init ran or was skipped, by the first 12 digits of its hash. A marker
// table from before the hash was recorded is upgraded, taking the init
// that ran to be the current one. If init fails, nothing is applied (MySQL
// commits schema changes at once, so there the statements before the
// failing one stay) and the next call tries again. It is meant for seeding
// a local SQLite file; on a shared server, prefer migrations.
//
// # The sql action block
//
// Its attributes are declared by [ActionSpec], and listed in
// docs/language.md.
//
// query is fixed at load time: an expr(…) program there is a load error.
// Values from a call reach the database only as bound parameters, written $1,
// $2 … for PostgreSQL and ? for SQLite (also ?NNN) and MySQL. params is a
// list of literals and expr(…) programs; the number of parameters in query
// must match its length, which is checked at load where the text can be
// read for sure (strings, quoted names and comments are skipped; SQLite's
// named parameters, MySQL's executable comments and strings with
// backslashes are not checked). Lists and maps are bound to PostgreSQL as
// they are (pgx binds them as arrays or JSON, by the parameter's type:
// WHERE id = ANY($1)), and to the others as JSON text.
//
// A statement that starts with SELECT, WITH … SELECT, VALUES, SHOW, EXPLAIN
// and the like, or that says RETURNING, runs with QueryContext and yields
// rows; INSERT, UPDATE, DELETE, DDL and the like run with ExecContext and
// yield rows_affected. At most max_rows rows are read, and one more to tell
// whether there were more. Rows are also counted against the tool's
// max_result_bytes as they are read (see [engine.MaxResultBytes]): reading
// stops before the first row that would take the rows' JSON past it; a
// first row larger than it by itself fails the call, and on PostgreSQL a
// row far larger is refused before it is read. The rest of the result is
// not read:
// PostgreSQL and MySQL statements are cancelled instead (a statement that
// changes rows and returns them has already done its work, and its rows are
// counted to the end for rows_affected). A tool that does not set
// max_concurrency runs at most [engine.IOConcurrency] calls at once.
//
// The statement runs under the call's context and, when set, the timeout
// of the block or the query_timeout of the database. When either ends the
// statement stops on the server too: pgx sends PostgreSQL a cancel request,
// MySQL statements are ended with KILL QUERY, SQLite is interrupted. A
// statement that only reads is run again once on a new connection when its
// connection turns out to be broken (a server restart).
//
// Annotations the tool does not set are inferred: a statement on a read-only
// database, or one that only reads (SELECT, WITH … SELECT, VALUES, SHOW,
// EXPLAIN, with no INSERT, UPDATE, DELETE, INTO, DDL… anywhere in it) is
// readOnlyHint true, destructiveHint false and idempotentHint true; any
// other statement is readOnlyHint false and destructiveHint true.
// openWorldHint is false: a database is a closed world.
//
// # What a call returns
//
// The programs that run after the action see
//
//   - rows: a list of objects keyed by column name (two columns of one name
//     are an error: use AS);
//   - columns: a list of {name, type}, type being the database's name for
//     the column's type (INT8, NUMERIC, VARCHAR, DECIMAL(10,2) …; "" for a
//     SQLite expression);
//   - rows_affected: the rows changed by an INSERT, UPDATE, DELETE…, or
//     returned by one with RETURNING; 0 for a query (MySQL counts the rows
//     whose values changed, unless the dsn sets clientFoundRows=true);
//   - truncated: whether there were more rows than rows holds: more than
//     max_rows, or more than fit in max_result_bytes.
//
// Values keep their types:
//
//	integers (any size)               int (uint64 past the int range)
//	NUMERIC, DECIMAL                  string, every digit kept: "12.50"
//	REAL, DOUBLE, FLOAT               float64 (±Infinity and NaN as strings)
//	BOOLEAN                           bool (MySQL's BOOLEAN is TINYINT: 0 or 1)
//	text, CHAR, ENUM, UUID, TIME      string
//	bytes (BYTEA, BLOB, BINARY)       base64 string
//	JSON, JSONB                       the decoded value (MariaDB's JSON is text)
//	TIMESTAMP, DATETIME               RFC 3339 string in UTC ("2024-02-29T13:45:00Z")
//	DATE                              "2024-02-29"
//	NULL                              null
//	anything else (arrays, INTERVAL…) its text, as the database writes it
//
// SQLite stores values by their own type whatever the column says, so a
// value is converted by its storage type: INTEGER int, REAL float64, TEXT
// string, BLOB base64; columns declared BOOLEAN, DECIMAL/NUMERIC, DATE,
// DATETIME/TIMESTAMP or JSON are converted as above when the value allows.
//
// The result's content, when the tool declares neither outputs nor text, is
// the rows as JSON (keys in column order), followed, when truncated, by a
// sentence saying so; for a statement without rows, "3 rows affected". A
// SQL error fails the call with "database "shop": " and the driver's message.
package sqlaction
