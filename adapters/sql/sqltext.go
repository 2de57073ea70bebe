package sqlaction

import (
	"strconv"
	"strings"
)

// dialect is the SQL lexical flavour of a driver: how strings, quoted
// identifiers, comments and placeholders are written.
type dialect int

const (
	dialectSQLite dialect = iota
	dialectPostgres
	dialectMySQL
)

// analysis is what a lexical scan of a statement tells, outside strings,
// quoted identifiers and comments.
type analysis struct {
	// first is the first keyword, upper-cased: SELECT, WITH, INSERT, …
	first string
	// main is the keyword of the statement that runs: first, or for
	// WITH … the first statement keyword after the common table
	// expressions.
	main string
	// returning reports RETURNING at the top level (not inside a WITH
	// clause's parentheses).
	returning bool
	// writes reports a keyword that changes data or schema anywhere in the
	// statement, such as a data-modifying WITH clause.
	writes bool
	// params is the number of parameters the statement takes: the highest
	// $N for postgres, the number of ? for mysql, the highest index for
	// sqlite. It is -1 when the scan cannot tell reliably.
	params int
}

// writeKeywords change data or schema wherever they appear. UPDATE after
// FOR or KEY is a lock clause (SELECT … FOR UPDATE, FOR NO KEY UPDATE) and
// is not counted.
var writeKeywords = map[string]bool{
	"INSERT": true, "UPDATE": true, "DELETE": true, "MERGE": true, "REPLACE": true,
	"UPSERT": true, "INTO": true, "CREATE": true, "DROP": true, "ALTER": true,
	"TRUNCATE": true, "GRANT": true, "REVOKE": true, "CALL": true, "COPY": true,
	"LOCK": true, "VACUUM": true, "REINDEX": true, "ATTACH": true, "DETACH": true,
	"RENAME": true, "COMMENT": true, "LOAD": true, "HANDLER": true, "DO": true,
	"REFRESH": true, "CLUSTER": true, "DISCARD": true, "PREPARE": true,
	"EXECUTE": true, "NOTIFY": true, "LISTEN": true, "IMPORT": true, "SECURITY": true,
}

// mainKeywords are the keywords that start the statement after a WITH
// clause.
var mainKeywords = map[string]bool{
	"SELECT": true, "INSERT": true, "UPDATE": true, "DELETE": true,
	"MERGE": true, "VALUES": true, "TABLE": true, "REPLACE": true,
}

// readKeywords start statements that only read.
var readKeywords = map[string]bool{
	"SELECT": true, "VALUES": true, "TABLE": true, "SHOW": true,
	"EXPLAIN": true, "DESCRIBE": true, "DESC": true,
}

// execKeywords start statements that return no rows (unless they say
// RETURNING): they run with ExecContext, which gives rows_affected.
var execKeywords = map[string]bool{
	"INSERT": true, "UPDATE": true, "DELETE": true, "MERGE": true, "REPLACE": true,
	"UPSERT": true, "CREATE": true, "DROP": true, "ALTER": true, "TRUNCATE": true,
	"GRANT": true, "REVOKE": true, "SET": true, "LOCK": true, "VACUUM": true,
	"REINDEX": true, "ATTACH": true, "DETACH": true, "RENAME": true,
	"COMMENT": true, "DO": true, "REFRESH": true, "CLUSTER": true, "USE": true,
	"BEGIN": true, "START": true, "COMMIT": true, "ROLLBACK": true,
	"SAVEPOINT": true, "RELEASE": true, "ANALYZE": true, "LOAD": true,
}

// returnsRows reports whether the statement yields rows, so that it runs
// with QueryContext; the others run with ExecContext. A statement that
// starts with a keyword not known to return nothing is taken to return rows.
func (a analysis) returnsRows() bool {
	if a.returning {
		return true
	}
	return !execKeywords[a.main]
}

// readOnly reports whether the statement only reads: a SELECT (or VALUES,
// TABLE, SHOW, EXPLAIN), possibly after a WITH clause, with no keyword that
// writes anywhere in it. Functions that write cannot be seen; this is a
// hint, not a guarantee (read_only on the database is one).
func (a analysis) readOnly() bool {
	return readKeywords[a.main] && !a.writes
}

