package execaction

import (
	"fmt"
	"path/filepath"
	"strings"
)

// windowsRefusal says why the program at path cannot be run on Windows
// with the arguments a call gives, or "" when it can.
//
// On Windows a program receives one command line, which os/exec composes
// from argv with the quoting that CommandLineToArgvW (and the C runtime of
// nearly every program) undoes. cmd.exe parses its command line by other
// rules, in which & | < > ^ and % are live even inside an argument that
// other programs would read as one word: a value from a call could run
// other commands. CreateProcess runs a batch file (.bat, .cmd) through
// cmd.exe, so batch files are refused outright, as is cmd.exe itself when
// an argument comes from the call (dynamic). The name is compared as
// Windows resolves it: case-insensitively, trailing dots and spaces and a
// ::$DATA stream suffix ignored.
//
// It is a pure function of its arguments, so that its rules are tested on
// every system; only Windows builds call it.
func windowsRefusal(path string, dynamic bool) string {
	base := windowsBase(path)
	switch ext := strings.ToLower(filepath.Ext(base)); ext {
	case ".bat", ".cmd":
		return fmt.Sprintf("the program %s is a batch file, which Windows runs through cmd.exe, whose parsing of a command line lets an argument run other commands; run the program the batch file runs directly instead", path)
	}
	if dynamic {
		switch strings.ToLower(base) {
		case "cmd", "cmd.exe", "command.com":
			return fmt.Sprintf("the program %s is cmd.exe, whose parsing of a command line lets an argument from a call run other commands; run the program directly instead, or give cmd.exe only fixed arguments", path)
		}
	}
	return ""
}

// windowsBase is the last element of a Windows path, as the file system
// resolves it: after the last / or \ (or the drive's colon), without a
// ::$DATA stream suffix, trailing dots and spaces.
func windowsBase(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		path = path[i+1:]
	} else if len(path) >= 2 && path[1] == ':' {
		path = path[2:]
	}
	for {
		lower := strings.ToLower(path)
		switch {
		case strings.HasSuffix(lower, "::$data"):
			path = path[:len(path)-len("::$data")]
		case strings.HasSuffix(path, ".") || strings.HasSuffix(path, " "):
			path = strings.TrimRight(path, ". ")
		default:
			return path
		}
	}
}
