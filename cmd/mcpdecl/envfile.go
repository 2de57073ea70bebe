package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/joho/godotenv"

	"github.com/mcpdecl/mcpdecl/engine"
)

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

// readEnvFile reads the dotenv file name, a regular file of at most
// engine.MaxConfigFileBytes: the values it sets, or the diagnostic of its
// first bad line.
func readEnvFile(name string) (map[string]string, hcl.Diagnostics) {
	src, err := engine.ReadConfigFile(name)
	if err != nil {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Cannot read env file",
			Detail:   fmt.Sprintf("%s. Give --env-file the path of a file of NAME=value lines.", err),
		}}
	}
	return parseEnv(src, name)
}

// parseEnv reads dotenv text with godotenv (see docs/commands.md for its
// syntax). godotenv stops at the first bad line, and its error quotes the
// text from there to the end of the file, which may hold secrets: it is
// never shown. The diagnostic says where the line is instead, and never
// quotes the file.
func parseEnv(src []byte, filename string) (map[string]string, hcl.Diagnostics) {
	values, err := godotenv.UnmarshalBytes(src)
	_, noName := values[""]
	if err == nil && !noName {
		return values, nil
	}
	// godotenv reads CRLF as LF; offsets are counted in what it read.
	text := bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))
	if err != nil {
		return nil, hcl.Diagnostics{envError(filename, text, err)}
	}
	// A line with no name before its "=", or a last line with a name and
	// no "=": godotenv reads both as the name "".
	off := noNameLine(text)
	return nil, hcl.Diagnostics{envDiag(filename, text, off, fmt.Sprintf(
		`Line %d of %s has no name before its "=", or no "=" after its name.`, lineOf(text, off), filename))}
}

// envError is the diagnostic of godotenv's error err on text: where the
// bad line is, found from what err says, never err itself.
func envError(filename string, text []byte, err error) *hcl.Diagnostic {
	msg := err.Error()
	// `unexpected character "c" in variable name near "rest"`, where rest
	// runs from the start of the bad line's name to the end of the file.
	if head, quoted, ok := strings.Cut(msg, " in variable name near "); ok {
		char, err1 := strconv.Unquote(strings.TrimPrefix(head, "unexpected character "))
		rest, err2 := strconv.Unquote(quoted)
		if err1 == nil && err2 == nil && bytes.HasSuffix(text, []byte(rest)) && char != "" {
			// godotenv reads bytes, and names the bad one as a rune.
			bad := strings.IndexByte(rest, byte([]rune(char)[0]))
			off := len(text) - len(rest) + max(bad, 0)
			line := lineOf(text, off)
			if char == "\n" {
				return envDiag(filename, text, off, fmt.Sprintf(`Line %d of %s has no "=" after its name.`, line, filename))
			}
			return envDiag(filename, text, off, fmt.Sprintf(`Line %d of %s has a character a name cannot hold before its "=": a name has letters, digits, "_" and ".".`, line, filename))
		}
	}
	// `unterminated quoted value "rest of the line`: the quote it opens is
	// the last one of its kind not escaped by a backslash.
	if rest, ok := strings.CutPrefix(msg, "unterminated quoted value "); ok && rest != "" {
		off := bytes.LastIndexByte(text, rest[0])
		for off > 0 && text[off-1] == '\\' {
			off = bytes.LastIndexByte(text[:off-1], rest[0])
		}
		if off >= 0 {
			return envDiag(filename, text, off, fmt.Sprintf("The value on line %d of %s opens a quote that is never closed.", lineOf(text, off), filename))
		}
	}
	off := noNameLine(text)
	return envDiag(filename, text, off, fmt.Sprintf("Line %d of %s cannot be read.", lineOf(text, off), filename))
}

// envDiag is the diagnostic of a bad line, at the byte off of text.
func envDiag(filename string, text []byte, off int, detail string) *hcl.Diagnostic {
	start := hcl.Pos{Line: lineOf(text, off), Column: off - bytes.LastIndexByte(text[:off], '\n'), Byte: off}
	end := start
	end.Column++
	end.Byte++
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Invalid env file line",
		Detail:   detail + " Write each line as NAME=value, with optional quotes; # starts a comment.",
		Subject:  &hcl.Range{Filename: filename, Start: start, End: end},
	}
}

// lineOf is the line, from 1, of the byte off of text.
func lineOf(text []byte, off int) int { return bytes.Count(text[:off], []byte("\n")) + 1 }

// noNameLine is the offset of the first line of text that starts with "="
// or ":", else of the last line that is not blank (past its indent).
func noNameLine(text []byte) int {
	for off := 0; off < len(text); {
		line, _, _ := bytes.Cut(text[off:], []byte("\n"))
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) > 0 && (trimmed[0] == '=' || trimmed[0] == ':') {
			return off + len(line) - len(trimmed)
		}
		off += len(line) + 1
	}
	last := bytes.TrimRight(text, " \t\n")
	start := bytes.LastIndexByte(last, '\n') + 1
	return len(last) - len(bytes.TrimLeft(last[start:], " \t"))
}
