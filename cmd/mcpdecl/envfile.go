package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// maxEnvFileBytes caps the size of an env file.
const maxEnvFileBytes = 1 << 20

// envLookup returns the environment that env() and MCPDECL_VAR_<name>
// read: the process's environment, and for the names it does not set, the
// values of the --env-file files, a later file winning over an earlier one.
// The files are read at each call, so that a reload sees their changes.
// The process's environment itself is left as it is: programs that exec
// runs see a value of a file only when their env names it.
func (a *app) envLookup() (func(string) (string, bool), hcl.Diagnostics) {
	if len(a.envFiles) == 0 {
		return os.LookupEnv, nil
	}
	values := map[string]string{}
	var diags hcl.Diagnostics
	for _, name := range a.envFiles {
		vals, ds := readEnvFile(name)
		diags = append(diags, ds...)
		for k, v := range vals {
			values[k] = v
		}
	}
	return func(key string) (string, bool) {
		if v, ok := os.LookupEnv(key); ok {
			return v, true
		}
		v, ok := values[key]
		return v, ok
	}, diags
}

// readEnvFile reads the dotenv file name: the values it sets, or the
// diagnostics of its bad lines.
func readEnvFile(name string) (map[string]string, hcl.Diagnostics) {
	f, err := os.Open(name)
	if err != nil {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Cannot read env file",
			Detail:   fmt.Sprintf("%s. Give --env-file the path of a file of NAME=value lines.", err),
		}}
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, maxEnvFileBytes+1))
	if err != nil {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Cannot read env file",
			Detail:   fmt.Sprintf("Reading %s failed: %s.", name, err),
		}}
	}
	if len(src) > maxEnvFileBytes {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Env file too large",
			Detail:   fmt.Sprintf("%s is larger than %d bytes; an env file holds a few NAME=value lines.", name, maxEnvFileBytes),
		}}
	}
	return parseEnv(string(src), name)
}

// parseEnv reads dotenv text:
//
//	# a comment
//	NAME=value            # unquoted: trimmed, ends at " #"
//	export NAME=value     # "export " is allowed and ignored
//	NAME='literal $text'  # single quotes: nothing is special
//	NAME="a\nb"           # double quotes: \n \r \t \" \\ \$ are escapes
//
// Quoted values may span lines. Nothing is expanded: $OTHER stays as it
// is. A name set twice keeps its last value. The diagnostics never quote a
// value, which may be a secret.
func parseEnv(src, filename string) (map[string]string, hcl.Diagnostics) {
	values := map[string]string{}
	var diags hcl.Diagnostics
	p := envParser{src: src, line: 1, col: 1}
	for !p.done() {
		p.skip(" \t\r")
		if p.done() {
			break
		}
		if c := p.peek(); c == '\n' || c == '#' {
			p.skipLine()
			continue
		}
		if diag := p.entry(filename, values); diag != nil {
			diags = append(diags, diag)
			p.skipLine()
		}
	}
	return values, diags
}

// envParser walks dotenv text, counting lines and columns.
type envParser struct {
	src       string
	off       int
	line, col int
}

func (p *envParser) done() bool { return p.off >= len(p.src) }
func (p *envParser) peek() byte { return p.src[p.off] }

func (p *envParser) pos() hcl.Pos { return hcl.Pos{Line: p.line, Column: p.col, Byte: p.off} }

// next consumes one byte.
func (p *envParser) next() byte {
	c := p.src[p.off]
	p.off++
	if c == '\n' {
		p.line++
		p.col = 1
	} else {
		p.col++
	}
	return c
}

// skip consumes the bytes of set.
func (p *envParser) skip(set string) {
	for !p.done() && strings.IndexByte(set, p.peek()) >= 0 {
		p.next()
	}
}

// skipLine consumes the rest of the line, its newline included.
func (p *envParser) skipLine() {
	for !p.done() {
		if p.next() == '\n' {
			return
		}
	}
}

// envError is the diagnostic of a bad line, at pos.
func envError(filename string, pos hcl.Pos, format string, args ...any) *hcl.Diagnostic {
	end := pos
	end.Column++
	end.Byte++
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Invalid env file line",
		Detail:   fmt.Sprintf(format, args...) + " Write each line as NAME=value, with optional quotes; # starts a comment.",
		Subject:  &hcl.Range{Filename: filename, Start: pos, End: end},
	}
}

// isNameByte reports whether c may be part of a name; first tells whether
// it would be the first byte.
func isNameByte(c byte, first bool) bool {
	switch {
	case c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
		return true
	case c >= '0' && c <= '9' || c == '.' || c == '-':
		return !first
	}
	return false
}

// entry reads one NAME=value line into values.
func (p *envParser) entry(filename string, values map[string]string) *hcl.Diagnostic {
	if strings.HasPrefix(p.src[p.off:], "export") && p.off+6 < len(p.src) && (p.src[p.off+6] == ' ' || p.src[p.off+6] == '\t') {
		for range 6 {
			p.next()
		}
		p.skip(" \t")
	}
	start := p.pos()
	from := p.off
	for !p.done() && isNameByte(p.peek(), p.off == from) {
		p.next()
	}
	name := p.src[from:p.off]
	if name == "" {
		return envError(filename, start, "Line %d of %s does not start with a name (letters, digits and _, not starting with a digit).", start.Line, filename)
	}
	p.skip(" \t")
	if p.done() || p.peek() != '=' {
		return envError(filename, p.pos(), "Line %d of %s has no \"=\" after the name %s.", start.Line, filename, name)
	}
	p.next()
	p.skip(" \t")
	var value string
	switch {
	case p.done():
	case p.peek() == '\'' || p.peek() == '"':
		quote := p.pos()
		v, ok := p.quoted()
		if !ok {
			return envError(filename, quote, "The value of %s, on line %d of %s, opens a quote that is never closed.", name, start.Line, filename)
		}
		value = v
		p.skip(" \t\r")
		if !p.done() && p.peek() != '\n' && p.peek() != '#' {
			return envError(filename, p.pos(), "Line %d of %s has text after the closing quote of the value of %s.", p.line, filename, name)
		}
		p.skipLine()
	default:
		from := p.off
		for !p.done() && p.peek() != '\n' {
			if p.peek() == '#' && (p.src[p.off-1] == ' ' || p.src[p.off-1] == '\t') {
				break
			}
			p.next()
		}
		value = strings.TrimRight(p.src[from:p.off], " \t\r")
		p.skipLine()
	}
	values[name] = value
	return nil
}

// quoted reads a value in single or double quotes, the opening quote next.
// It reports false when the quote is never closed.
func (p *envParser) quoted() (string, bool) {
	q := p.next()
	var b strings.Builder
	for !p.done() {
		c := p.next()
		switch {
		case c == q:
			return b.String(), true
		case c == '\\' && q == '"' && !p.done():
			e := p.next()
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case '"', '\\', '$':
				b.WriteByte(e)
			default:
				b.WriteByte('\\')
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", false
}