// analyze scans query in the given dialect.
func analyze(query string, d dialect) analysis {
	s := scanner{src: query, d: d}
	a := analysis{}
	depth := 0
	prev := ""
	maxParam, count := 0, 0
	uncertain := false
	named := false
	for {
		tok := s.next()
		if tok.kind == tokEOF {
			break
		}
		switch tok.kind {
		case tokUncertain:
			uncertain = true
		case tokOpen:
			depth++
		case tokClose:
			if depth > 0 {
				depth--
			}
		case tokParam:
			count++
			switch {
			case tok.text == "?" && d == dialectSQLite:
				// A bare ? takes the number after the largest so far.
				maxParam++
			case tok.text == "?":
				maxParam = count
			case tok.text[0] == '?' || tok.text[0] == '$':
				n, err := strconv.Atoi(tok.text[1:])
				if err != nil || n < 1 {
					uncertain = true
					continue
				}
				maxParam = max(maxParam, n)
			default:
				named = true
			}
		case tokWord:
			w := strings.ToUpper(tok.text)
			if a.first == "" {
				a.first = w
				if w != "WITH" {
					a.main = w
				}
			} else if a.main == "" && depth == 0 && mainKeywords[w] {
				a.main = w
			}
			if w == "RETURNING" && depth == 0 {
				a.returning = true
			}
			if writeKeywords[w] && !(w == "UPDATE" && (prev == "FOR" || prev == "KEY")) {
				a.writes = true
			}
			prev = w
		}
	}
	a.params = maxParam
	if uncertain || named {
		a.params = -1
	}
	return a
}

type tokKind int

const (
	tokEOF tokKind = iota
	tokWord
	tokParam
	tokOpen
	tokClose
	tokUncertain // something the scan cannot read for sure
)

type token struct {
	kind tokKind
	text string
}

// scanner splits SQL text into the tokens analyze needs: words,
// parameters and parentheses. Strings, quoted identifiers, comments and
// everything else are skipped.
type scanner struct {
	src string
	pos int
	d   dialect
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentChar(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9' || c == '$'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (s *scanner) next() token {
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		switch {
		case c == '(':
			s.pos++
			return token{kind: tokOpen}
		case c == ')':
			s.pos++
			return token{kind: tokClose}
		case c == '-' && s.peek(1) == '-':
			if s.d == dialectMySQL && !(s.pos+2 >= len(s.src) || s.src[s.pos+2] <= ' ') {
				// In MySQL, -- starts a comment only when followed by a
				// space or a control character.
				s.pos++
				continue
			}
			s.skipLine()
		case c == '#' && s.d == dialectMySQL:
			s.skipLine()
		case c == '/' && s.peek(1) == '*':
			if s.d == dialectMySQL && (s.peek(2) == '!' || s.peek(2) == '+') {
				// An executable comment or optimizer hint: SQL in a comment.
				s.skipBlockComment(false)
				return token{kind: tokUncertain}
			}
			if !s.skipBlockComment(s.d == dialectPostgres) {
				return token{kind: tokUncertain}
			}
		case c == '\'':
			if !s.skipQuoted('\'', s.d == dialectMySQL) {
				return token{kind: tokUncertain}
			}
		case c == '"':
			if !s.skipQuoted('"', s.d == dialectMySQL) {
				return token{kind: tokUncertain}
			}
		case c == '`' && s.d != dialectPostgres:
			if !s.skipQuoted('`', false) {
				return token{kind: tokUncertain}
			}
		case c == '[' && s.d == dialectSQLite:
			end := strings.IndexByte(s.src[s.pos:], ']')
			if end < 0 {
				s.pos = len(s.src)
				return token{kind: tokUncertain}
			}
			s.pos += end + 1
		case c == '?':
			if s.d == dialectPostgres {
				// An operator (jsonb ? 'key'), not a parameter.
				s.pos++
				continue
			}
			start := s.pos
			s.pos++
			if s.d == dialectSQLite {
				for s.pos < len(s.src) && isDigit(s.src[s.pos]) {
					s.pos++
				}
			}
			return token{kind: tokParam, text: s.src[start:s.pos]}
		case c == '$' && s.d == dialectPostgres:
			if isDigit(s.peek(1)) {
				start := s.pos
				s.pos++
				for s.pos < len(s.src) && isDigit(s.src[s.pos]) {
					s.pos++
				}
				return token{kind: tokParam, text: s.src[start:s.pos]}
			}
			if !s.skipDollarQuoted() {
				return token{kind: tokUncertain}
			}
		case (c == ':' || c == '@' || c == '$') && s.d == dialectSQLite && isIdentStart(s.peek(1)):
			start := s.pos
			s.pos++
			for s.pos < len(s.src) && isIdentChar(s.src[s.pos]) {
				s.pos++
			}
			return token{kind: tokParam, text: s.src[start:s.pos]}
		case (c == 'E' || c == 'e') && s.d == dialectPostgres && s.peek(1) == '\'':
			// An escape string: backslashes escape quotes.
			s.pos++
			if !s.skipQuoted('\'', true) {
				return token{kind: tokUncertain}
			}
		case isIdentStart(c):
			start := s.pos
			for s.pos < len(s.src) && isIdentChar(s.src[s.pos]) {
				s.pos++
			}
			return token{kind: tokWord, text: s.src[start:s.pos]}
		case isDigit(c):
			// A number; in PostgreSQL 1$ is not a parameter either.
			for s.pos < len(s.src) && (isIdentChar(s.src[s.pos]) || s.src[s.pos] == '.') {
				s.pos++
			}
		default:
			s.pos++
		}
	}
	return token{kind: tokEOF}
}

