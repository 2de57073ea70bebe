package sqlaction

import "testing"

func TestAnalyzeParams(t *testing.T) {
	tests := []struct {
		d     dialect
		query string
		want  int // -1: cannot tell
	}{
		{dialectPostgres, "SELECT * FROM t WHERE a = $1 AND b = $2", 2},
		{dialectPostgres, "SELECT * FROM t WHERE a = $2", 2},
		{dialectPostgres, "SELECT $1, $1, $10", 10},
		{dialectPostgres, "SELECT '$1', \"$2\", $3", 3},
		{dialectPostgres, "SELECT $$ $1 $$, $tag$ $2 $tag$, $4", 4},
		{dialectPostgres, "SELECT 1 -- $1\n, 2 /* $2 /* nested $3 */ $4 */", 0},
		{dialectPostgres, "SELECT data ? 'k' FROM t WHERE id = $1", 1},
		{dialectPostgres, "SELECT foo$1 FROM t", 0},
		{dialectPostgres, "SELECT E'it\\'s $1', $2", 2},
		{dialectPostgres, "SELECT 'a\\', $1", -1},
		{dialectPostgres, "SELECT 'unterminated $1", -1},
		{dialectPostgres, "SELECT x::text FROM t WHERE y = $1", 1},
		{dialectMySQL, "SELECT * FROM t WHERE a = ? AND b = ?", 2},
		{dialectMySQL, "SELECT '?', \"?\", `?`, ? # ?\n-- ?\n", 1},
		{dialectMySQL, "SELECT 1--?\n", 1},
		{dialectMySQL, "SELECT /* ? */ ?", 1},
		{dialectMySQL, "SELECT /*!50000 ? */ 1", -1},
		{dialectMySQL, "SELECT 'it''s', ?", 1},
		{dialectMySQL, "SELECT 'a\\'?', ?", -1},
		{dialectSQLite, "SELECT ?, ?", 2},
		{dialectSQLite, "SELECT ?3, ?", 4},
		{dialectSQLite, "SELECT ?1, ?1", 1},
		{dialectSQLite, "SELECT '?', \"?\", `?`, [?], ? -- ?", 1},
		{dialectSQLite, "SELECT * FROM t WHERE a = :a", -1},
		{dialectSQLite, "SELECT * FROM t WHERE a = @a OR b = $b", -1},
		{dialectSQLite, "SELECT json_extract(j, '$.a') FROM t WHERE id = ?", 1},
	}
	for _, tt := range tests {
		if got := analyze(tt.query, tt.d).params; got != tt.want {
			t.Errorf("%d %q: params = %d, want %d", tt.d, tt.query, got, tt.want)
		}
	}
}

func TestAnalyzeKind(t *testing.T) {
	tests := []struct {
		query               string
		rows, ret, readOnly bool
	}{
		{"SELECT 1", true, false, true},
		{"  -- comment\n/* c */ select 1", true, false, true},
		{"(SELECT 1) UNION (SELECT 2)", true, false, true},
		{"WITH x AS (SELECT 1) SELECT * FROM x", true, false, true},
		{"WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 3) SELECT n FROM s", true, false, true},
		{"WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d", true, false, false},
		{"WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x", false, false, false},
		{"WITH x AS (SELECT 1) DELETE FROM t WHERE id IN (SELECT * FROM x) RETURNING id", true, true, false},
		{"INSERT INTO t VALUES (1)", false, false, false},
		{"insert into t values (1) returning id", true, true, false},
		{"UPDATE t SET a = 1", false, false, false},
		{"DELETE FROM t", false, false, false},
		{"CREATE TABLE t (a int)", false, false, false},
		{"SELECT * FROM t FOR UPDATE", true, false, true},
		{"SELECT * FROM t FOR NO KEY UPDATE", true, false, true},
		{"SELECT * INTO t2 FROM t", true, false, false},
		{"SELECT 'DELETE' AS word", true, false, true},
		{"VALUES (1), (2)", true, false, true},
		{"SHOW TABLES", true, false, true},
		{"EXPLAIN SELECT 1", true, false, true},
		{"PRAGMA table_info(t)", true, false, false},
		{"CALL proc()", true, false, false},
		{"SELECT nextval('s')", true, false, true}, // a hint cannot see inside functions
	}
	for _, tt := range tests {
		a := analyze(tt.query, dialectPostgres)
		if a.returnsRows() != tt.rows || a.returning != tt.ret || a.readOnly() != tt.readOnly {
			t.Errorf("%q: rows %v, returning %v, read-only %v; want %v, %v, %v (%+v)",
				tt.query, a.returnsRows(), a.returning, a.readOnly(), tt.rows, tt.ret, tt.readOnly, a)
		}
	}
}