func (s *scanner) peek(n int) byte {
	if s.pos+n < len(s.src) {
		return s.src[s.pos+n]
	}
	return 0
}

func (s *scanner) skipLine() {
	end := strings.IndexByte(s.src[s.pos:], '\n')
	if end < 0 {
		s.pos = len(s.src)
		return
	}
	s.pos += end + 1
}

// skipBlockComment skips /* … */, nested when the dialect nests them. It
// reports false when the comment does not end.
func (s *scanner) skipBlockComment(nested bool) bool {
	depth := 0
	for s.pos < len(s.src) {
		switch {
		case s.src[s.pos] == '/' && s.peek(1) == '*':
			if depth == 0 || nested {
				depth++
			}
			s.pos += 2
		case s.src[s.pos] == '*' && s.peek(1) == '/':
			depth--
			s.pos += 2
			if depth == 0 {
				return true
			}
		default:
			s.pos++
		}
	}
	return false
}

// skipQuoted skips a string or quoted identifier that starts at s.pos with
// quote q, where a doubled quote stands for itself. When backslash is true
// a backslash escapes the next character. It reports false when the text
// cannot be read for sure: it does not end, or (in a dialect where a
// server setting decides what a backslash means) it holds a backslash.
func (s *scanner) skipQuoted(q byte, backslash bool) bool {
	s.pos++
	sure := true
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		switch {
		case c == '\\' && backslash:
			if s.d == dialectMySQL {
				// NO_BACKSLASH_ESCAPES changes what this means.
				sure = false
			}
			s.pos += 2
		case c == '\\' && s.d == dialectPostgres && q == '\'':
			// standard_conforming_strings = off changes what this means.
			sure = false
			s.pos++
		case c == q:
			if s.peek(1) == q {
				s.pos += 2
				continue
			}
			s.pos++
			return sure
		default:
			s.pos++
		}
	}
	return false
}

// skipDollarQuoted skips a PostgreSQL dollar-quoted string, $tag$…$tag$,
// starting at s.pos. A $ that does not start one is skipped alone.
func (s *scanner) skipDollarQuoted() bool {
	end := s.pos + 1
	for end < len(s.src) && s.src[end] != '$' {
		if !isIdentChar(s.src[end]) || s.src[end] == '$' {
			s.pos++
			return true
		}
		end++
	}
	if end >= len(s.src) {
		s.pos++
		return true
	}
	tag := s.src[s.pos : end+1]
	close := strings.Index(s.src[end+1:], tag)
	if close < 0 {
		s.pos = len(s.src)
		return false
	}
	s.pos = end + 1 + close + len(tag)
	return true
}
